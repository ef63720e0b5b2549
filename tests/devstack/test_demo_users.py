"""The demo people of the local Superset pair act under their own Superset roles (DESIGN §15, issue 13 item 7).

Each test signs in through Superset's own login API with the demo password, as agentchat's password sign-in does,
and asks Superset what that user may do; nothing here uses the admin account except ``up()``.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from scripts import devstack
from scripts.devstack.users import demo_password

INSTANCE_NAMES = ("ss-dev", "prod")

pytestmark = pytest.mark.superset


@pytest.fixture(scope="module")
def seeded() -> dict[str, dict[str, Any]]:
    """Bring the stack up (idempotent) and return the seed result by instance."""
    return devstack.up()


def _signed_in(name: str, username: str) -> httpx.Client:
    body = {"username": username, "password": demo_password(), "provider": "db", "refresh": True}
    url = devstack.instance_urls()[name]
    login = httpx.post(f"{url}/api/v1/security/login", json=body, timeout=60, trust_env=False)
    assert login.status_code == 200, login.text
    headers = {"Authorization": f"Bearer {login.json()['access_token']}"}
    return httpx.Client(base_url=url, timeout=60, trust_env=False, headers=headers)


def _execute(http: httpx.Client, database_id: int, sql: str) -> httpx.Response:
    body = {"database_id": database_id, "sql": sql, "schema": "main", "runAsync": False}
    return http.post("/api/v1/sqllab/execute/", json=body)


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_analyst_reads_energy_consumption_only(seeded: dict[str, Any], name: str) -> None:
    """Gamma + sql_lab + datasource access to energy_consumption: that table answers, regions is refused."""
    database_id = seeded[name]["database"]
    with _signed_in(name, "analyst") as http:
        assert http.get("/api/v1/me/").json()["result"]["username"] == "analyst"
        allowed = _execute(http, database_id, "SELECT COUNT(*) FROM energy_consumption")
        refused = _execute(http, database_id, "SELECT * FROM regions")
        datasets = http.get("/api/v1/dataset/").json()["result"]
    assert allowed.status_code == 200
    assert allowed.json()["data"][0]["COUNT(*)"] > 0
    assert refused.status_code >= 400
    assert refused.json()["errors"][0]["error_type"] == "TABLE_SECURITY_ACCESS_ERROR"
    assert [row["table_name"] for row in datasets] == ["energy_consumption"]


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_engineer_reads_every_table(seeded: dict[str, Any], name: str) -> None:
    """Alpha + sql_lab: every dataset of the Energy database is readable."""
    with _signed_in(name, "engineer") as http:
        answer = _execute(http, seeded[name]["database"], "SELECT COUNT(*) FROM regions")
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("name", INSTANCE_NAMES)
def test_admin_is_a_superset_admin_with_the_demo_password(seeded: dict[str, Any], name: str) -> None:
    """``admin`` signs in with the demo password as a person of role Admin, and the stack's own account is another
    user (the service account, ``SUPERSET_ADMIN_PASSWORD``): Superset tells them apart."""
    with _signed_in(name, "admin") as http:
        me = http.get("/api/v1/me/").json()["result"]
        roles = http.get("/api/v1/me/roles/").json()["result"]["roles"]
    assert me["username"] == "admin"
    assert "Admin" in roles
    assert seeded[name]["users"]["admin"] != seeded[name]["users"][devstack.SERVICE_USERNAME]


@pytest.mark.parametrize("username", ["analyst", "engineer", "admin"])
def test_demo_users_may_create_api_keys(seeded: dict[str, Any], username: str) -> None:
    """FAB_API_KEY_ENABLED is on and the demo roles hold ApiKey: a key made by the user authenticates as them."""
    with _signed_in("ss-dev", username) as http:
        made = http.post("/api/v1/security/api_keys/", json={"name": f"test-{username}"})
        assert made.status_code == 201, made.text
        key = made.json()["result"]
        try:
            me = httpx.get(
                f"{devstack.instance_urls()['ss-dev']}/api/v1/me/",
                headers={"Authorization": f"Bearer {key['key']}"},
                timeout=30,
                trust_env=False,
            )
        finally:
            http.delete(f"/api/v1/security/api_keys/{key['uuid']}")
    assert me.status_code == 200
    assert me.json()["result"]["username"] == username


def test_second_seed_keeps_the_users(seeded: dict[str, Any]) -> None:
    """A second seed finds the roles and users by name and changes nothing about them."""
    again = devstack.seed()
    for name in INSTANCE_NAMES:
        assert again[name]["users"] == seeded[name]["users"]
        assert not [label for label in again[name]["created"] + again[name]["updated"] if "user" in label]
