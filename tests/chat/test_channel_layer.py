"""The channel layer under a burst (issue 17): more group operations at once than the Redis pool has connections.

redis-py ≥ 8 caps an asyncio pool at 100 connections and raises ``MaxConnectionsError`` beyond — seen as
«Too many connections» in ``WSCONNECT``/``WSDISCONNECT`` of hundreds of sockets at once (bench/load.py), each a
socket whose groups were not joined or left. The project's layer (``agentchat.chat.layers``) waits for a free
connection instead, and opens at most ``CHANNEL_LAYER_MAX_CONNECTIONS``.
"""

import asyncio
import uuid

from channels.layers import get_channel_layer
from django.conf import settings


async def test_a_burst_of_group_operations_beyond_the_pool_all_succeed():
    """600 joins and 600 leaves at once all succeed, on at most the configured number of connections."""
    layer = get_channel_layer()
    group = f"burst-{uuid.uuid4().hex[:8]}"
    channels = [f"{group}.c{n}" for n in range(600)]

    await asyncio.gather(*(layer.group_add(group, channel) for channel in channels))
    members = await layer.connection(layer.consistent_hash(group)).zcard(layer._group_key(group))
    await asyncio.gather(*(layer.group_discard(group, channel) for channel in channels))

    assert members == len(channels)
    pool = layer.connection(layer.consistent_hash(group)).connection_pool
    assert len(pool._available_connections) + len(pool._in_use_connections) <= settings.CHANNEL_LAYER_MAX_CONNECTIONS
