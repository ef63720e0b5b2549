"""``gather_requests``: the first failure of a tool's concurrent requests cancels the rest before it is raised."""

import asyncio

import pytest

from agentchat.errors import UpstreamError
from agentchat.superset.client import gather_requests


async def test_first_failure_cancels_the_others_before_it_is_raised():
    ended: list[str] = []

    async def fails():
        await asyncio.sleep(0.01)
        raise UpstreamError("ss-dev: HTTP 404 Not found", status=404)

    async def hangs():
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise
        ended.append("finished")

    with pytest.raises(UpstreamError, match="HTTP 404"):  # the original error, not an ExceptionGroup
        await gather_requests(fails(), hangs())
    assert ended == ["cancelled"]  # already cancelled when the error arrives, not left running


async def test_results_come_in_argument_order():
    async def value(n: int, delay: float) -> int:
        await asyncio.sleep(delay)
        return n

    assert await gather_requests(value(1, 0.03), value(2, 0.0), value(3, 0.01)) == [1, 2, 3]
