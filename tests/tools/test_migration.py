"""execute_migration runs in a real db_worker, deploys a set ss-dev → prod with progress per dashboard, and
get_task_status reports it (DESIGN §8)."""

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async

from agentchat.runtime.background import task_start
from agentchat.runtime.executor import tool_execute
from agentchat.runtime.registry import tool_spec
from tests.support import superset_api
from tests.support.background_jobs import count_to
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse fixture

# Service mode (the stack's shared account) is still a mode an admin may choose: these migrations run in it; the
# demo admin's own migration in password mode is tests/identity/test_admin_migration.py.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.service_mode]


async def _run(tool: str, args: dict, user, language: str = "ru"):
    return await tool_execute(
        spec=tool_spec(tool), args=args, user=user, conversation_id=None, ui_context=None, language=language
    )


async def _follow(task_id: int, user, deadline_s: float = 240) -> list[dict]:
    """Poll get_task_status until the task ends; return every distinct status seen."""
    seen: list[dict] = []
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        outcome = await _run("get_task_status", {"task_id": task_id}, user)
        assert outcome.ok, outcome.error_message
        status = outcome.result
        if not seen or (status["state"], status["progress"], status["message"]) != (
            seen[-1]["state"],
            seen[-1]["progress"],
            seen[-1]["message"],
        ):
            seen.append(status)
        if status["state"] in ("succeeded", "failed"):
            return seen
        await asyncio.sleep(0.05)
    raise AssertionError(f"task {task_id} did not finish: {seen[-1:]}")


async def test_execute_migration_moves_a_set_and_reports_progress(users, scratch, task_worker):
    # given two new dashboards with charts in ss-dev
    first = scratch.dashboard("ss-dev", "Миграция А", slug="mig-a")
    second = scratch.dashboard("ss-dev", "Миграция Б", slug="mig-b")
    chart_a = scratch.chart("ss-dev", "График А", [first["id"]])
    chart_b = scratch.chart("ss-dev", "График Б", [second["id"]])

    # when the admin starts the migration
    started = time.monotonic()
    outcome = await _run(
        "execute_migration",
        {"dashboard_ids": [first["id"], second["id"]], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["admin"],
    )

    # then the task id comes back at once, before the work is done
    assert outcome.ok, outcome.error_message
    assert outcome.result["state"] == "queued"
    assert outcome.result["dashboards"] == [first["dashboard_title"], second["dashboard_title"]]
    assert time.monotonic() - started < 10

    # and get_task_status follows it to the end, with progress per dashboard
    seen = await _follow(outcome.result["task_id"], users["admin"])
    final = seen[-1]
    assert final["state"] == "succeeded", final
    assert final["progress"] == 100
    progress = [s["progress"] for s in seen]
    assert progress == sorted(progress)
    assert any(s["state"] == "running" and 0 < s["progress"] < 100 for s in seen), seen
    assert final["message"] == f"2/2: «{second['dashboard_title']}» ✓"
    deployed = final["result"]["deployed"]
    assert [d["title"] for d in deployed] == [first["dashboard_title"], second["dashboard_title"]]
    assert final["result"]["failed"] == []

    # and prod has both dashboards with their charts (seen independently)
    for dev, chart, done in ((first, chart_a, deployed[0]), (second, chart_b, deployed[1])):
        prod = superset_api.dashboard_by_slug("prod", dev["slug"])
        assert prod["id"] == done["target"]["id"]
        assert superset_api.dashboard_chart_names("prod", prod["id"]) == [chart["slice_name"]]


async def test_execute_migration_of_a_missing_dashboard_starts_nothing(users, superset_stack):
    from agentchat.models import TaskRecord

    before = await TaskRecord.objects.acount()
    outcome = await _run(
        "execute_migration",
        {"dashboard_ids": [987654], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["admin"],
        language="en",
    )
    assert not outcome.ok
    assert outcome.error_message == "Environment ss-dev has no dashboards with id 987654."
    assert await TaskRecord.objects.acount() == before


async def test_task_status_is_visible_to_its_owner_and_admins_only(users, task_worker):
    # given a finished job of the engineer
    record = await sync_to_async(task_start)(task=count_to, kind="count", user=users["engineer"], params={"n": 3})
    end = time.monotonic() + 30
    status = None
    while time.monotonic() < end:
        status = (await _run("get_task_status", {"task_id": record.pk}, users["engineer"])).result
        if status["state"] == "succeeded":
            break
        await asyncio.sleep(0.1)

    # then the owner sees state, progress, message and result
    assert status["found"] is True
    assert (status["state"], status["progress"], status["message"]) == ("succeeded", 100, "3/3")
    assert status["result"] == {"counted": 3}
    # and an admin sees it, another user does not, and an unknown id is "not found"
    assert (await _run("get_task_status", {"task_id": record.pk}, users["admin"])).result["found"] is True
    hidden = (await _run("get_task_status", {"task_id": record.pk}, users["analyst"])).result
    assert hidden == {
        "found": False,
        "task_id": record.pk,
        "message": f"Задача {record.pk} не найдена (или она не ваша).",
    }
    missing = (await _run("get_task_status", {"task_id": record.pk + 1000}, users["admin"], language="en")).result
    assert missing["found"] is False
    assert missing["message"] == f"Task {record.pk + 1000} not found (or not yours)."
