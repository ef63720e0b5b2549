"""Scale-out (DESIGN §14; issue 9; guardrails' reconnect): nothing that must survive a reconnect lives in a process.

Real daphne processes on free loopback ports share the pytest PostgreSQL database and the Redis channel layer;
``LLM_PROVIDER=openai`` points them at the scripted chat-completions server (``tests/support/chat_server.py``),
which calls ``create_branch`` (a write: a confirmation card) on a temporary ``GIT_REPOS_DIR``. Clients are real
WebSockets (``websockets``) with a database session cookie.
"""

import asyncio
import json
import os
import uuid

import httpx
import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from dulwich.repo import Repo
from websockets.asyncio.client import connect

from agentchat.models import PendingConfirmation
from policies.models import AuditEvent
from tests.support.chat_server import Call, ChatServer, Reply
from tests.support.contexts import DASHBOARD_1
from tests.support.processes import DaphneProcess, process_env, session_cookie
from tests.support.processes import database_url as _database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]  # daphne processes (``cluster``)
CONTEXT = DASHBOARD_1


@pytest.fixture
def branch_name() -> str:
    return f"feature/scale-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def llm(branch_name):
    """The scripted model: first a ``create_branch`` call, then (after the decision) a text answer."""
    with ChatServer(
        Reply(calls=[Call("create_branch", {"env_id": "ss-dev", "name": branch_name}, id="c_branch")]),
        Reply(text="Ветка создана."),
    ) as server:
        yield server


@pytest.fixture
def cluster(users, superset_stack, llm, tmp_path):
    """A factory of agentchat daphne processes sharing the test database, Redis, the LLM and the git directory."""
    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("RedisChannelLayer")
    env = process_env(
        DATABASE_URL=_database_url(),
        REDIS_URL=os.environ["REDIS_URL"],
        CHANNELS_PREFIX=f"scale-{uuid.uuid4().hex[:8]}",
        DJANGO_SECRET_KEY=settings.SECRET_KEY,
        LLM_PROVIDER="openai",
        LLM_BASE_URL=llm.url,
        LLM_API_KEY="test-key",
        LLM_MODEL=llm.model,
        LLM_TIMEOUT_S="10",
        EMBEDDINGS="off",
        GIT_REPOS_DIR=str(tmp_path / "git"),
    )
    started: list[DaphneProcess] = []

    def start(name: str, port: int | None = None) -> DaphneProcess:
        server = DaphneProcess(env, tmp_path / f"daphne-{name}.log", port=port).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


class Socket:
    """A chat WebSocket to one process, logged in by a session cookie."""

    def __init__(self, server: DaphneProcess, cookie: str):
        self.server = server
        self.cookie = cookie

    async def __aenter__(self) -> "Socket":
        host = f"127.0.0.1:{self.server.port}"
        self.ws = await connect(
            f"ws://{host}/ws/agent/", origin=f"http://{host}", additional_headers={"Cookie": self.cookie}
        )
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def send(self, frame: dict) -> None:
        await self.ws.send(json.dumps(frame))

    async def until(self, event: str, wait_s: float = 30) -> list[dict]:
        frames = []
        async with asyncio.timeout(wait_s):
            while True:
                frames.append(json.loads(await self.ws.recv()))
                if frames[-1]["event"] == event:
                    return frames

    async def quiet(self, wait_s: float = 1.0) -> list[dict]:
        """Frames that arrive within ``wait_s`` (to show nothing more comes)."""
        frames = []
        try:
            async with asyncio.timeout(wait_s):
                while True:
                    frames.append(json.loads(await self.ws.recv()))
        except TimeoutError:
            return frames


async def card_through(server: DaphneProcess, cookie: str, branch_name: str) -> tuple[int, int]:
    """Ask for the branch through ``server`` until the card arrives, then close the socket abruptly."""
    async with Socket(server, cookie) as socket:
        await socket.send(
            {"type": "user_message", "conversation_id": None, "text": f"создай ветку {branch_name}", "context": CONTEXT}
        )
        frames = await socket.until("confirm_required")
    conversation_id = frames[0]["conversation_id"]
    return conversation_id, frames[-1]["confirmation_id"]


async def resume_and_approve(server: DaphneProcess, cookie: str, conversation_id: int, confirmation_id: int):
    """Resume through ``server``: the pending card comes back once with the same id; approve it; approve again."""
    async with Socket(server, cookie) as socket:
        await socket.send({"type": "resume", "conversation_id": conversation_id})
        resumed = await socket.until("confirm_required")
        resumed += await socket.quiet()
        await socket.send({"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"})
        finished = await socket.until("message")
        await socket.send({"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"})
        again = await socket.quiet()
    return resumed, finished, again


@database_sync_to_async
def outcome_rows(conversation_id: int) -> dict:
    rows = AuditEvent.objects.filter(conversation_id=conversation_id)
    return {
        "status": list(
            PendingConfirmation.objects.filter(conversation_id=conversation_id).values_list("status", flat=True)
        ),
        "tool_call": rows.filter(event_type="tool_call").count(),
        "tool_result": rows.filter(event_type="tool_result").count(),
        "confirmed": rows.filter(event_type="confirmed").count(),
    }


def branches(git_dir) -> list[str]:
    repo = git_dir / "ss-dev"
    if not (repo / "HEAD").exists():
        return []
    return sorted(r.decode() for r in Repo(str(repo)).refs.keys(b"refs/heads/"))


def assert_executed_once(resumed, finished, again, confirmation_id, rows, llm, git_dir, branch_name):
    cards = [f for f in resumed if f["event"] == "confirm_required"]
    assert [c["confirmation_id"] for c in cards] == [confirmation_id]  # same id, once
    assert [f["event"] for f in finished if f["event"] in ("tool_started", "tool_finished")] == [
        "tool_started",
        "tool_finished",
    ]
    assert next(f for f in finished if f["event"] == "tool_finished")["ok"] is True
    assert finished[-1]["text"] == "Ветка создана."
    # a second approval runs nothing: at most the card's final state is shown again
    assert [(f["event"], f.get("status")) for f in again] in ([], [("card_state", "executed")])
    assert rows == {"status": ["executed"], "tool_call": 1, "tool_result": 1, "confirmed": 1}
    assert branch_name in branches(git_dir)
    assert len(llm.requests) == 2


async def test_card_from_worker_a_resumed_and_approved_through_worker_b(cluster, users, llm, branch_name, tmp_path):
    """Two daphne processes on PostgreSQL + Redis: a card created through A, the socket closed; ``resume`` through
    B re-emits it (same id, once); approval through B executes the write once."""
    a, b = cluster("a"), cluster("b")
    assert a.pid != b.pid
    async with httpx.AsyncClient(timeout=10) as client:
        for server in (a, b):
            health = (await client.get(server.url + "/healthz")).json()
            assert health["checks"]["channel_layer"]["ok"]
            assert health["checks"]["database"]["ok"]
    cookie = await database_sync_to_async(session_cookie)(users["engineer"])

    conversation_id, confirmation_id = await card_through(a, cookie, branch_name)
    assert (await outcome_rows(conversation_id))["status"] == ["pending"]
    assert branch_name not in branches(tmp_path / "git")
    resumed, finished, again = await resume_and_approve(b, cookie, conversation_id, confirmation_id)

    rows = await outcome_rows(conversation_id)
    assert_executed_once(resumed, finished, again, confirmation_id, rows, llm, tmp_path / "git", branch_name)


async def test_card_survives_a_killed_and_restarted_process(cluster, users, llm, branch_name, tmp_path):
    """One process: card created, the process killed (SIGKILL) and started again on the same port; ``resume``
    re-emits the card once with the same id; approval executes the write once."""
    first = cluster("before")
    cookie = await database_sync_to_async(session_cookie)(users["engineer"])
    conversation_id, confirmation_id = await card_through(first, cookie, branch_name)
    first.kill()
    assert first.process.returncode == -9

    second = cluster("after", port=first.port)
    assert second.pid != first.pid
    resumed, finished, again = await resume_and_approve(second, cookie, conversation_id, confirmation_id)

    rows = await outcome_rows(conversation_id)
    assert_executed_once(resumed, finished, again, confirmation_id, rows, llm, tmp_path / "git", branch_name)
