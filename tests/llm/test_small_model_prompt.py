"""The answer language reaches the model where a small model reads it last (issue 16).

The system prompt names the turn's language (``turn.prompt``), but after a tool result a 1.5B model answers from
what it read last: an English «tell the user it was refused» made it answer a Russian question in English
(``bench/llm_eval.py`` analyst-write). So the ToolMessage of a refused call names the language and carries what to
tell the user in it, and the one of a declined card names the language. A scripted model on loopback
(``tests/support/chat_server.py``) records what the agent sent it. Every other tool result ends with
``answer_in``: after an English search result the same model answered «создай ветку» in English.
"""

import json
import uuid

import pytest

from agentchat.models import Message
from agentchat.turn.agent import AgentTurn
from tests.support.chat_server import Call, ChatServer, Reply
from tests.support.contexts import ui_context
from tests.support.frames import Frames
from tests.support.wording import ptext, text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def chat_server(settings):
    """Start a scripted server with the given replies and point ``LLM_PROVIDER=openai`` at it."""
    started: list[ChatServer] = []

    def serve(*steps) -> ChatServer:
        server = ChatServer(*steps).__enter__()
        started.append(server)
        settings.LLM_PROVIDER, settings.LLM_BASE_URL, settings.LLM_API_KEY = "openai", server.url, "test-key"
        settings.LLM_MODEL, settings.LLM_TIMEOUT_S, settings.EMBEDDINGS = server.model, 10, "off"
        return server

    yield serve
    for server in started:
        server.__exit__(None, None, None)


def refused_role_text(language: str) -> str:
    """«Операция «создание git-ветки» недоступна вашей роли: нужна роль admin или engineer. Ничего не выполнено.»"""
    roles = ptext(language, "between alternative roles", " or ").join(["admin", "engineer"])
    title = text(language, "creating a git branch")
    said = text(
        language, "%(title)s is not available to your role: it needs the role %(roles)s.", title=title, roles=roles
    )
    return f"{said[:1].upper()}{said[1:]} {text(language, 'Nothing was run.')}"


@pytest.mark.parametrize(
    ("question", "language", "name"),
    [("создай ветку feature/summer", "ru", "Russian"), ("create the branch feature/summer", "en", "English")],
)
async def test_a_refused_call_tells_the_model_the_language_and_what_to_say(
    users, chat_server, question, language, name
):
    """The analyst's model calls create_branch (not offered): the refusal it reads names the question's language
    and the sentence to tell the user in it; the stored ToolMessage (the next turn's history) says the same."""
    server = chat_server(
        Reply(calls=[Call("create_branch", {"env_id": "ss-dev", "name": "feature/summer"}, id="c_refused")]),
        Reply(text="…"),
    )
    frames = Frames()

    conversation = await AgentTurn(user=users["analyst"], emit=frames).run(
        conversation_id=None, text=question, context=ui_context("dashboard", 1)
    )

    assert frames.of("permission_denied")[0]["call_id"] == "c_refused"
    sent = server.requests[1].messages[-1]
    assert sent["tool_call_id"] == "c_refused"
    told = json.loads(sent["content"])["message"]
    assert told.endswith(f"Tell the user in {name}: {refused_role_text(language)}")
    stored = await Message.objects.filter(conversation_id=conversation, role=Message.Role.TOOL).aget()
    assert json.loads(stored.content)["message"] == told


async def test_a_declined_card_tells_the_model_the_language(users, chat_server, settings, tmp_path):
    """The engineer declines the create_branch card of a Russian question: the ToolMessage the model reads at the
    next message says «ask the user instead, in Russian» (a deny alone asks the model nothing, issue 28 item 6)."""
    settings.GIT_REPOS_DIR = tmp_path / "git"
    branch = f"feature/lang-{uuid.uuid4().hex[:8]}"
    server = chat_server(
        Reply(calls=[Call("create_branch", {"env_id": "ss-dev", "name": branch}, id="c_card")]),
        Reply(text="Хорошо, ветку не создаю."),
    )
    frames = Frames()
    turn = AgentTurn(user=users["engineer"], emit=frames)

    await turn.run(conversation_id=None, text=f"создай ветку {branch}", context=ui_context("dashboard", 1))
    (card,) = frames.of("confirm_required")
    await turn.decide(confirmation_id=card["confirmation_id"], approve=False)
    assert len(server.requests) == 1
    await turn.run(conversation_id=frames.of("conversation")[0]["conversation_id"], text="ладно", context=None)

    told = json.loads(server.requests[1].messages[-2]["content"])["message"]
    assert told.endswith("Do not retry it; ask the user instead, in Russian.")


@pytest.mark.parametrize(
    ("question", "name"),
    [("какие окружения подключены?", "Russian"), ("which environments are configured?", "English")],
)
async def test_every_tool_result_ends_with_the_answer_language(users, chat_server, question, name):
    """A result the model reads (and a schema error) ends with ``answer_in``: after an English tool result the
    1.5B model answered a Russian question in English; stored the same for the next turn's history."""
    server = chat_server(
        Reply(
            calls=[
                Call("list_environments", {}, id="c_ok"),
                Call("list_environments", raw_args='{"limit": ', id="c_broken"),
            ]
        ),
        Reply(text="…"),
    )

    conversation = await AgentTurn(user=users["analyst"], emit=Frames()).run(
        conversation_id=None, text=question, context=ui_context("dataset", 1)
    )

    results = {r["tool_call_id"]: r["content"] for r in server.requests[1].tool_results()}
    assert "ss-dev" in results["c_ok"]["facts"]  # the result as labelled facts (issue 32 item 5)
    assert results["c_broken"]["error"] == "invalid_args"
    for content in results.values():
        assert list(content)[-1] == "answer_in"
        assert content["answer_in"] == name
    stored = Message.objects.filter(conversation_id=conversation, role=Message.Role.TOOL).order_by("id")
    kept = [json.loads(m.content) async for m in stored]
    assert "environments" in kept[0]  # stored structured, for the history, the planner and the pages
    assert kept[0]["answer_in"] == name
    assert kept[1] == results["c_broken"]
