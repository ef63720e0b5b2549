"""The demo ``admin`` runs a migration in password mode (issue 13, build item 7): signed in with the demo password,
it has its own Superset identity in both instances, and the migration job a real db_worker runs imports into prod
as Superset's ``admin`` person — not as the stack's service account (DESIGN §15)."""

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async

from agentchat.models import SupersetIdentity
from tests.support import superset_api
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse fixture
from tests.support.tool_runs import run_tool

pytestmark = pytest.mark.django_db(transaction=True)


async def _finished(task_id: int, user, deadline_s: float = 240) -> dict:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        status = (await run_tool("get_task_status", user, task_id=task_id)).result
        if status["state"] in ("succeeded", "failed"):
            return status
        await asyncio.sleep(0.1)
    raise AssertionError(f"task {task_id} did not finish")


async def test_demo_admin_runs_a_migration_as_superset_admin_person(admin, scratch, task_worker):
    identities = {
        row.environment.env_id: row
        async for row in SupersetIdentity.objects.filter(user=admin).select_related("environment")
    }
    assert {identities[env].superset_username for env in ("ss-dev", "prod")} == {"admin"}
    assert {identities[env].kind for env in ("ss-dev", "prod")} == {"password"}
    dashboard = scratch.dashboard("ss-dev", "Миграция админа", slug=f"mig-admin-{scratch.tag}")
    scratch.chart("ss-dev", "График админа", [dashboard["id"]])

    outcome = await run_tool(
        "execute_migration", admin, dashboard_ids=[dashboard["id"]], source_env_id="ss-dev", target_env_id="prod"
    )
    assert outcome.ok, outcome.error_message
    assert outcome.acting["prod"] == {"kind": "password", "superset_username": "admin"}
    final = await _finished(outcome.result["task_id"], admin)

    assert final["state"] == "succeeded", final
    assert final["result"]["failed"] == []
    prod = await sync_to_async(superset_api.dashboard_by_slug)("prod", dashboard["slug"])
    # Superset records the import as its admin person (the identity's user id), not as the service account.
    assert prod["changed_by"]["id"] == identities["prod"].superset_user_id
    assert [owner["id"] for owner in prod["owners"]] == [identities["prod"].superset_user_id]
