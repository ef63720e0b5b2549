"""What became of a page's messages (issue 31 item 3; ``turn.recovery``, ``turn.lease``): each message id a page
asks about is answered (its stored answer), awaiting a card, running, interrupted (its turn's lease ran out), failed
or not received — in the message's language, never another user's; over the socket a message with an id ends with
``turn_state`` ``done``, and ``resume`` with ids reports them. A turn longer than a third of its lease renews it."""

from datetime import timedelta

import pytest
from channels.db import database_sync_to_async
from django.utils import timezone

from agentchat.chat.consumer import AgentConsumer
from agentchat.models import Conversation, Message, PendingConfirmation
from agentchat.turn.lease import lease_deadline
from agentchat.turn.recovery import turn_states
from tests.support.scripted_llm import scripted
from tests.support.websocket import frames_until, ws_connect
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)


def said(conversation, client_id: str, words: str, *, lease=None, answer: str | None = None) -> Message:
    """A user message with ``client_id`` and ``lease``; then its answer row (empty when ``answer`` is None)."""
    message = Message.objects.create(
        conversation=conversation, role=Message.Role.USER, content=words, client_id=client_id, lease_until=lease
    )
    Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, content=answer or "")
    return message


def test_each_message_gets_its_state_in_its_language(users):
    engineer, analyst = users["engineer"], users["analyst"]
    talk = Conversation.objects.create(user=engineer, title="t")
    future, past = timezone.now() + timedelta(seconds=30), timezone.now() - timedelta(seconds=1)
    said(talk, "answered", "привет", lease=past, answer="Здравствуйте!")
    said(talk, "interrupted-ru", "что с дашбордом?", lease=past)
    said(Conversation.objects.create(user=engineer), "interrupted-en", "what about the dashboard?", lease=past)
    said(Conversation.objects.create(user=engineer), "running", "ещё идёт", lease=future)
    said(Conversation.objects.create(user=engineer), "failed", "упало", lease=None)
    waiting = Conversation.objects.create(user=engineer)
    said(waiting, "awaiting", "создай ветку x", lease=past)
    PendingConfirmation.objects.create(
        conversation=waiting, user=engineer, tool="create_branch", call_id="c1", args={}, args_sha256="0" * 64
    )
    said(Conversation.objects.create(user=analyst), "not-mine", "чужое", lease=past)

    asked = ["answered", "interrupted-ru", "interrupted-en", "running", "failed", "awaiting", "not-mine", "never"]
    states = {s.client_id: s for s in turn_states(user=engineer, client_ids=asked, language="ru")}

    assert {k: s.state for k, s in states.items()} == {
        "answered": "done",
        "interrupted-ru": "interrupted",
        "interrupted-en": "interrupted",
        "running": "running",
        "failed": "failed",
        "awaiting": "awaiting",
        "not-mine": "not_received",  # another user's message is nobody's here
        "never": "not_received",
    }
    assert states["answered"].answer.text == "Здравствуйте!"
    assert states["answered"].answer.html.startswith("<")
    stopped = "No answer came: the server process answering this message stopped. Send it again."
    assert states["interrupted-ru"].message == text("ru", stopped)
    assert states["interrupted-en"].message == stopped
    assert states["interrupted-ru"].text == "что с дашбордом?"  # for the page's resend
    assert states["failed"].text == "упало"
    assert states["never"].message == text(
        "ru", "The message did not reach the server: the connection broke. Send it again."
    )
    assert states["not-mine"].conversation_id is None
    assert states["running"].message is None


async def test_a_message_with_an_id_ends_with_its_state_and_resume_reports_it(users, monkeypatch):
    monkeypatch.setattr(AgentConsumer, "turn_model", lambda self: scripted("Готово.", "Ещё."))
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await communicator.send_json_to(
        {"type": "user_message", "conversation_id": None, "text": "привет", "context": None, "client_id": "m-1"}
    )
    frames = await frames_until(communicator, "turn_state", wait_s=30)
    await communicator.send_json_to({"type": "resume", "client_ids": ["m-1", "m-lost"]})
    resumed = [await communicator.receive_json_from(timeout=10) for _ in range(2)]
    await communicator.disconnect()

    started = next(f for f in frames if f["event"] == "conversation")
    answer = next(f for f in frames if f["event"] == "message")
    assert started["client_id"] == "m-1"
    assert frames[-1] == {
        "event": "turn_state",
        "client_id": "m-1",
        "state": "done",
        "conversation_id": started["conversation_id"],
    }
    assert [(f["client_id"], f["state"]) for f in resumed] == [("m-1", "done"), ("m-lost", "not_received")]
    assert resumed[0]["answer"]["message_id"] == answer["message_id"]
    assert resumed[0]["answer"]["text"] == "Готово."
    stored = await Message.objects.aget(client_id="m-1")
    assert stored.lease_until is not None


async def test_a_resume_frame_must_ask_something(users):
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await communicator.send_json_to({"type": "resume"})
    reply = await communicator.receive_json_from(timeout=10)
    await communicator.disconnect()

    assert reply["code"] == "bad_frame"


async def test_a_long_turn_renews_its_lease(users, monkeypatch, settings):
    """A turn that takes longer than a third of ``TURN_LEASE_S`` moves its lease on (``turn.lease``)."""
    settings.TURN_LEASE_S = 0.6

    class Slow(type(scripted("x"))):
        def _stream(self, messages, stop=None, run_manager=None, **kwargs):
            import time

            time.sleep(1.0)  # in the model's thread: the event loop renews meanwhile
            yield from super()._stream(messages, stop, run_manager, **kwargs)

    monkeypatch.setattr(AgentConsumer, "turn_model", lambda self: Slow(messages=iter(["Долго."])))
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await communicator.send_json_to(
        {"type": "user_message", "conversation_id": None, "text": "подумай", "context": None, "client_id": "slow"}
    )
    await frames_until(communicator, "turn_state", wait_s=30)
    await communicator.disconnect()

    stored = await database_sync_to_async(Message.objects.get)(client_id="slow")
    assert stored.lease_until > stored.created_at + timedelta(seconds=0.6 + 0.3)  # renewed at least once
    assert stored.lease_until <= lease_deadline()
