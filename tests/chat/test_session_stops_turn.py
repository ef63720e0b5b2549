"""A turn running when its session ends stops: nothing further runs for it (issue 13 item 5).

The model is still streaming its first reply when the user logs out (``POST /accounts/logout/`` with the socket's
own session); the socket is closed with 4401, then the reply asks for a Superset read. That call never runs — no
request reaches the counting proxy in front of the environment, no ``tool_call`` is started — its ToolMessage and
audit row say ``session_expired``, and the model is not asked again (in-process ASGI stack, Redis layer).
"""

import asyncio
import contextlib
import json
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk
from pydantic import Field

from agentchat.chat.consumer import AgentConsumer
from agentchat.models import Message
from policies.models import AuditEvent, Environment
from tests.support.contexts import DASHBOARD_1
from tests.support.loopback_proxy import CountingProxy
from tests.support.scripted_llm import ScriptedChatModel
from tests.support.websocket import HOST, ORIGIN

pytestmark = pytest.mark.django_db(transaction=True)
TOOL = "search_dashboards"


class HeldModel(ScriptedChatModel):
    """Streams one word, says it is holding, waits until the test says the session ended (at most 10 s), then asks
    for ``TOOL``."""

    holding: asyncio.Event = Field(default_factory=asyncio.Event)
    released: asyncio.Event = Field(default_factory=asyncio.Event)

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(list(messages))
        yield ChatGenerationChunk(message=AIMessageChunk(content="Смотрю"))
        self.holding.set()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.released.wait(), 10)
        chunk = {"name": TOOL, "args": json.dumps({"env_id": "ss-dev"}), "id": "held_0", "index": 0}
        yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=[chunk]))


@pytest.fixture
def proxy(users):
    """ss-dev behind a counting proxy (nothing may reach it)."""
    with CountingProxy("http://127.0.0.1:8088") as counting:
        Environment.objects.filter(env_id="ss-dev").update(superset_url=counting.url)
        yield counting


async def _until_closed(communicator: WebsocketCommunicator, wait_s: float = 10) -> int | None:
    end = time.monotonic() + wait_s
    while time.monotonic() < end:
        output = await communicator.receive_output(timeout=wait_s)
        if output["type"] == "websocket.close":
            return output.get("code")
    return None


async def test_logout_mid_turn_stops_it_before_its_tool_call(users, proxy, monkeypatch):
    model = HeldModel(messages=iter([]))
    monkeypatch.setattr(AgentConsumer, "turn_model", lambda self: model)
    from agentchat.asgi import application  # the whole ASGI stack, built on first import

    client = Client()
    await sync_to_async(client.force_login)(users["engineer"])
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    tab = WebsocketCommunicator(
        application, "/ws/agent/", headers=[(b"origin", ORIGIN), (b"host", HOST), (b"cookie", cookie)]
    )
    connected, _ = await tab.connect(timeout=10)
    assert connected
    await tab.send_json_to({"type": "user_message", "text": "найди дашборды", "context": DASHBOARD_1})
    await asyncio.wait_for(model.holding.wait(), 30)  # the turn is mid-reply

    await sync_to_async(client.post)("/accounts/logout/")
    closed = await _until_closed(tab)
    model.released.set()
    end = time.monotonic() + 15
    stopped = []
    while not stopped and time.monotonic() < end:
        await asyncio.sleep(0.1)
        stopped = [
            row async for row in AuditEvent.objects.filter(event_type="session_expired", tool="").values("extra_data")
        ]
    await tab.disconnect()

    assert closed == 4401
    assert stopped == [{"extra_data": {"source": "turn", "stopped": "step"}}]
    assert proxy.count == 0  # the call sent nothing to Superset
    assert len(model.seen) == 1  # and the model was not asked again
    rows = [row async for row in AuditEvent.objects.filter(tool=TOOL).values("event_type", "outcome")]
    assert rows == [{"event_type": "session_expired", "outcome": "session_expired"}]  # no tool_call started
    [tool_message] = [m async for m in Message.objects.filter(role="tool")]
    assert json.loads(tool_message.content)["error"] == "session_expired"
