"""Per-user bounds of a process (issue 31 item 5; ``turn.bounds``): a user's sockets beyond ``USER_MAX_SOCKETS``,
messages beyond ``USER_MESSAGES_PER_MINUTE`` and turns beyond ``USER_MAX_TURNS`` are refused at once, in the user's
language, with what the page needs to offer a resend, and audited ``user_limited``; other users are not counted
against them. The latency this buys others is measured by ``bench/flood.py``, not here."""

import asyncio

import pytest
from channels.db import database_sync_to_async

from agentchat.chat.consumer import AgentConsumer
from agentchat.turn.bounds import UserBounds, user_bounds
from agentchat.turn.refusals import busy_audit
from policies.models import AuditEvent
from tests.support.scripted_llm import ScriptedChatModel
from tests.support.websocket import frames_until, ws_connect
from tests.support.wording import plural

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _fresh_bounds():
    """The process's counts start empty for each test (sockets of other tests are closed)."""
    user_bounds.sockets.clear()
    user_bounds.turns.clear()
    user_bounds.sent.clear()


def test_a_sliding_minute_names_the_seconds_until_the_next_message(settings):
    settings.USER_MESSAGES_PER_MINUTE, settings.USER_MAX_TURNS = 3, 0
    bounds = UserBounds()

    taken = [bounds.message_take(1, "ru", now=t) for t in (0.0, 10.0, 20.0)]
    refused = bounds.message_take(1, "ru", now=30.0)
    other = bounds.message_take(2, "ru", now=30.0)  # another user is not counted against the first
    later = bounds.message_take(1, "en", now=60.5)  # the message of 0.0 left the minute

    assert taken == [None, None, None]
    assert other is None
    assert (refused.code, refused.bound, refused.limit, refused.retry_after_s) == (
        "rate_limited",
        "messages_per_minute",
        3,
        30,
    )
    assert refused.message == (
        plural(
            "ru",
            "Too many messages: at most %(limit)d a minute.",
            "Too many messages: at most %(limit)d a minute.",
            3,
            limit=3,
        )
        + " "
        + plural("ru", "Send it again in %(seconds)d second.", "Send it again in %(seconds)d seconds.", 30, seconds=30)
    )
    assert later is None


def test_turns_in_flight_and_sockets_are_counted_per_user(settings):
    settings.USER_MESSAGES_PER_MINUTE, settings.USER_MAX_TURNS, settings.USER_MAX_SOCKETS = 0, 2, 2
    bounds = UserBounds()

    assert bounds.message_take(1, "ru") is None
    assert bounds.message_take(1, "ru") is None
    busy = bounds.message_take(1, "en")
    bounds.turn_done(1)
    again = bounds.message_take(1, "ru")
    sockets = [bounds.socket_open(1, "ru") for _ in range(3)]
    bounds.socket_closed(1)
    reopened = bounds.socket_open(1, "ru")

    assert (busy.code, busy.bound) == ("busy", "turns")
    assert busy.message == "You already have 2 answers in progress: wait for them, then send this again."
    assert again is None
    assert sockets[:2] == [None, None]
    assert sockets[2].bound == "sockets"
    assert reopened is None


@pytest.mark.parametrize("bound", [0])
def test_zero_turns_a_bound_off(settings, bound):
    settings.USER_MESSAGES_PER_MINUTE = settings.USER_MAX_TURNS = settings.USER_MAX_SOCKETS = bound
    bounds = UserBounds()

    assert all(bounds.message_take(1, "ru", now=0.0) is None for _ in range(100))
    assert all(bounds.socket_open(1, "ru") is None for _ in range(100))


async def audited(user) -> list[dict]:
    await busy_audit.flush()
    rows = AuditEvent.objects.filter(event_type=AuditEvent.EventType.USER_LIMITED, actor=user).order_by("id")
    return await database_sync_to_async(lambda: list(rows.values("outcome", "args", "extra_data")))()


async def test_a_message_beyond_the_minutes_bound_is_refused_with_its_resend_and_audited(users, settings, monkeypatch):
    settings.USER_MESSAGES_PER_MINUTE = 2
    monkeypatch.setattr(AgentConsumer, "turn_model", lambda self: ScriptedChatModel(messages=iter(["а", "б", "в"])))
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    for n in range(3):
        frame = {"type": "user_message", "conversation_id": None, "text": f"вопрос {n}", "context": None}
        await communicator.send_json_to({**frame, "client_id": f"m{n}"})
    states = [await frames_until(communicator, "turn_state") for _ in range(2)]
    refused = next(f for batch in states for f in batch if f["event"] == "error")
    await communicator.disconnect()
    rows = await audited(users["engineer"])

    assert refused["code"] == "rate_limited"
    assert refused["text"] == "вопрос 2"
    assert refused["client_id"] == "m2"
    assert 1 <= refused["retry_after_s"] <= 60
    assert refused["message"].startswith(
        plural(
            "ru",
            "Too many messages: at most %(limit)d a minute.",
            "Too many messages: at most %(limit)d a minute.",
            2,
            limit=2,
        )
    )
    assert [(r["outcome"], r["args"], r["extra_data"]["bound"]) for r in rows] == [
        ("rate_limited", {"text": "вопрос 2"}, "messages_per_minute")
    ]


async def test_a_socket_beyond_the_users_bound_is_refused_and_closed_4429(users, settings):
    settings.USER_MAX_SOCKETS = 2
    kept = [await ws_connect(users["engineer"]) for _ in range(2)]
    other, other_ok, _ = await ws_connect(users["analyst"])  # another user has sockets of their own
    extra, connected, _ = await ws_connect(users["engineer"])
    refused = await extra.receive_json_from(timeout=5)
    closed = await extra.receive_output(timeout=5)
    for communicator, _, _ in kept:
        await communicator.disconnect()
    await other.disconnect()
    await extra.disconnect()
    rows = await audited(users["engineer"])

    assert all(ok for _, ok, _ in kept)
    assert other_ok
    assert connected  # accepted, told why, then closed
    assert refused["code"] == "rate_limited"
    tabs = "Too many open chat tabs: at most %(limit)d. Close the ones you do not need."
    assert refused["message"] == plural("ru", tabs, tabs, 2, limit=2)
    assert closed == {"type": "websocket.close", "code": 4429}
    assert [(r["outcome"], r["extra_data"]["bound"], r["extra_data"]["limit"]) for r in rows] == [
        ("rate_limited", "sockets", 2)
    ]
    assert user_bounds.sockets == {}  # every counted socket was given back


async def test_a_message_while_the_users_turns_run_is_refused_busy(users, settings, monkeypatch):
    settings.USER_MAX_TURNS = 1

    class Slow(ScriptedChatModel):
        def _stream(self, messages, stop=None, run_manager=None, **kwargs):
            import time

            time.sleep(1.0)
            yield from super()._stream(messages, stop, run_manager, **kwargs)

    monkeypatch.setattr(AgentConsumer, "turn_model", lambda self: Slow(messages=iter(["долго", "ещё"])))
    first, ok1, _ = await ws_connect(users["engineer"])
    second, ok2, _ = await ws_connect(users["engineer"])  # the same user in another tab
    await first.send_json_to({"type": "user_message", "conversation_id": None, "text": "раз", "context": None})
    await asyncio.sleep(0.3)
    await second.send_json_to({"type": "user_message", "conversation_id": None, "text": "два", "context": None})
    refused = await second.receive_json_from(timeout=10)
    answered = await frames_until(first, "message", wait_s=30)
    await first.disconnect()
    await second.disconnect()

    assert ok1
    assert ok2
    assert refused["code"] == "busy"
    assert refused["text"] == "два"
    assert refused["message"] == plural(
        "ru",
        "You already have %(count)d answer in progress: wait for it, then send this again.",
        "You already have %(count)d answers in progress: wait for them, then send this again.",
        1,
        count=1,
    )
    assert answered[-1]["text"] == "долго"
    assert user_bounds.turns == {}
