"""The consumer base of ``/ws/agent/``: Channels' JSON WebSocket consumer without a database hop per message."""

from typing import Any

from channels.consumer import get_handler_name
from channels.generic.websocket import AsyncJsonWebsocketConsumer


class UnitDispatchConsumer(AsyncJsonWebsocketConsumer):
    """``AsyncJsonWebsocketConsumer`` whose ``dispatch`` does not hop to the database thread first.

    Channels' ``AsyncConsumer.dispatch`` runs ``close_old_connections`` in the database thread before every frame
    and channel-layer event; here each unit of database work closes aged or broken connections itself
    (``turn.units``, ``database_sync_to_async``), so that hop was one more thread round trip per message for
    nothing (issue 17).
    """

    async def dispatch(self, message: dict[str, Any]) -> None:
        """Call the handler of ``message["type"]`` (``websocket.receive`` → ``websocket_receive``).

        Raises:
            ValueError: no handler for the type (as Channels raises).
        """
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)
