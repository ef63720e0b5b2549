"""The two UIContext entry points as tests drive them (DESIGN §6, §7).

``via_api`` posts the payload text to ``POST /api/agent/context/``; ``via_ws`` sends it as the ``context`` of a
``user_message`` frame to the real consumer on the full middleware stack, with a scripted LLM that records the
system prompt it is sent (STYLE: a ``GenericFakeChatModel`` subclass), so tests can read the prompt of a turn.
"""

import itertools
from dataclasses import dataclass, field
from typing import Any

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.security.websocket import AllowedHostsOriginValidator
from channels.testing import WebsocketCommunicator
from django.test import AsyncClient, Client
from django.urls import path
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from agentchat.chat.consumer import AgentConsumer
from agentchat.models import Conversation
from policies.models import AuditEvent
from tests.support.websocket import ORIGIN

API_URL = "/api/agent/context/"
PROMPTS: list[str] = []  # system prompts seen by RecordingModel, oldest first


class RecordingModel(GenericFakeChatModel):
    """Answers «ok» to every call and records the system prompt it was sent in ``PROMPTS``."""

    def bind_tools(self, tools, **kwargs):
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        PROMPTS.append(str(messages[0].content))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


class ScriptedConsumer(AgentConsumer):
    """The real consumer; only the LLM of its turns is the recording model."""

    def turn_model(self):
        return RecordingModel(messages=itertools.repeat(AIMessage(content="ok")))


scripted_application = AllowedHostsOriginValidator(
    AuthMiddlewareStack(URLRouter([path("ws/agent/", ScriptedConsumer.as_asgi())]))
)


def frame_text(context_text: str, *, text: str = "что здесь?", conversation_id: int | None = None) -> str:
    """A ``user_message`` frame whose ``context`` member is ``context_text`` verbatim."""
    conv = "null" if conversation_id is None else str(conversation_id)
    return f'{{"type":"user_message","conversation_id":{conv},"text":"{text}","context":{context_text}}}'


@dataclass
class Outcome:
    """What one entry point did with one payload."""

    accepted: bool
    errors: dict[str, list[str]] = field(default_factory=dict)
    context: dict[str, Any] | None = None  # API: the 200 body; WebSocket: the stored conversation context
    audit: AuditEvent | None = None  # the context_rejected row written for this payload
    status: int | None = None  # API status
    frames: list[dict] = field(default_factory=list)
    prompt: str | None = None  # WebSocket: system prompt of the turn


def _audit_count() -> int:
    return AuditEvent.objects.filter(event_type=AuditEvent.EventType.CONTEXT_REJECTED).count()


def _latest_audit(before: int) -> AuditEvent | None:
    qs = AuditEvent.objects.filter(event_type=AuditEvent.EventType.CONTEXT_REJECTED).order_by("-id")
    count = qs.count()
    assert count - before in (0, 1), f"{count - before} context_rejected rows for one payload"
    return qs.first() if count > before else None


def api_post(client: Client, text: str) -> Outcome:
    """Sync: post ``text`` as the body (``application/json``) with a logged-in Django test client."""
    before = _audit_count()
    response = client.post(API_URL, data=text.encode("utf-8"), content_type="application/json")
    audit = _latest_audit(before)
    body = response.json() if response.headers.get("Content-Type", "").startswith("application/json") else {}
    if response.status_code == 200:
        return Outcome(True, context=body, audit=audit, status=200)
    return Outcome(False, errors=body.get("errors", {}), audit=audit, status=response.status_code)


async def via_api(user, text: str) -> Outcome:
    """Post ``text`` to the API as ``user`` (through Django's async test client and the ASGI handler)."""
    client = AsyncClient()
    await client.aforce_login(user)
    before = await database_sync_to_async(_audit_count)()
    response = await client.post(API_URL, data=text.encode("utf-8"), content_type="application/json")
    audit = await database_sync_to_async(_latest_audit)(before)
    body = response.json() if response.headers.get("Content-Type", "").startswith("application/json") else {}
    if response.status_code == 200:
        return Outcome(True, context=body, audit=audit, status=200)
    return Outcome(False, errors=body.get("errors", {}), audit=audit, status=response.status_code)


async def scripted_connect(user) -> WebsocketCommunicator:
    """Open a logged-in socket to ``ScriptedConsumer`` (session cookie + Origin, as a browser does)."""
    client = Client()
    await database_sync_to_async(client.force_login)(user)
    headers = [(b"origin", ORIGIN), (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    communicator = WebsocketCommunicator(scripted_application, "/ws/agent/", headers=headers)
    connected, _ = await communicator.connect(timeout=10)
    assert connected
    return communicator


async def ws_send(communicator: WebsocketCommunicator, text: str, *, wait_s: float = 30) -> Outcome:
    """Send ``text`` as a frame's context and collect the answer: an error frame, or a whole turn."""
    before = await database_sync_to_async(_audit_count)()
    prompts = len(PROMPTS)
    await communicator.send_to(text_data=frame_text(text))
    first = await communicator.receive_json_from(timeout=wait_s)
    if first.get("event") == "error":
        audit = await database_sync_to_async(_latest_audit)(before)
        return Outcome(False, errors=first.get("errors", {}), audit=audit, frames=[first])
    frames = [first]
    while frames[-1].get("event") != "message":
        frames.append(await communicator.receive_json_from(timeout=wait_s))
        assert frames[-1].get("event") != "error", frames[-1]
    conversation = await database_sync_to_async(Conversation.objects.get)(pk=first["conversation_id"])
    audit = await database_sync_to_async(_latest_audit)(before)
    prompt = PROMPTS[-1] if len(PROMPTS) > prompts else None
    return Outcome(True, context=conversation.ui_context, audit=audit, frames=frames, prompt=prompt)


async def via_ws(user, text: str) -> Outcome:
    """Send ``text`` as the context of one ``user_message`` over a fresh socket; the socket must stay quiet after."""
    communicator = await scripted_connect(user)
    try:
        outcome = await ws_send(communicator, text)
        assert await communicator.receive_nothing(timeout=0.2), "unexpected frames after the answer"
    finally:
        await communicator.disconnect()
    return outcome


async def submit(entry: str, user, text: str) -> Outcome:
    """Send ``text`` through ``entry`` (``api`` or ``websocket``)."""
    return await (via_api if entry == "api" else via_ws)(user, text)
