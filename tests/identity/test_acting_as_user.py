"""Tool calls act as the requesting user in Superset (DESIGN §15, issue 13): Superset's permissions apply, its query
history names the person, a missing identity runs nothing, Superset's refusal is passed on.

Everything runs against the local Superset pair, whose demo users have real Superset roles (``scripts/devstack``):
``analyst`` may read ``energy_consumption`` only, ``engineer`` is Alpha.
"""

import uuid

import pytest
from asgiref.sync import sync_to_async

from agentchat.identity.services import identity_env_ids
from agentchat.models import SupersetIdentity
from agentchat.toolset.selection import toolset_for
from policies.models import AuthMode, Environment
from tests.identity.conftest import queries_by_marker
from tests.support.superset_api import SERVICE_USERNAME, api, datasets_named
from tests.support.superset_scratch import objects_delete
from tests.support.tool_runs import run_tool
from tests.support.wording import table_refused, text

pytestmark = pytest.mark.django_db(transaction=True)

SQL_TOOL = "superset_execute_sql"


async def test_analyst_reads_their_table_is_refused_another_and_superset_names_them(analyst):
    """As analyst: COUNT(*) on energy_consumption answers; SELECT * FROM regions is refused with Superset's reason;
    Superset's query history has both queries under the analyst's Superset user, not admin."""
    marker = uuid.uuid4().hex[:12]
    allowed_sql = f"SELECT COUNT(*) AS n FROM energy_consumption WHERE region <> '{marker}'"
    refused_sql = f"SELECT * FROM regions WHERE region <> '{marker}'"

    allowed = await run_tool(SQL_TOOL, analyst, env_id="ss-dev", database_id=1, sql=allowed_sql)
    refused = await run_tool(SQL_TOOL, analyst, env_id="ss-dev", database_id=1, sql=refused_sql)

    assert allowed.ok, allowed.error_message
    assert allowed.result["rows"][0]["n"] > 0
    assert allowed.acting == {"ss-dev": {"kind": "password", "superset_username": "analyst"}}
    assert refused.ok is False
    assert refused.error_code == "superset_denied"
    # Our sentence names the table and who refused; Superset's own words («You need access to the following
    # tables: …») come along as the detail (issue 30 item 3).
    assert refused.error_message == table_refused("ru", "main.regions", "ss-dev")
    assert refused.error_detail.startswith("You need access to the following tables: `main.regions`")
    assert refused.requests == 2  # the database look-up and the query: never retried, never as another account
    identity = await SupersetIdentity.objects.aget(user=analyst, environment__env_id="ss-dev")
    history = await sync_to_async(queries_by_marker)("ss-dev", marker)
    assert {row["user"]["id"] for row in history} == {identity.superset_user_id}
    assert identity.superset_username == "analyst"
    assert any("energy_consumption" in row["sql"] for row in history)


async def test_engineer_write_is_made_in_superset_by_engineer(engineer, scratch_database):
    """As engineer a dataset created by the agent is Superset's object of engineer, and the call says whom it
    acted as."""
    args = {"env_id": "ss-dev", "database_name": scratch_database["name"], "table_name": scratch_database["table"]}

    outcome = await run_tool("superset_create_dataset", engineer, **args)

    assert outcome.ok, outcome.error_message
    assert outcome.acting == {"ss-dev": {"kind": "password", "superset_username": "engineer"}}
    made = [
        d for d in datasets_named("ss-dev", scratch_database["table"]) if d["database"]["id"] == scratch_database["id"]
    ]
    try:
        detail = api("ss-dev", "GET", f"/api/v1/dataset/{made[0]['id']}")["result"]
    finally:
        objects_delete("ss-dev", "dataset", [d["id"] for d in made])
    assert detail["created_by"]["first_name"] == "Demo"
    assert detail["created_by"]["last_name"] == "Engineer"
    assert [owner["last_name"] for owner in detail["owners"]] == ["Engineer"]


async def test_no_identity_runs_nothing_and_says_what_to_do(password_mode, superset_stack):
    """A user who never signed in through Superset has no identity: the tool sends no request, and the message
    names the environment and what to do; env-specific tools are not offered there."""
    user = password_mode["engineer"]

    outcome = await run_tool(SQL_TOOL, user, env_id="prod", database_id=1, sql="SELECT 1")
    offered = await sync_to_async(toolset_for)(user=user, context={"objectType": "dataset", "envId": "prod"})

    assert outcome.error_code == "no_identity"
    assert outcome.error_message == text(
        "ru", "No access to %(env)s: sign in again or add a Superset API key in settings.", env="prod"
    )
    assert outcome.requests == 0
    assert all(not spec.env_specific for spec in offered)
    assert await sync_to_async(identity_env_ids)(user=user) == set()


async def test_refused_password_leaves_no_identity(password_mode, superset_stack):
    """Superset refuses a wrong password everywhere: no identity, and Django's own check decides the sign-in."""
    from tests.identity.conftest import sign_in

    signed = await sync_to_async(sign_in)("analyst", "wrong-password")

    assert signed is None
    assert await SupersetIdentity.objects.filter(user=password_mode["analyst"]).acount() == 0


async def test_service_mode_acts_as_the_shared_account_and_says_so(password_mode, superset_stack):
    """Where an admin sets service mode the call acts as the shared account (the stack's on loopback) and the outcome
    records it, without any identity of the user."""
    await Environment.objects.filter(env_id="ss-dev").aupdate(auth_mode=AuthMode.SERVICE)
    user = password_mode["analyst"]

    outcome = await run_tool(SQL_TOOL, user, env_id="ss-dev", database_id=1, sql="SELECT COUNT(*) AS n FROM regions")

    assert outcome.ok, outcome.error_message
    assert outcome.acting == {"ss-dev": {"kind": "service", "superset_username": SERVICE_USERNAME}}
    assert await sync_to_async(identity_env_ids)(user=user) == {"ss-dev"}
