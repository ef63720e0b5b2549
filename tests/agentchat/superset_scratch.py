"""Short-lived Superset objects for tests: unique names, deleted afterwards (the seeded objects are never touched)."""

import io
import json
import time
import uuid
import zipfile
from contextlib import contextmanager

from asgiref.sync import async_to_sync

from agentchat.runtime.background import task_status
from agentchat.runtime.context import ToolContext
from agentchat.runtime.executor import tool_execute
from agentchat.runtime.registry import tool_spec
from agentchat.superset.call import CallState
from tests.superset_api import superset

ENERGY_DATASET = 1  # seeded energy_consumption
REGIONS_DATASET = 2  # seeded regions


def unique() -> str:
    """A digits-only suffix (letters would change the language of names under review)."""
    return str(uuid.uuid4().int % 10**9)


class Scratch:
    """Creates objects in one Superset environment and deletes them, charts first, on ``cleanup``."""

    def __init__(self, client):
        self.client = client
        self.charts: list[int] = []
        self.dashboards: list[int] = []
        self.datasets: list[int] = []

    def dashboard(self, title: str, *, json_metadata: dict | None = None) -> int:
        body = {"dashboard_title": title}
        if json_metadata is not None:
            body["json_metadata"] = json.dumps(json_metadata)
        response = self.client.post("/api/v1/dashboard/", json=body)
        response.raise_for_status()
        self.dashboards.append(response.json()["id"])
        return self.dashboards[-1]

    def chart(
        self,
        name: str,
        *,
        dashboard_id: int,
        dataset_id: int = ENERGY_DATASET,
        viz_type: str = "table",
        params: dict | None = None,
        description: str | None = None,
    ) -> int:
        form = {"viz_type": viz_type, "datasource": f"{dataset_id}__table", **(params or {})}
        body = {
            "slice_name": name,
            "viz_type": viz_type,
            "datasource_id": dataset_id,
            "datasource_type": "table",
            "params": json.dumps(form),
            "dashboards": [dashboard_id],
        }
        if description is not None:
            body["description"] = description
        response = self.client.post("/api/v1/chart/", json=body)
        response.raise_for_status()
        self.charts.append(response.json()["id"])
        return self.charts[-1]

    def virtual_dataset(self, name: str, sql: str, *, owners: list[int] | None = None) -> int:
        response = self.client.post("/api/v1/dataset/", json={"database": 1, "table_name": name, "sql": sql})
        response.raise_for_status()
        dataset_id = response.json()["id"]
        self.datasets.append(dataset_id)
        if owners is not None:
            self.client.put(f"/api/v1/dataset/{dataset_id}", json={"owners": owners}).raise_for_status()
        return dataset_id

    def cleanup(self) -> None:
        for chart_id in reversed(self.charts):
            self.client.delete(f"/api/v1/chart/{chart_id}")
        for dashboard_id in reversed(self.dashboards):
            self.client.delete(f"/api/v1/dashboard/{dashboard_id}")
        for dataset_id in reversed(self.datasets):
            self.client.delete(f"/api/v1/dataset/{dataset_id}")


@contextmanager
def scratch(env_id: str = "ss-dev"):
    """Yield a ``Scratch`` for ``env_id``; everything it made is deleted afterwards."""
    with superset(env_id) as client:
        made = Scratch(client)
        try:
            yield made
        finally:
            made.cleanup()


def raw_export(env_id: str, dashboard_id: int) -> dict[str, bytes]:
    """Superset's export of one dashboard, unpacked independently of the app (top folder stripped)."""
    with superset(env_id) as client:
        response = client.get("/api/v1/dashboard/export/", params={"q": f"!({dashboard_id})"})
        response.raise_for_status()
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist() if not name.endswith("/")}


def call_tool(name: str, args: dict, user, language: str = "ru"):
    """Run a tool through the executor (DESIGN §10) as ``user`` and return its ``ToolOutcome``."""
    return async_to_sync(tool_execute)(
        spec=tool_spec(name), args=args, user=user, conversation_id=None, ui_context=None, language=language
    )


def tool_impact(name: str, args: dict, user, language: str = "ru") -> dict:
    """Run a tool's impact look-up as the confirmation card would."""
    spec = tool_spec(name)

    async def run():
        ctx = ToolContext(
            user=user,
            conversation_id=None,
            ui_context=None,
            language=language,
            call=CallState(retry_transient=True),
            timeout_s=30,
        )
        try:
            return await spec.impact(ctx, spec.args_schema.model_validate(args))
        finally:
            await ctx.aclose()

    return async_to_sync(run)()


def wait_task(record_id: int, deadline_s: float = 60) -> dict:
    """Poll a background job until it has finished; fail after ``deadline_s`` seconds."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        status = task_status(record_id=record_id)
        if status["state"] in ("succeeded", "failed"):
            return status
        time.sleep(0.2)
    raise AssertionError(f"job {record_id} not finished: {task_status(record_id=record_id)}")
