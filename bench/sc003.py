"""SC-003: failure rate of read calls under 10 % injected transient 5xx, with and without the one retry.

Run: ``.venv/bin/python bench/sc003.py [--calls 300] [--rate 0.10] [--concurrency 10] [--seed 3]`` (needs the
local Superset: ``make superset``). A fault proxy (``tests/support/faultproxy.py``, a real HTTP server on loopback) sits
in front of ss-dev and answers 503 to a random ``rate`` of the read requests; everything else reaches the real
Superset. Each call is one read through the real ``SupersetClient`` (the retry policy of DESIGN §10): a call
fails when its error reaches the caller. The same workload runs twice: with the policy (read retried once after
1 s) and with the retry budget set to 0. Goal: at least 50 % fewer failed calls with the retry.
"""

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentchat.errors import ToolError  # noqa: E402
from agentchat.superset.call import CallState  # noqa: E402
from agentchat.superset.client import SupersetClient  # noqa: E402
from tests.support.faultproxy import Fault, FaultProxy  # noqa: E402
from tests.support.superset_api import SERVICE_PASSWORD, SERVICE_USERNAME, URLS  # noqa: E402

READS = [
    ("/api/v1/dashboard/", {"page_size": 25}),
    ("/api/v1/chart/", {"page_size": 25}),
    ("/api/v1/dataset/", {"page_size": 25}),
    ("/api/v1/dashboard/1", None),
    ("/api/v1/chart/1", None),
    ("/api/v1/dataset/1", None),
]


async def one_call(proxy_url: str, path: str, q, *, retry: bool) -> tuple[str, float, int]:
    """Run one read call; return (``ok`` or the error code, seconds, upstream requests)."""
    call = CallState(retry_transient=True, retry_budget=1 if retry else 0)
    client = SupersetClient(
        env_id="ss-dev",
        base_url=proxy_url,
        username=SERVICE_USERNAME,
        password=SERVICE_PASSWORD,
        call=call,
        timeout_s=30,
    )
    started = time.monotonic()
    try:
        async with asyncio.timeout(30):
            await client.get_json(path, q=q)
        ok = "ok"
    except ToolError as exc:
        ok = exc.code
    except TimeoutError:
        ok = "timeout"
    finally:
        await client.aclose()
    return ok, time.monotonic() - started, call.requests


async def run(proxy: FaultProxy, calls: int, concurrency: int, seed: int, *, retry: bool) -> dict:
    picks = random.Random(seed)
    workload = [READS[picks.randrange(len(READS))] for _ in range(calls)]
    gate = asyncio.Semaphore(concurrency)

    async def guarded(path, q):
        async with gate:
            return await one_call(proxy.url, path, q, retry=retry)

    started = time.monotonic()
    results = await asyncio.gather(*(guarded(p, q) for p, q in workload))
    elapsed = time.monotonic() - started
    injected = sum(1 for h in proxy.hits() if h.fault == "status")
    failed = sum(1 for ok, _, _ in results if ok != "ok")
    codes = sorted({ok for ok, _, _ in results if ok != "ok"})
    return {
        "errors": ", ".join(f"{c} {sum(1 for ok, _, _ in results if ok == c)}" for c in codes) or "none",
        "failed": failed,
        "rate": failed / calls,
        "requests": sum(r for _, _, r in results),
        "injected": injected,
        "elapsed": elapsed,
        "p50": statistics.median(s for _, s, _ in results),
        "p95": statistics.quantiles([s for _, s, _ in results], n=20)[-1],
    }


async def main_async(args) -> None:
    results = {}
    for retry in (False, True):
        # A fresh proxy per mode with the same seed: both modes meet the same random fault sequence.
        with FaultProxy(URLS["ss-dev"], seed=args.seed) as proxy:
            warm = await one_call(proxy.url, "/api/v1/dashboard/", None, retry=False)  # log in once, fault-free
            assert warm[0] == "ok", "Superset not reachable through the proxy"
            proxy.inject("GET", r"^/api/v1/(dashboard|chart|dataset)/", Fault.STATUS, status=503, probability=args.rate)
            results[retry] = await run(proxy, args.calls, args.concurrency, args.seed, retry=retry)
    without, with_retry = results[False], results[True]
    fewer = 1 - with_retry["failed"] / without["failed"] if without["failed"] else 0.0
    print(
        f"SC-003  {args.calls} read calls per mode, {args.rate:.0%} of upstream reads answered 503 "
        f"(seeded {args.seed}), concurrency {args.concurrency}, real ss-dev behind the fault proxy"
    )
    for name, r in (("without retry", without), ("with retry", with_retry)):
        print(
            f"  {name:13}: failed {r['failed']:>3}/{args.calls} = {r['rate']:6.2%}  (errors: {r['errors']})\n"
            f"  {'':13}  upstream requests {r['requests']}, 503 injected {r['injected']}, "
            f"latency p50 {r['p50'] * 1000:.0f} ms, p95 {r['p95'] * 1000:.0f} ms, wall {r['elapsed']:.1f} s"
        )
    print(f"  failures with the retry: {fewer:.1%} fewer (goal >= 50 %)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rate", type=float, default=0.10)
    parser.add_argument("--concurrency", type=int, default=10)
    parser.add_argument("--seed", type=int, default=3)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
