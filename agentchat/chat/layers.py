"""The Redis channel layer with a pool that waits (issue 17): a burst of sockets never fails for want of a
connection.

channels-redis builds a plain ``redis.asyncio.ConnectionPool`` per shard and event loop; redis-py ≥ 8 caps it at
100 connections and raises ``MaxConnectionsError`` («Too many connections») on the 101st concurrent command. Hundreds
of sockets connecting or closing at once (a page reload wave, a restart, bench/load.py) each run two or three group
commands, so some failed inside ``connect``/``disconnect``: their groups were never joined or never left. This layer
builds a ``BlockingConnectionPool`` instead: at most ``CHANNEL_LAYER_MAX_CONNECTIONS`` connections, a command waits
up to ``CHANNEL_LAYER_POOL_TIMEOUT_S`` for a free one (then raises ``ConnectionError``), and the connections are
reused rather than opened per burst (each open is a TCP connect, a ``HELLO`` and a health check: CPU per socket).
Each new connection of redis-py looks its own version up in the installed packages' metadata (``CLIENT SETINFO``;
``importlib.metadata``: a walk of site-packages and an e-mail parser, about 10% of the event loop's CPU while a
burst of sockets connects, ``bench/load.py`` under pyinstrument); the pools are given it once (``DRIVER_INFO``).
"""

from typing import Any

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer  # type: ignore[import-untyped]  # no types
from django.conf import settings
from redis.asyncio import BlockingConnectionPool
from redis.driver_info import DriverInfo

DRIVER_INFO = DriverInfo()  # redis-py's name and version, looked up once per process (not per connection)


class RedisChannelLayer(BaseRedisChannelLayer):
    """``channels_redis.core.RedisChannelLayer`` whose shards use a bounded, waiting pool (see the module).

    ``CONFIG`` as for channels-redis; each host must be given by ``address`` (a URL), as ``settings`` does.
    """

    def create_pool(self, index: int) -> BlockingConnectionPool:
        """The pool of shard ``index``: ``BlockingConnectionPool.from_url(address, **other host options)``."""
        host: dict[str, Any] = dict(self.hosts[index])
        address = host.pop("address")
        return BlockingConnectionPool.from_url(
            address,
            max_connections=settings.CHANNEL_LAYER_MAX_CONNECTIONS,
            timeout=settings.CHANNEL_LAYER_POOL_TIMEOUT_S,
            driver_info=DRIVER_INFO,
            **host,
        )
