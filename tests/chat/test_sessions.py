"""An expired or ended Django session is detected at the next chat message (DESIGN §10): ``session_expired``,
and nothing runs — no conversation, no tool offered, no LLM call. (A password change also closes the socket
with 4401 through the user's group; ``test_session_end`` times that.)"""

import json
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.hashers import make_password
from django.contrib.sessions.models import Session
from django.utils import timezone

from agentchat.models import Conversation
from policies.models import AuditEvent
from tests.support.websocket import frames_until, ws_connect
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)


def _sessions_of(user) -> list[Session]:
    return [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(user.pk)]


def _expire(user) -> None:
    for session in _sessions_of(user):
        Session.objects.filter(pk=session.pk).update(expire_date=timezone.now() - timedelta(seconds=1))


def _log_out(user) -> None:
    Session.objects.filter(pk__in=[s.pk for s in _sessions_of(user)]).delete()


def _change_password(user) -> None:
    user.set_password("a-new-password")
    user.save()


def _nothing_ran(user) -> dict:
    return {
        "conversations": Conversation.objects.filter(user=user).count(),
        "offered": AuditEvent.objects.filter(event_type=AuditEvent.EventType.TOOL_OFFERED).count(),
        "expired": list(
            AuditEvent.objects.filter(event_type=AuditEvent.EventType.SESSION_EXPIRED).values_list(
                "actor_id", "outcome"
            )
        ),
    }


async def _until_quiet_or_closed(communicator) -> tuple[list[dict], int | None]:
    """The frames sent until the socket is closed or quiet for 1 s, and the close code (None: still open)."""
    frames: list[dict] = []
    while not await communicator.receive_nothing(timeout=1, interval=0.02):
        output = await communicator.receive_output()
        if output["type"] == "websocket.close":
            return frames, output.get("code")
        frames.append(json.loads(output["text"]))
    return frames, None


@pytest.mark.parametrize("end_session", [_expire, _log_out, _change_password], ids=["expired", "logout", "password"])
async def test_ended_session_gets_session_expired_and_nothing_runs(users, end_session):
    """Expired, logged out or password changed elsewhere: one ``session_expired`` frame, audited, nothing else."""
    user = users["engineer"]
    communicator, connected, _ = await ws_connect(user)
    assert connected
    await database_sync_to_async(end_session)(user)

    await communicator.send_json_to({"type": "user_message", "text": "что ты умеешь?", "context": None})
    frames, close_code = await _until_quiet_or_closed(communicator)
    await communicator.disconnect()

    expired = text("ru", "session expired, reload the page")
    assert frames == [{"event": "error", "code": "session_expired", "message": expired}]
    # a password change also reaches the user's group (close 4401); the socket's expiry timer may see a past
    # expiry first (close 4401); a deleted row is found by the frame only
    expected = {_change_password: {4401}, _expire: {None, 4401}, _log_out: {None}}[end_session]
    assert close_code in expected
    state = await database_sync_to_async(_nothing_ran)(user)
    assert state == {"conversations": 0, "offered": 0, "expired": [(user.pk, "session_expired")]}


async def test_live_session_runs_the_turn(users):
    """Control: the same message on a live session starts a conversation and answers."""
    user = users["engineer"]
    communicator, _, _ = await ws_connect(user)

    await communicator.send_json_to({"type": "user_message", "text": "what can you do?", "context": None})
    frames = await frames_until(communicator, "message")
    await communicator.disconnect()

    assert frames[0]["event"] == "conversation"
    state = await database_sync_to_async(_nothing_ran)(user)
    assert state["conversations"] == 1
    assert state["expired"] == []


async def _second_message_after(user, end_session) -> tuple[dict, int, int]:
    """One answered message, then ``end_session(user)`` (sync), then a second message in the same conversation.

    Returns ``(the first frame answering the second message, messages stored before it, messages stored after)``.
    """
    communicator, _, _ = await ws_connect(user)
    await communicator.send_json_to({"type": "user_message", "text": "что ты умеешь?", "context": None})
    first = await frames_until(communicator, "message")
    count = database_sync_to_async(lambda: Conversation.objects.get(user=user).messages.count())
    before = await count()
    await database_sync_to_async(end_session)(user)

    await communicator.send_json_to(
        {"type": "user_message", "conversation_id": first[0]["conversation_id"], "text": "ещё раз", "context": None}
    )
    frame = await communicator.receive_json_from(timeout=10)
    await communicator.disconnect()
    return frame, before, await count()


async def test_expiry_is_seen_mid_conversation(users):
    """A session that ends between two messages: the second one gets ``session_expired``, the first was answered."""
    frame, before, after = await _second_message_after(users["analyst"], _expire)

    assert frame["code"] == "session_expired"
    assert before >= 2
    assert after == before  # nothing of the second message was stored or run


def _password_updated(user) -> None:
    """A password change that sends no signal (a queryset update: no ``post_save``, no ``session.check``)."""
    type(user).objects.filter(pk=user.pk).update(password=make_password("another-password"))


def _deactivated(user) -> None:
    type(user).objects.filter(pk=user.pk).update(is_active=False)


@pytest.mark.parametrize(
    "end_session", [_expire, _log_out, _password_updated, _deactivated], ids=["expired", "logout", "password", "off"]
)
async def test_a_session_ended_after_a_checked_message_is_seen_without_a_signal(users, end_session):
    """The check remembered from the first message (``SessionCheck``) never outlives a change of the session or
    of the user's row: the second message gets ``session_expired`` and nothing of it is stored."""
    frame, before, after = await _second_message_after(users["analyst"], end_session)

    assert frame["code"] == "session_expired"
    assert after == before
