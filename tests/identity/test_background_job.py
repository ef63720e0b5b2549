"""A background job runs as the user who started it (DESIGN §15): the engineer's backup, run by a real db_worker,
reaches Superset with the engineer's own identity — Superset's Action Log names engineer for its exports."""

import asyncio
import time
from datetime import UTC, datetime

import prison
import pytest

from agentchat.runtime.executor import tool_execute
from agentchat.runtime.registry import tool_spec
from tests.support.superset_api import superset

pytestmark = pytest.mark.django_db(transaction=True)


async def _run(tool: str, args: dict, user):
    return await tool_execute(
        spec=tool_spec(tool), args=args, user=user, conversation_id=None, ui_context=None, language="ru"
    )


def _exports_since(username: str, since: datetime) -> list[dict]:
    """Superset's Action Log rows of dashboard exports by ``username`` since ``since`` (read as admin)."""
    q = prison.dumps({"filters": [{"col": "action", "opr": "ct", "value": "export"}], "order_column": "dttm",
                      "order_direction": "desc", "page_size": 100})  # fmt: skip
    with superset("ss-dev") as client:
        rows = client.get("/api/v1/log/", params={"q": q}).json()["result"]
    return [r for r in rows if r["user"]["username"] == username and datetime.fromisoformat(r["dttm"]) >= since]


async def test_backup_job_exports_as_the_engineer(engineer, backup_dir):
    started = datetime.now(UTC).replace(tzinfo=None, microsecond=0)

    outcome = await _run("run_backup", {"env_id": "ss-dev"}, engineer)
    assert outcome.ok, outcome.error_message
    end = time.monotonic() + 180
    while time.monotonic() < end:
        status = (await _run("get_task_status", {"task_id": outcome.result["task_id"]}, engineer)).result
        if status["state"] in ("succeeded", "failed"):
            break
        await asyncio.sleep(0.2)

    assert status["state"] == "succeeded", status
    assert await asyncio.to_thread(_exports_since, "engineer", started)
