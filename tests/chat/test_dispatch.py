"""The consumer's dispatch makes no hop to the database thread of its own (issue 17): Channels' ran
``close_old_connections`` there before every frame; each unit of work here closes connections itself."""

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async

from agentchat.chat.dispatch import UnitDispatchConsumer


class Recording(UnitDispatchConsumer):
    def __init__(self):
        super().__init__()
        self.seen: list[dict] = []

    async def conversation_frame(self, event: dict) -> None:
        self.seen.append(event)


async def test_a_message_is_handled_while_the_database_thread_is_busy():
    release = threading.Event()
    busy = asyncio.ensure_future(sync_to_async(release.wait, thread_sensitive=True)(10))  # holds the thread
    consumer = Recording()
    try:
        await asyncio.wait_for(consumer.dispatch({"type": "conversation.frame", "frame": {}}), timeout=2)
    finally:
        release.set()
        await busy

    assert consumer.seen == [{"type": "conversation.frame", "frame": {}}]


async def test_a_message_without_a_handler_is_refused_as_channels_refuses_it():
    with pytest.raises(ValueError, match="No handler for message type websocket.nothing"):
        await Recording().dispatch({"type": "websocket.nothing"})
