"""The chat WebSocket as tests drive it: Channels' ``WebsocketCommunicator`` on the full ASGI app (DESIGN §6)."""

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

ORIGIN = b"http://localhost"
HOST = b"localhost"


async def ws_connect(user=None, *, origin: bytes = ORIGIN, host: bytes = HOST):
    """Open a WebsocketCommunicator on the full ASGI app, logged in as ``user`` (anonymous when None).

    Returns ``(communicator, connected, close_code)``; the caller disconnects it.
    """
    # Imported when first used: agentchat.asgi builds the whole ASGI stack (get_asgi_application) on import.
    from agentchat.asgi import application

    headers = [(b"origin", origin), (b"host", host)]
    if user is not None:
        client = Client()
        await sync_to_async(client.force_login)(user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    communicator = WebsocketCommunicator(application, "/ws/agent/", headers=headers)
    connected, code = await communicator.connect(timeout=10)
    return communicator, connected, code


async def frames_until(communicator, event: str, *, wait_s: float = 60) -> list[dict]:
    """Receive frames until one with ``event`` arrives (inclusive); fail on timeout."""
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=wait_s)
        frames.append(frame)
        if frame.get("event") == event:
            return frames
