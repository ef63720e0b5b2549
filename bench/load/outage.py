"""The outage mode (``--outage``): the agent's PostgreSQL backends terminated N times during a run, as a restart or
a failover does; after each, fresh handshakes are opened and their HTTP status kept (500: the session lookup ran
on a dead connection)."""

import asyncio
import time

from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.support.db_outage import backends_terminate

HANDSHAKES = 10


def outage_during(*, database_url: str, keep: set[int], times: int, duration: float, url: str, origin: str, cookies):
    """Return the ``during`` coroutine function of ``run_clients``: terminate the backends of ``database_url``
    (sparing ``keep``) ``times`` times, evenly over ``duration`` s; after each, ``HANDSHAKES`` new sockets."""

    async def run(start: float) -> dict:
        terminated, statuses = [], []
        for i in range(times):
            await asyncio.sleep(max(0.0, start + duration * (i + 1) / (times + 1) - time.monotonic()))
            terminated.append(await asyncio.to_thread(backends_terminate, database_url, keep=keep))
            for cookie in cookies[:HANDSHAKES]:
                statuses.append(await _handshake(url, origin, cookie))
        return {"terminated": terminated, "handshakes": statuses}

    return run


async def _handshake(url: str, origin: str, cookie: str) -> int:
    """Open and close one socket; return 101, or the HTTP status of a refused upgrade."""
    try:
        async with asyncio.timeout(10):
            ws = await connect(url, origin=origin, additional_headers={"Cookie": cookie}, ping_interval=None)
    except InvalidStatus as exc:
        return exc.response.status_code
    await ws.close()
    return 101
