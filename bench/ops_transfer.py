"""Times the operations path against the local Superset pair: plan (impact look-up), deploy, backup export.

Run: ``.venv/bin/python bench/ops_transfer.py [runs]`` with ss-dev and prod up. Makes one tagged dashboard with
a chart in ss-dev, plans and deploys it to prod ``runs`` times (default 5, at most 20), exports every ss-dev
dashboard once, prints the medians in milliseconds and deletes what it made.
"""

import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")

import django  # noqa: E402

django.setup()

from agentchat.superset.bundle import zip_merge  # noqa: E402
from agentchat.superset.call import CallState  # noqa: E402
from agentchat.superset.client import SupersetClient  # noqa: E402
from agentchat.superset.migration_plan import migration_plan  # noqa: E402
from agentchat.superset.transfer import dashboards_all, dashboards_export  # noqa: E402
from agentchat.tools.deploy import deploy_apply  # noqa: E402
from agentchat.tools.migration_impact import plan_impact  # noqa: E402
from tests.support.superset_api import SERVICE_PASSWORD, SERVICE_USERNAME, URLS  # noqa: E402
from tests.support.superset_scratch import SupersetScratch  # noqa: E402


def _client(env_id: str, call: CallState) -> SupersetClient:
    return SupersetClient(
        env_id=env_id,
        base_url=URLS[env_id],
        username=SERVICE_USERNAME,
        password=SERVICE_PASSWORD,
        call=call,
        timeout_s=60,
    )


async def _timed(label: str, runs: int, make) -> list[float]:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        await make()
        times.append((time.perf_counter() - started) * 1000)
    print(f"{label:<34} median {statistics.median(times):8.0f} ms   min {min(times):6.0f}   max {max(times):6.0f}")
    return times


async def main(runs: int) -> None:
    scratch = SupersetScratch()
    dev = scratch.dashboard("ss-dev", "Bench", slug="bench")
    scratch.chart("ss-dev", "Bench chart", [dev["id"]])
    call = CallState(retry_transient=False)
    source, target = _client("ss-dev", call), _client("prod", call)
    try:
        await _timed(
            "plan + impact (1 dashboard)",
            runs,
            lambda: _plan(source, target, [dev["id"]]),
        )
        await _timed(
            "deploy ss-dev → prod (1 dashboard)",
            runs,
            lambda: deploy_apply(source=source, target=target, dashboard_ids=[dev["id"]]),
        )
        rows = await dashboards_all(source)
        ids = [r["id"] for r in rows]
        await _timed(f"export + merge ({len(ids)} dashboards)", 1, lambda: _backup(source, ids))
        print(f"upstream requests in total: {call.requests}")
    finally:
        await source.aclose()
        await target.aclose()
        scratch.cleanup()


async def _plan(source, target, ids):
    _, plan = await migration_plan(source=source, target=target, dashboard_ids=ids)
    return plan_impact(plan)


async def _backup(source, ids):
    data, _ = zip_merge([await dashboards_export(source, ids)], root="bench")
    return len(data)


if __name__ == "__main__":
    asyncio.run(main(max(1, min(20, int(sys.argv[1]) if len(sys.argv) > 1 else 5))))
