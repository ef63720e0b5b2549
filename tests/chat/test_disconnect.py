"""A turn outlives its socket (consumers module docstring): the tab closes mid-answer, the answer is still
stored in full, and a reloaded page that resumes the conversation receives the final message."""

import asyncio

import pytest
from asgiref.sync import sync_to_async
from channels.auth import AuthMiddlewareStack
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import path
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

from agentchat.chat.consumer import AgentConsumer
from agentchat.models import Message
from tests.support.contexts import DASHBOARD_1
from tests.support.scripted_llm import ScriptedChatModel
from tests.support.websocket import HOST, ORIGIN, frames_until

pytestmark = pytest.mark.django_db(transaction=True)
WORDS = [f"слово{n}" for n in range(30)]
ANSWER = " ".join(WORDS)


class SlowModel(ScriptedChatModel):
    """Streams ``ANSWER`` word by word, 50 ms apart (a model still talking when the tab closes)."""

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
        for n, word in enumerate(WORDS):
            await asyncio.sleep(0.05)
            yield ChatGenerationChunk(message=AIMessageChunk(content=word if n == 0 else " " + word))


class SlowConsumer(AgentConsumer):
    def turn_model(self):
        return SlowModel(messages=iter([]))


application = AuthMiddlewareStack(URLRouter([path("ws/agent/", SlowConsumer.as_asgi())]))


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


async def test_answer_survives_a_closed_tab_and_reaches_the_reloaded_page(users):
    first = await connect(users["analyst"])
    await first.send_json_to({"type": "user_message", "text": "привет", "context": DASHBOARD_1})
    frames = await frames_until(first, "token", wait_s=30)
    conversation_id = next(f["conversation_id"] for f in frames if f["event"] == "conversation")
    await first.disconnect()  # the tab reloads while the answer streams

    second = await connect(users["analyst"])
    await second.send_json_to({"type": "resume", "conversation_id": conversation_id})
    final = (await frames_until(second, "message", wait_s=30))[-1]
    await second.disconnect()

    assert final["text"] == ANSWER
    stored = await sync_to_async(list)(
        Message.objects.filter(conversation_id=conversation_id, role="assistant").values_list("pk", "content")
    )
    assert stored == [(final["message_id"], ANSWER)]  # stored once, in full


async def test_a_turn_with_nobody_watching_is_still_stored(users):
    first = await connect(users["analyst"])
    await first.send_json_to({"type": "user_message", "text": "привет", "context": DASHBOARD_1})
    frames = await frames_until(first, "token", wait_s=30)
    conversation_id = next(f["conversation_id"] for f in frames if f["event"] == "conversation")
    await first.disconnect()

    for _ in range(100):  # bounded: the answer takes about 1.5 s
        contents = await sync_to_async(list)(
            Message.objects.filter(conversation_id=conversation_id, role="assistant").values_list("content", flat=True)
        )
        if contents == [ANSWER]:
            break
        await asyncio.sleep(0.1)
    assert contents == [ANSWER]
