"""The bounded queue of turns per process (issue 17): at most ``TURN_MAX_ACTIVE`` running, at most
``TURN_QUEUE_MAX`` waiting, each for at most ``TURN_QUEUE_WAIT_S``; a message that cannot start is refused ``busy``
at once, stored and audited, and ``/healthz`` reports the queue."""

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import AsyncClient, Client
from django.urls import path
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

from agentchat.chat.consumer import AgentConsumer
from agentchat.turn.admission import TurnAdmission, busy_text, turn_admission
from agentchat.turn.refusals import busy_audit
from policies.models import AuditEvent
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse fixture
from tests.support.scripted_llm import ScriptedChatModel
from tests.support.websocket import HOST, ORIGIN, frames_until

RELEASE: dict[str, asyncio.Event] = {}


class HeldModel(ScriptedChatModel):
    """Streams one word, then holds the turn (and its slot) until the test sets ``RELEASE["turn"]``."""

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
        await asyncio.sleep(0.1)  # older than the token coalescing interval (50 ms): sent as a token frame at once
        yield ChatGenerationChunk(message=AIMessageChunk(content="слово"))
        await asyncio.wait_for(RELEASE["turn"].wait(), 30)
        yield ChatGenerationChunk(message=AIMessageChunk(content=" конец"))


class HeldConsumer(AgentConsumer):
    def turn_model(self):
        return HeldModel(messages=iter([]))


application = AuthMiddlewareStack(URLRouter([path("ws/agent/", HeldConsumer.as_asgi())]))


async def connect(user) -> WebsocketCommunicator:
    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    communicator = WebsocketCommunicator(
        application, "/ws/agent/", headers=[(b"origin", ORIGIN), (b"host", HOST), (b"cookie", cookie)]
    )
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


@pytest.fixture
def limits(settings):
    settings.TURN_MAX_ACTIVE, settings.TURN_QUEUE_MAX, settings.TURN_QUEUE_WAIT_S = 1, 1, 0.3
    settings.TURN_MAX_STARTING = 8
    return settings


async def test_starting_turns_are_bounded_apart_from_running_ones(limits):
    """``TURN_MAX_STARTING`` 1: a second message waits while the first is starting, and gets its slot as soon as
    the first has started (``Slot.started``), though the first still runs."""
    limits.TURN_MAX_ACTIVE, limits.TURN_MAX_STARTING, limits.TURN_QUEUE_WAIT_S = 10, 1, 2.0
    gate = TurnAdmission()
    started, release = asyncio.Event(), asyncio.Event()

    async def first() -> None:
        async with gate.slot() as slot:
            await started.wait()
            slot.started()
            await release.wait()

    admitted = asyncio.get_running_loop().create_future()

    async def second() -> None:
        async with gate.slot() as slot:
            admitted.set_result(bool(slot))
            await release.wait()

    tasks = [asyncio.create_task(first())]
    await asyncio.sleep(0.01)
    tasks.append(asyncio.create_task(second()))
    await asyncio.sleep(0.05)
    assert not admitted.done()
    assert (gate.depth()["queued"], gate.depth()["starting"]) == (1, 1)
    started.set()
    assert await asyncio.wait_for(admitted, 1) is True
    assert (gate.depth()["running"], gate.depth()["starting"], gate.depth()["queued"]) == (2, 1, 0)
    release.set()
    await asyncio.gather(*tasks)
    assert (gate.depth()["running"], gate.depth()["starting"]) == (0, 0)


async def test_a_freed_slot_passes_to_the_waiter_and_a_full_queue_refuses_at_once(limits):
    gate = TurnAdmission()
    release = asyncio.Event()
    order: list[str] = []

    async def turn(name: str, hold: bool) -> bool:
        async with gate.slot() as admitted:
            order.append(f"{name}:{bool(admitted)}")
            if admitted and hold:
                await release.wait()
            return bool(admitted)

    first = asyncio.create_task(turn("first", True))
    await asyncio.sleep(0.01)
    second = asyncio.create_task(turn("second", False))  # waits in the queue
    await asyncio.sleep(0.01)
    began = time.monotonic()
    assert await turn("third", False) is False  # the queue (1) is full: refused without waiting
    assert time.monotonic() - began < 0.1
    assert gate.depth()["queued"] == 1
    assert gate.depth()["running"] == 1
    release.set()
    assert await first
    assert await second
    assert order == ["first:True", "third:False", "second:True"]
    assert gate.depth() | {"refused": 0} == {
        "running": 0,
        "starting": 0,
        "queued": 0,
        "refused": 0,
        "max_running": 1,
        "max_starting": 8,
        "max_queued": 1,
        "wait_s": 0.3,
    }
    assert gate.refused == 1


async def test_a_message_waiting_longer_than_the_bound_is_refused(limits):
    gate = TurnAdmission()
    async with gate.slot() as held:
        assert held
        began = time.monotonic()
        async with gate.slot() as admitted:
            waited = time.monotonic() - began
    assert not admitted
    assert 0.25 <= waited < 1.0  # TURN_QUEUE_WAIT_S 0.3, never longer than a second
    assert gate.depth()["running"] == 0
    assert gate.depth()["queued"] == 0


@pytest.mark.parametrize(
    ("seconds", "language", "expected"),
    [
        (1, "ru", "Сервер перегружен, повторите через 1 секунду."),
        (3, "ru", "Сервер перегружен, повторите через 3 секунды."),
        (5, "ru", "Сервер перегружен, повторите через 5 секунд."),
        (1, "en", "The server is overloaded, retry in 1 second."),
        (5, "en", "The server is overloaded, retry in 5 seconds."),
    ],
)
def test_busy_text_names_the_seconds_in_the_plural_form_of_the_language(seconds, language, expected):
    assert busy_text(seconds, language) == expected


@pytest.mark.django_db(transaction=True)
async def test_message_beyond_the_bound_is_answered_busy_stored_and_audited(users, settings):
    """One turn holds the only slot (its model still streaming); another chat's message is refused ``busy`` at once
    with its text and the retry delay, audited ``turn_busy``; ``/healthz`` shows the running turn."""
    settings.TURN_MAX_ACTIVE, settings.TURN_QUEUE_MAX, settings.TURN_BUSY_RETRY_S = 1, 0, 5
    RELEASE["turn"] = asyncio.Event()
    first = await connect(users["analyst"])
    await first.send_json_to({"type": "user_message", "text": "привет", "context": None})
    await frames_until(first, "token", wait_s=30)
    health = (await AsyncClient().get("/healthz?superset=0")).json()
    assert health["turns"]["running"] == 1

    second = await connect(users["engineer"])
    began = time.monotonic()
    await second.send_json_to({"type": "user_message", "text": "покажи дашборды", "context": None})
    refused = await second.receive_json_from(timeout=5)
    assert time.monotonic() - began < 1.0
    assert refused == {
        "event": "error",
        "code": "busy",
        "message": "Сервер перегружен, повторите через 5 секунд.",
        "text": "покажи дашборды",
        "retry_after_s": 5,
    }
    RELEASE["turn"].set()
    final = await frames_until(first, "message", wait_s=30)  # the running turn is not disturbed
    await first.disconnect()
    await second.disconnect()
    assert final[-1]["event"] == "message"
    rows: list[dict] = []
    deadline = time.monotonic() + 10  # written after the refusal, off the turn's path (turn.refusals)
    while not rows and time.monotonic() < deadline:
        rows = [
            row
            async for row in AuditEvent.objects.filter(event_type=AuditEvent.EventType.TURN_BUSY).values(
                "actor__username", "args", "outcome"
            )
        ]
        await asyncio.sleep(0.05)
    await busy_audit.close_connection()
    assert rows == [{"actor__username": "engineer", "args": {"text": "покажи дашборды"}, "outcome": "busy"}]
    assert turn_admission.depth()["running"] == 0
