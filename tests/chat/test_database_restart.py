"""Persistent database connections that survive the database (issue 17): with ``CONN_MAX_AGE`` 60 the app's
PostgreSQL backends are terminated (as a restart or a failover does) between frames — handshake, ``confirm``,
``user_message`` — and every frame is answered; a database that fails inside a turn gives an ``error`` frame
and the socket stays open (never close code 1011)."""

import asyncio
from dataclasses import dataclass

import pytest
from django.db import connection, connections
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

from agentchat.models import PendingConfirmation
from tests.guard.test_guardrails_ws import _drain, _pending_card
from tests.support.db_outage import backends_terminate, read_only
from tests.support.processes import database_url
from tests.support.scripted_llm import ScriptedChatModel
from tests.support.websocket import frames_until, ws_connect

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _git_dir(settings, tmp_path):
    settings.GIT_REPOS_DIR = str(tmp_path / "git")


@pytest.fixture
def persistent_connections():
    """The production setting (``DB_CONN_MAX_AGE`` 60, health checks on) for this test; tests otherwise close
    each connection after its unit of work (conftest). Afterwards the kept connections are terminated, so the
    test database can be dropped."""
    db = connections.settings["default"]
    before = db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"]
    db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"] = 60, True
    with connection.cursor() as cursor:  # the test thread's own backend, spared: pytest-django flushes through it
        cursor.execute("SELECT pg_backend_pid()")
        keep = {cursor.fetchone()[0]}
    outage = Outage(database_url(), keep)
    yield outage
    db["CONN_MAX_AGE"], db["CONN_HEALTH_CHECKS"] = before
    read_only(outage.url, False)
    outage.terminate()


@dataclass(frozen=True)
class Outage:
    """The test database (``url``) and the backends an outage spares (``keep``)."""

    url: str
    keep: set[int]

    def terminate(self) -> int:
        """Terminate the app's backends of the test database; return how many."""
        return backends_terminate(self.url, keep=self.keep)


def _errors(frames: list[dict]) -> list[dict]:
    return [f for f in frames if f.get("event") == "error"]


async def test_every_frame_is_answered_after_the_backends_are_terminated(users, persistent_connections):
    outage = persistent_connections
    user = users["engineer"]
    conversation_id, confirmation_id = await _pending_card(user, "after-restart")

    assert outage.terminate() >= 1  # the kept connection of the database thread
    communicator, connected, _ = await ws_connect(user)  # handshake: session and user looked up
    assert connected

    assert outage.terminate() >= 1
    await communicator.send_json_to({"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"})
    decided = await _drain(communicator, quiet_s=3)
    assert not _errors(decided)
    assert PendingConfirmation.Status.EXECUTED in [f.get("status") for f in decided]

    assert outage.terminate() >= 1
    await communicator.send_json_to(
        {"type": "user_message", "conversation_id": conversation_id, "text": "что ты умеешь?", "context": None}
    )
    answered = await frames_until(communicator, "message")
    await communicator.disconnect()
    assert not _errors(answered)
    assert "conversation" in [f["event"] for f in answered]


class FailoverModel(ScriptedChatModel):
    """Answers while the database fails over to a read-only standby: new sessions read-only, the app's backends
    terminated. ``database_url`` is the test database; ``keep`` the backends spared."""

    database_url: str = ""
    keep: set[int] = set()

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
        read_only(self.database_url, True)
        backends_terminate(self.database_url, keep=self.keep)
        await asyncio.sleep(0.3)  # the backends have gone: the turn's next unit of work reconnects, read-only
        yield ChatGenerationChunk(message=AIMessageChunk(content="ответ"))


async def test_database_failing_inside_a_turn_gives_an_error_frame_and_the_socket_stays_open(
    users, persistent_connections, monkeypatch
):
    from agentchat.chat.consumer import AgentConsumer

    outage = persistent_connections
    url = outage.url
    model = FailoverModel(messages=iter([]), database_url=url, keep=outage.keep)
    # The socket's turn model is a scripted one (the consumer's documented test seam, as in test_disconnect).
    monkeypatch.setattr(AgentConsumer, "turn_model", lambda self: model)
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await communicator.send_json_to({"type": "user_message", "text": "привет", "context": None})
    failed = await frames_until(communicator, "error", wait_s=30)
    assert failed[-1]["code"] == "database_unavailable"

    read_only(url, False)  # the primary is back
    outage.terminate()
    await communicator.send_to(text_data="not json {")  # the socket is open and still answers
    assert (await communicator.receive_json_from(timeout=10))["code"] == "bad_frame"
    await communicator.disconnect()

    monkeypatch.setattr(AgentConsumer, "turn_model", lambda self: None)  # the offline planner
    again, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await again.send_json_to({"type": "user_message", "text": "что ты умеешь?", "context": None})
    answered = await frames_until(again, "message", wait_s=30)
    await again.disconnect()
    assert not _errors(answered)
