"""Tests of the local Superset stack (``scripts/devstack``) against the two running instances.

The module fixture calls ``up()``: a few seconds when the stack is already installed, running and seeded (as
``make test`` leaves it), a few minutes on a fresh machine. Everything is checked through the REST API.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest

from scripts import devstack

INSTANCE_NAMES = ("ss-dev", "prod")
ENERGY_CHARTS = {"Потребление по месяцам", "Потребление по регионам", "Структура по источникам"}

pytestmark = pytest.mark.superset  # ``seeded`` brings the pair up (or starts it) and reads it


@pytest.fixture(scope="module")
def stack() -> ModuleType:
    """The stack package (``scripts.devstack``): its public operations and demo definitions."""
    return devstack


@pytest.fixture(scope="module")
def seeded(stack: ModuleType) -> dict[str, dict[str, Any]]:
    """Bring the stack up (install, start, seed; idempotent) and return the seed result by instance."""
    return stack.up()


@pytest.fixture(scope="module")
def clients(stack: ModuleType, seeded: dict[str, dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """A logged-in REST client per instance name."""
    opened = {inst.name: stack.SupersetClient(inst) for inst in stack.INSTANCES}
    yield opened
    for client in opened.values():
        client.http.close()


def _count(client: Any, resource: str) -> int:
    return client.get(f"/api/v1/{resource}/", params={"q": "(page_size:1)"})["count"]


def test_instances_are_the_expected_two(stack: ModuleType) -> None:
    assert stack.instance_urls() == {"ss-dev": "http://127.0.0.1:8088", "prod": "http://127.0.0.1:8089"}


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_health_answers(stack: ModuleType, seeded: dict[str, Any], name: str) -> None:
    response = httpx.get(f"{stack.instance_urls()[name]}/health", timeout=10, trust_env=False)
    assert response.status_code == 200
    assert response.text.strip() == "OK"


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_service_account_login_returns_tokens(stack: ModuleType, seeded: dict[str, Any], name: str) -> None:
    body = {"username": stack.SERVICE_USERNAME, "password": stack.admin_password(), "provider": "db", "refresh": True}
    response = httpx.post(
        f"{stack.instance_urls()[name]}/api/v1/security/login", json=body, timeout=30, trust_env=False
    )
    assert response.status_code == 200
    assert response.json()["access_token"]
    assert response.json()["refresh_token"]


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_energy_dashboard_has_its_three_charts(stack: ModuleType, clients: dict[str, Any], name: str) -> None:
    client = clients[name]
    found = client.find("dashboard", slug="energy-report")
    assert len(found) == 1
    dashboard = client.get(f"/api/v1/dashboard/{found[0]['id']}")["result"]
    assert dashboard["dashboard_title"] == "Отчёт по энергопотреблению"
    assert dashboard["published"] is True
    charts = client.get(f"/api/v1/dashboard/{dashboard['id']}/charts")["result"]
    assert {chart["slice_name"] for chart in charts} == ENERGY_CHARTS
    layout_ids = stack.layout_chart_ids(dashboard["position_json"])
    assert sorted(layout_ids) == sorted(chart["id"] for chart in charts)
    # A Cyrillic filter value goes through Rison and Superset's list filters.
    by_title = client.find("dashboard", dashboard_title="Отчёт по энергопотреблению")
    assert [row["id"] for row in by_title] == [dashboard["id"]]


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_regions_dashboard_exists_with_charts(clients: dict[str, Any], name: str) -> None:
    client = clients[name]
    found = client.find("dashboard", slug="regions-overview")
    assert len(found) == 1
    assert found[0]["dashboard_title"] == "Обзор регионов"
    charts = client.get(f"/api/v1/dashboard/{found[0]['id']}/charts")["result"]
    assert "Регионы и население" in {chart["slice_name"] for chart in charts}
    assert _count(client, "dashboard") >= 2


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_datasets_exist_on_the_energy_database(clients: dict[str, Any], name: str) -> None:
    client = clients[name]
    assert _count(client, "dataset") >= 2
    [database] = client.find("database", database_name="Energy")
    ids = {}
    for table in ("energy_consumption", "regions"):
        found = client.find("dataset", table_name=table)
        rows = [row for row in found if row["database"]["id"] == database["id"]]
        assert len(rows) == 1, table
        ids[table] = rows[0]["id"]
    detail = client.get(f"/api/v1/dataset/{ids['energy_consumption']}")["result"]
    assert detail["main_dttm_col"] == "date"
    assert {"total_consumption", "total_cost"} <= {metric["metric_name"] for metric in detail["metrics"]}


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_every_seeded_chart_returns_rows(clients: dict[str, Any], seeded: dict[str, Any], name: str) -> None:
    client = clients[name]
    for chart_name, chart_id in seeded[name]["charts"].items():
        result = client.get(f"/api/v1/chart/{chart_id}/data/")["result"]
        assert result[0]["rowcount"] > 0, chart_name
        assert result[0]["data"], chart_name


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_dashboard_export_is_a_zip(clients: dict[str, Any], seeded: dict[str, Any], name: str) -> None:
    client = clients[name]
    dashboard_id = seeded[name]["dashboards"]["energy-report"]
    response = client.http.get("/api/v1/dashboard/export/", params={"q": f"!({dashboard_id})"})
    assert response.status_code == 200
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert any("/dashboards/" in entry for entry in names)
    assert sum("/charts/" in entry for entry in names) == 3


_NAME_FIELD = {
    "database": "database_name",
    "dataset": "table_name",
    "chart": "slice_name",
    "dashboard": "dashboard_title",
}
SEEDED_CHARTS = {"Потребление по месяцам", "Потребление по регионам", "Структура по источникам", "Регионы и население"}


def _seeded(stack: ModuleType, client: Any) -> dict[str, list[int]]:
    """Ids of the objects bearing the seeded names (other engineers' tests create objects concurrently)."""
    names = {
        "database": {stack.DATABASE_NAME},
        "dataset": set(stack.DATASETS),
        "chart": SEEDED_CHARTS,
        "dashboard": {title for title, _rows in stack.DASHBOARDS.values()},
    }
    out = {}
    for resource, wanted in names.items():
        rows = client.get(f"/api/v1/{resource}/", params={"q": "(page_size:100)"})["result"]
        out[resource] = sorted(r["id"] for r in rows if r[_NAME_FIELD[resource]] in wanted)
    return out


def test_second_seed_creates_nothing(stack: ModuleType, clients: dict[str, Any]) -> None:
    before = {name: _seeded(stack, client) for name, client in clients.items()}
    again = stack.seed()
    after = {name: _seeded(stack, client) for name, client in clients.items()}
    assert after == before
    assert all(len(ids) >= 1 for seeded in after.values() for ids in seeded.values())
    for name in INSTANCE_NAMES:
        assert again[name]["created"] == [], name
        assert again[name]["updated"] == [], name


def test_status_reports_both_running(stack: ModuleType, seeded: dict[str, Any]) -> None:
    result = stack.status()
    for name in INSTANCE_NAMES:
        assert result[name]["running"] is True
        assert result[name]["dashboards"] >= 2
