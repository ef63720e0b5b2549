"""Fixtures for tool-execution tests: the fault proxy in front of the real ss-dev Superset and its Environment."""

import pytest
from channels.db import database_sync_to_async

from tests import superset_api
from tests.faultproxy import FaultProxy

FAULTY_ENV = "faulty"


@pytest.fixture
def fault_proxy(superset_stack):
    """A fault proxy forwarding to the local ss-dev Superset, fresh per test (own port, so own JWT cache)."""
    with FaultProxy(superset_api.URLS["ss-dev"]) as proxy:
        yield proxy


@pytest.fixture
def faulty_env(policy_defaults, fault_proxy):
    """An active dev ``Environment`` ``faulty`` whose Superset URL is the fault proxy (loopback: admin login)."""
    from policies.models import Environment

    Environment.objects.update_or_create(
        env_id=FAULTY_ENV,
        defaults={
            "name": "ss-dev через прокси сбоев",
            "tier": "dev",
            "superset_url": fault_proxy.url,
            "credentials_env": "SUPERSET_FAULTY",
            "is_active": True,
        },
    )
    return FAULTY_ENV


def set_tool_timeout(name: str, seconds: float | None) -> None:
    """Set the admin's ``Tool.timeout_s`` of ``name`` (the whole-call deadline, DESIGN §10)."""
    from policies.models import Tool

    assert Tool.objects.filter(name=name).update(timeout_s=seconds) == 1


aset_tool_timeout = database_sync_to_async(set_tool_timeout)


def chart_ids_named(name: str, env_id: str = "ss-dev") -> list[int]:
    """Return the ids of the charts called exactly ``name`` in Superset (independent httpx view)."""
    from agentchat.superset.client import rison

    with superset_api.superset(env_id) as client:
        q = rison({"filters": [{"col": "slice_name", "opr": "eq", "value": name}], "columns": ["id"]})
        response = client.get("/api/v1/chart/", params={"q": q})
        response.raise_for_status()
        return [row["id"] for row in response.json()["result"]]


def charts_delete(ids: list[int], env_id: str = "ss-dev") -> None:
    """Delete the charts ``ids`` (test clean-up)."""
    with superset_api.superset(env_id) as client:
        for chart_id in ids:
            client.delete(f"/api/v1/chart/{chart_id}")
