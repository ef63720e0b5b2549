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

from agentchat.chat.layers import DRIVER_INFO


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


async def test_the_pools_connections_share_one_driver_info_naming_the_library():
    """redis-py's version is looked up once per process (``DRIVER_INFO``), not by every new connection; each still
    has the library's name and version for ``CLIENT SETINFO`` (sent to a Redis >= 7.2)."""
    import redis  # noqa: PLC0415 - the version to compare with, in this test only

    layer = get_channel_layer()
    group = f"driver-{uuid.uuid4().hex[:8]}"
    await asyncio.gather(*(layer.group_add(group, f"{group}.c{n}") for n in range(20)))
    client = layer.connection(layer.consistent_hash(group))
    await asyncio.gather(*(layer.group_discard(group, f"{group}.c{n}") for n in range(20)))

    connections = [*client.connection_pool._available_connections, *client.connection_pool._in_use_connections]
    assert connections
    assert all(c.driver_info is DRIVER_INFO for c in connections)
    assert (DRIVER_INFO.formatted_name, DRIVER_INFO.lib_version) == ("redis-py", redis.__version__)
