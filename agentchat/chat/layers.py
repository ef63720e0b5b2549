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

It also survives a Redis restart (issue 31 item 3). channels-redis raised the lost connection out of ``receive``,
which ended every consumer of the process with close code 1011, and a restarted Redis has no groups: the sockets
that stayed would never again hear a card decided in another tab or the end of their session. Here ``receive``
waits for Redis to come back instead of raising, each process remembers which of its channels joined which group
(``joined``) and joins them all again as soon as Redis answers (``_recover``), and a group command during the outage
is recorded (``group_add``/``group_discard``) or dropped (``group_send``: best effort — what it carries, a card's
state or an answer, is in the database and comes back with ``resume``) instead of failing a handshake, a logout
(HTTP 500) or a decision. ``send`` still raises: ``/healthz`` reports the outage (503).
"""

import asyncio
import logging
import time
from typing import Any

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer  # type: ignore[import-untyped]  # no types
from django.conf import settings
from redis.asyncio import BlockingConnectionPool
from redis.driver_info import DriverInfo
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)
DRIVER_INFO = DriverInfo()  # redis-py's name and version, looked up once per process (not per connection)
REDIS_DOWN = (RedisConnectionError, RedisTimeoutError, OSError)  # Redis away (restart, network): not a bad command
RETRY_S = 0.5  # between attempts while Redis is away, seconds


class RedisChannelLayer(BaseRedisChannelLayer):
    """``channels_redis.core.RedisChannelLayer`` whose shards use a bounded, waiting pool and which rides out a
    Redis restart (see the module).

    ``CONFIG`` as for channels-redis; each host must be given by ``address`` (a URL), as ``settings`` does.

    Attributes:
        joined: group → the channels of this process in it (what ``_recover`` joins again).
        outages: how many times Redis was found away (a recovery follows each).
    """

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.joined: dict[str, set[str]] = {}
        self.outages = 0
        self._recovering: asyncio.Task[None] | None = None

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

    async def receive(self, channel: str) -> dict[str, Any]:
        """The next message of ``channel``; while Redis is away, wait for it (never raise its absence)."""
        while True:
            try:
                return await super().receive(channel)
            except REDIS_DOWN as exc:
                self._lost("receive", exc)
                await asyncio.sleep(RETRY_S)

    async def group_add(self, group: str, channel: str) -> None:
        """Join ``channel`` to ``group``; remembered here, so it is joined again after an outage (during one,
        only remembered)."""
        self.joined.setdefault(group, set()).add(channel)
        try:
            await super().group_add(group, channel)
        except REDIS_DOWN as exc:
            self._lost("group_add", exc)

    async def group_discard(self, group: str, channel: str) -> None:
        """Remove ``channel`` from ``group`` (here at once; in Redis unless it is away)."""
        members = self.joined.get(group)
        if members is not None:
            members.discard(channel)
            if not members:
                del self.joined[group]
        try:
            await super().group_discard(group, channel)
        except REDIS_DOWN as exc:
            self._lost("group_discard", exc)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """Send ``message`` to ``group``; dropped while Redis is away (logged; see the module)."""
        try:
            await super().group_send(group, message)
        except REDIS_DOWN as exc:
            self._lost("group_send", exc)

    def _lost(self, command: str, exc: BaseException) -> None:
        """Redis did not answer ``command``: start joining this process's groups again once it does."""
        if self._recovering is None or self._recovering.done():
            self.outages += 1
            log.warning("Redis unavailable (%s: %s); groups will be joined again when it answers", command, exc)
            self._recovering = asyncio.get_running_loop().create_task(self._recover())

    async def _recover(self) -> None:
        """Until Redis answers: every ``RETRY_S``, add each channel of ``joined`` to its group again (one ``ZADD``
        and ``EXPIRE`` per group, as channels-redis' ``group_add``). Bounded by the process's life: it ends at the
        first attempt Redis answers."""
        while True:
            await asyncio.sleep(RETRY_S)
            try:
                for group, channels in list(self.joined.items()):
                    if channels:
                        key = self._group_key(group)
                        connection = self.connection(self.consistent_hash(group))
                        now = time.time()
                        await connection.zadd(key, dict.fromkeys(channels, now))
                        await connection.expire(key, self.group_expiry)
            except REDIS_DOWN:
                continue
            log.warning("Redis answers again: %d groups of this process joined again", len(self.joined))
            return
