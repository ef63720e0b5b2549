"""The ``db_worker`` killed (SIGKILL) in the middle of a migration on the production shape (issue 31 item 3).

A saved plan moves four scratch dashboards (each with a chart) from ss-dev to prod on the local Superset pair; the
worker is killed once the second one is under way. Its job does not stay «running» forever: once its lease runs
out (``TASK_LEASE_S``, 3 s here) the next read — the page's poll through nginx — ends it ``failed`` with where it
stopped, the dashboard it had finished kept in its result, the plan ``failed``, and the migration page shows it.
A re-run by a new worker deploys all four, and prod holds each dashboard and chart once: the first import is
overwritten, not duplicated.
"""

import asyncio
import re
import time

import httpx
import pytest
from channels.db import database_sync_to_async

from agentchat.models import Migration, TaskRecord
from agentchat.runtime import plans
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse: the executor's thread
from tests.support.processes import session_cookie
from tests.support.superset_api import chart_ids_named, dashboards_all
from tests.support.tool_runs import run_tool

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]

DASHBOARDS = 4


def record_of(task_id: int) -> TaskRecord:
    return TaskRecord.objects.get(pk=task_id)


async def started(admin, migration_id: int) -> int:
    outcome = await run_tool("execute_migration", admin, migration_id=migration_id)
    assert outcome.ok, outcome.error_message
    return outcome.result["task_id"]


async def polled(url: str, cookie: str, task_id: int, states: tuple[str, ...], wait_s: float) -> dict:
    """Poll ``/api/agent/tasks/<id>/`` through nginx (as ``frontend/js/tasks.js`` does) until its state is one of
    ``states``."""
    deadline = time.monotonic() + wait_s
    async with httpx.AsyncClient(base_url=url, headers={"Cookie": cookie}, trust_env=False, timeout=10) as http:
        while time.monotonic() < deadline:
            status = (await http.get(f"/api/agent/tasks/{task_id}/")).json()
            if status["state"] in states:
                return status
            await asyncio.sleep(0.25)
    raise AssertionError(f"task {task_id} not {states} within {wait_s} s: {status}")


async def test_a_killed_worker_ends_its_migration_failed_and_a_rerun_duplicates_nothing(
    users, scratch, shape, record_property
):
    admin = users["admin"]
    made = []
    for n in range(DASHBOARDS):
        dashboard = scratch.dashboard("ss-dev", f"Прерванная миграция {n}", slug=f"killed-{n}")
        chart = scratch.chart("ss-dev", f"График прерванной {n}", [dashboard["id"]])
        made.append((dashboard, chart))
    plan = await database_sync_to_async(plans.migration_create)(
        user=admin,
        name="Миграция, прерванная убитым воркером",
        source_env_id="ss-dev",
        target_env_id="prod",
        dashboards=[{"id": d["id"], "uuid": d["uuid"], "title": d["dashboard_title"]} for d, _ in made],
    )
    stack = await asyncio.to_thread(shape, web=1, workers=1)
    cookie = await database_sync_to_async(session_cookie)(admin)

    first = await started(admin, plan.pk)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # until the second dashboard is under way
        record = await database_sync_to_async(record_of)(first)
        if re.match(rf"2/{DASHBOARDS}:", record.message):
            break
        assert record.state in ("queued", "running"), record.error
        await asyncio.sleep(0.05)
    await asyncio.to_thread(stack.kill, "worker1")
    killed = time.monotonic()
    ended = await polled(stack.url, cookie, first, ("failed", "succeeded"), 30)
    ended_after_s = time.monotonic() - killed
    async with httpx.AsyncClient(base_url=stack.url, headers={"Cookie": cookie}, trust_env=False) as http:
        page = (await http.get(f"/migrations/{plan.pk}/")).text
    plan_status = (await Migration.objects.aget(pk=plan.pk)).status

    await asyncio.to_thread(stack.start_worker, "worker2")
    second = await started(admin, plan.pk)
    rerun = await polled(stack.url, cookie, second, ("failed", "succeeded"), 240)
    in_prod = {d["dashboard_title"]: 0 for d, _ in made}
    for row in dashboards_all("prod"):
        if row["dashboard_title"] in in_prod:
            in_prod[row["dashboard_title"]] += 1
    charts = [len(chart_ids_named(chart["slice_name"], "prod")) for _, chart in made]

    done_before = [d["title"] for d in ended["result"].get("deployed", [])]
    record_property(
        "fault_counts",
        f"worker killed (SIGKILL) during dashboard 2/{DASHBOARDS}: dashboards {DASHBOARDS} / deployed before the kill "
        f"{len(done_before)} / run ended {ended['state']} {ended_after_s:.1f} s after the kill with where it stopped / "
        f"re-run deployed {len(rerun['result']['deployed'])} / duplicated in prod "
        f"{sum(n - 1 for n in in_prod.values() if n > 1) + sum(n - 1 for n in charts if n > 1)} / lost "
        f"{sum(1 for n in in_prod.values() if n == 0)}",
    )
    assert ended["state"] == "failed"
    assert re.search(rf"2/{DASHBOARDS}: «Прерванная миграция 1", ended["message"])  # where it stopped
    assert ended["result"]["stopped"] == ended["error"] == ended["message"]
    assert done_before == [made[0][0]["dashboard_title"]]
    assert plan_status == "failed"
    assert re.search(rf'data-run="{first}" data-state="failed"', page)
    assert 'data-testid="run-stopped"' in page
    assert f"«{made[0][0]['dashboard_title']}» ✓" in page
    assert rerun["state"] == "succeeded", rerun["error"]
    assert len(rerun["result"]["deployed"]) == DASHBOARDS
    assert rerun["result"]["deployed"][0]["counts"]["dashboard"]["overwrite"] == 1  # done before: overwritten
    assert list(in_prod.values()) == [1] * DASHBOARDS
    assert charts == [1] * DASHBOARDS
