"""Seeding: make the demo objects of ``demo.py`` exist in each running instance, through the REST API only.

Every step finds an object by its name first and creates it only when it is missing, so a second seed changes
nothing (``up`` runs it at every ``make test``). Order: data file → database → datasets → dashboards → charts
(on their dashboards) → layouts → demo roles and users (``users.py``). A new kind of demo object is one more
``Seeder`` method and one more step in ``seed_instance``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from scripts.devstack.client import SupersetClient
from scripts.devstack.config import SERVICE_USERNAME, Instance, for_each_instance, stack_dir
from scripts.devstack.demo import (
    DASHBOARDS,
    DATABASE_NAME,
    DATASETS,
    chart_dashboards,
    chart_specs,
    dataset_update,
    layout_chart_ids,
    position_json,
    query_context,
)
from scripts.devstack.energy_data import energy_file_ok, ensure_energy_db
from scripts.devstack.files import ensure_stack_dir, file_lock
from scripts.devstack.report import log
from scripts.devstack.users import seed_users


class Seeder:
    """Creates or reuses the demo objects of one instance and records what it did.

    Each method finds its object by name and creates it only when it is missing; ``created``, ``updated`` and
    ``reused`` collect "kind name #id" labels.
    """

    def __init__(self, inst: Instance, client: SupersetClient) -> None:
        """Seed ``inst`` through ``client`` (logged in as admin)."""
        self.inst = inst
        self.client = client
        self.created: list[str] = []
        self.reused: list[str] = []
        self.updated: list[str] = []

    def _note(self, action: str, what: str, obj_id: int) -> None:
        label = f"{what} #{obj_id}"
        {"created": self.created, "reused": self.reused, "updated": self.updated}[action].append(label)
        if action != "reused":
            log(f"[{self.inst.name}] {action} {label}")

    def database(self) -> int:
        """Ensure the ``Energy`` database points at a complete data file; return its id."""
        uri = f"sqlite:///{self.inst.energy_db}"
        found = self.client.find("database", database_name=DATABASE_NAME)
        if found:
            db_id = found[0]["id"]
            # GET /database/<id> omits the URI in 6.1; /connection has it (password masked, none here).
            current = self.client.get(f"/api/v1/database/{db_id}/connection")["result"].get("sqlalchemy_uri") or ""
            in_use = Path(current.removeprefix("sqlite:///")) if current.startswith("sqlite:///") else None
            if current == uri or (in_use is not None and energy_file_ok(in_use)):
                # A running instance started from another checkout keeps its own data file: re-pointing it
                # here would break it for everyone else once this checkout goes away.
                self._note("reused", f"database {DATABASE_NAME}", db_id)
            else:  # the data file is gone: point the database at this checkout's copy
                self.client.put(f"/api/v1/database/{db_id}", {"sqlalchemy_uri": uri})
                self._note("updated", f"database {DATABASE_NAME} (uri)", db_id)
            return db_id
        body = {
            "database_name": DATABASE_NAME,
            "sqlalchemy_uri": uri,
            "expose_in_sqllab": True,
            "allow_dml": False,
            "allow_ctas": False,
            "allow_cvas": False,
            "allow_run_async": False,
        }
        db_id = self.client.post("/api/v1/database/", body)["id"]
        self._note("created", f"database {DATABASE_NAME}", db_id)
        return db_id

    def dataset(self, database_id: int, table: str) -> int:
        """Ensure the dataset of ``table`` on that database exists (with its ``DATASETS`` metadata); return its id."""
        found = [
            row
            for row in self.client.find("dataset", table_name=table)
            if row.get("database", {}).get("id") == database_id
        ]
        if found:
            self._note("reused", f"dataset {table}", found[0]["id"])
            return found[0]["id"]
        body = {"database": database_id, "schema": "main", "table_name": table}
        ds_id = self.client.post("/api/v1/dataset/", body)["id"]
        detail = self.client.get(f"/api/v1/dataset/{ds_id}")
        self.client.put(f"/api/v1/dataset/{ds_id}", dataset_update(detail))
        self._note("created", f"dataset {table}", ds_id)
        return ds_id

    def dashboard(self, slug: str, title: str) -> dict[str, Any]:
        """Ensure a published dashboard with ``slug`` exists; return it as ``GET /api/v1/dashboard/<id>`` has it."""
        found = self.client.find("dashboard", slug=slug)
        if found:
            dash = self.client.get(f"/api/v1/dashboard/{found[0]['id']}")["result"]
            self._note("reused", f"dashboard «{title}»", dash["id"])
            return dash
        body = {"dashboard_title": title, "slug": slug, "published": True}
        dash_id = self.client.post("/api/v1/dashboard/", body)["id"]
        self._note("created", f"dashboard «{title}»", dash_id)
        return self.client.get(f"/api/v1/dashboard/{dash_id}")["result"]

    def chart(self, spec: dict[str, Any], dataset_id: int, dashboard_ids: list[int]) -> dict[str, Any]:
        """Ensure the chart of ``spec`` (``demo.chart_specs``) exists and is on at least ``dashboard_ids``.

        Returns:
            The chart as ``GET /api/v1/chart/<id>`` has it.
        """
        name = spec["slice_name"]
        found = self.client.find("chart", slice_name=name)
        if found:
            chart = self.client.get(f"/api/v1/chart/{found[0]['id']}")["result"]
            have = {d["id"] for d in chart.get("dashboards", [])}
            if not set(dashboard_ids) <= have:
                wanted = sorted(have | set(dashboard_ids))
                self.client.put(f"/api/v1/chart/{chart['id']}", {"dashboards": wanted})
                self._note("updated", f"chart «{name}» (dashboards)", chart["id"])
            else:
                self._note("reused", f"chart «{name}»", chart["id"])
            return chart
        params = spec["params"] | {"dashboards": dashboard_ids}
        body = {
            "slice_name": name,
            "description": spec["description"],
            "viz_type": params["viz_type"],
            "datasource_id": dataset_id,
            "datasource_type": "table",
            "params": json.dumps(params, ensure_ascii=False),
            "query_context": json.dumps(query_context(dataset_id, params, spec["query"]), ensure_ascii=False),
            "query_context_generation": True,
            "dashboards": dashboard_ids,
        }
        chart_id = self.client.post("/api/v1/chart/", body)["id"]
        self._note("created", f"chart «{name}»", chart_id)
        return self.client.get(f"/api/v1/chart/{chart_id}")["result"]

    def owned(self, kind: str, obj_id: int, name: str, team: list[int]) -> None:
        """Ensure the users ``team`` are among the owners of the ``kind`` object ``obj_id`` (Superset lets only
        owners and Admins overwrite or delete an object: the demo engineer deploys the team's dashboards)."""
        owners = {o["id"] for o in self.client.get(f"/api/v1/{kind}/{obj_id}")["result"].get("owners") or []}
        if set(team) <= owners:
            return
        self.client.put(f"/api/v1/{kind}/{obj_id}", {"owners": sorted(owners | set(team))})
        self._note("updated", f"{kind} «{name}» (owners)", obj_id)

    def layout(self, dash: dict[str, Any], title: str, rows: list[list[tuple[int, str, str, int]]]) -> None:
        """Set the dashboard's layout to ``rows`` of ``(chart id, uuid, name, width)`` unless it has those charts."""
        wanted = [chart_id for row in rows for chart_id, *_ in row]
        if layout_chart_ids(dash.get("position_json")) == wanted:
            return
        body = {"position_json": json.dumps(position_json(title, rows), ensure_ascii=False)}
        self.client.put(f"/api/v1/dashboard/{dash['id']}", body)
        self._note("updated", f"dashboard «{title}» (layout)", dash["id"])


# Who owns the demo's dashboards and charts in both instances: the stack's account that made them and the demo
# engineer, whose team's work they are (the engineer may deploy them to prod; the analyst owns nothing).
TEAM = (SERVICE_USERNAME, "engineer")


def seed_instance(inst: Instance) -> dict[str, Any]:
    """Ensure the demo data and objects exist in one running instance (REST API only; idempotent).

    Args:
        inst: the instance (must be running).

    Returns:
        ``{"database": id, "datasets": {table: id}, "charts": {name: id}, "dashboards": {slug: id},
        "users": {username: Superset user id}, "created": [...], "updated": [...], "reused": [...]}``; the lists
        hold "kind name #id" labels.

    Raises:
        StackError: login or an API call failed.
    """
    if ensure_energy_db(inst):
        log(f"[{inst.name}] created data file {inst.energy_db}")
    with SupersetClient(inst) as client:
        seeder = Seeder(inst, client)
        database_id = seeder.database()
        datasets = {table: seeder.dataset(database_id, table) for table in DATASETS}
        dashboards = {slug: seeder.dashboard(slug, title) for slug, (title, _rows) in DASHBOARDS.items()}
        charts: dict[str, dict[str, Any]] = {}
        for spec in chart_specs(datasets):
            on = [dashboards[slug]["id"] for slug in chart_dashboards(spec["slice_name"])]
            charts[spec["slice_name"]] = seeder.chart(spec, datasets[spec["table"]], on)
        for slug, (title, rows) in DASHBOARDS.items():
            placed = [[(charts[n]["id"], str(charts[n]["uuid"]), n, wide) for n, wide in row] for row in rows]
            seeder.layout(dashboards[slug], title, placed)
        users = seed_users(client, seeder._note)
        team = [users[name] for name in TEAM if name in users]
        for dash in dashboards.values():
            seeder.owned("dashboard", dash["id"], str(dash.get("dashboard_title")), team)
        for name, chart in charts.items():
            seeder.owned("chart", chart["id"], name, team)
    summary = f"created {len(seeder.created)}, updated {len(seeder.updated)}, reused {len(seeder.reused)}"
    reused = f": {', '.join(seeder.reused)}" if seeder.reused else ""
    log(f"[{inst.name}] seed: {summary}{reused}")
    return {
        "database": database_id,
        "datasets": datasets,
        "charts": {name: chart["id"] for name, chart in charts.items()},
        "dashboards": {slug: dash["id"] for slug, dash in dashboards.items()},
        "users": users,
        "created": seeder.created,
        "updated": seeder.updated,
        "reused": seeder.reused,
    }


def seed() -> dict[str, dict[str, Any]]:
    """Seed both running instances (see ``seed_instance``); instances in parallel.

    Returns:
        ``{instance name: seed_instance result}``.

    Raises:
        StackError: an instance is down or an API call failed.
    """
    ensure_stack_dir()
    with file_lock(stack_dir() / ".seed.lock"):
        return for_each_instance(seed_instance)
