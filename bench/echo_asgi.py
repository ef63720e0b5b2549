"""The baseline of ``bench/load.py``: a bare Channels echo consumer under daphne, with the project's settings (so
the same channel layer subscription per consumer as ``AgentConsumer``), no auth, no database.

Serve: ``daphne -b 127.0.0.1 -p PORT bench.echo_asgi:application``; ``ws://…/ws/echo/`` answers every JSON frame
with the same frame; any HTTP path answers 200 (readiness).
"""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
django.setup()

from channels.generic.websocket import AsyncJsonWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402


class EchoConsumer(AsyncJsonWebsocketConsumer):
    """Sends every received JSON frame straight back."""

    async def receive_json(self, content, **kwargs):
        await self.send_json(content)


async def ok(scope, receive, send):
    """Any HTTP request: 200 ``ok``."""
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": b"ok"})


application = ProtocolTypeRouter({"http": ok, "websocket": URLRouter([path("ws/echo/", EchoConsumer.as_asgi())])})
