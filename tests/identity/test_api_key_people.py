"""The Must-show of issue 13 with ``api_key`` identities only (DESIGN §15): keys the demo people create through
Superset's own API (``POST /api/v1/security/api_keys/``), pasted as on ``/settings/``; nobody signs in through
Superset. As engineer a deploy to prod approved on its card is made in Superset by engineer and audited under the
engineer's key identity; so is a backup (its job's exports are in Superset's Action Log under engineer); the
analyst's forbidden query is refused with Superset's own reason, audited ``permission_denied`` from Superset."""

import asyncio
import time
import uuid
from datetime import UTC, datetime

import prison
import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async

from agentchat.identity.services import identity_add_api_key
from agentchat.models import PendingConfirmation, SupersetIdentity, TaskRecord
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent
from tests.support import superset_api
from tests.support.api_keys import api_key_create, api_key_revoke
from tests.support.contexts import ui_context
from tests.support.frames import Frames
from tests.support.scripted_llm import scripted, tool_calls_message
from tests.support.wording import table_refused

pytestmark = pytest.mark.django_db(transaction=True)

ENVIRONMENTS = ("ss-dev", "prod")
SQL_TOOL = "superset_execute_sql"


@pytest.fixture(autouse=True)
def _git_dir(settings, tmp_path):
    settings.GIT_REPOS_DIR = str(tmp_path / "git")


@pytest.fixture
def keyed(password_mode, superset_stack):
    """``engineer`` and ``analyst`` with one Superset API key each in ss-dev and prod (made by them through
    Superset's API, checked and stored by ``identity_add_api_key``), no password identity; keys revoked after."""
    made: list[tuple[str, str, str]] = []
    for username in ("engineer", "analyst"):
        for env_id in ENVIRONMENTS:
            key, key_uuid = api_key_create(env_id, username)
            made.append((env_id, username, key_uuid))
            identity_add_api_key(user=password_mode[username], env_id=env_id, key=key)
    yield password_mode
    for env_id, username, key_uuid in made:
        api_key_revoke(env_id, username, key_uuid)


async def _approved(user, call: tuple[str, dict], context: dict, typed_env: str | None = None) -> tuple[dict, list]:
    """Ask for ``call`` in a turn, approve its card; return the card frame and the call's audit rows."""
    model = scripted(tool_calls_message([call]), "Готово.")
    frames = Frames()
    conversation_id = await AgentTurn(user=user, emit=frames, model=model).run(
        conversation_id=None, text="сделай это", context=context
    )
    [card] = frames.of("confirm_required")
    decided = Frames()
    await AgentTurn(user=user, emit=decided, model=model).decide(
        confirmation_id=card["confirmation_id"], approve=True, typed_env=typed_env
    )
    status = (await PendingConfirmation.objects.aget(pk=card["confirmation_id"])).status
    assert status == "executed", decided.of("error")
    rows = await database_sync_to_async(list)(
        AuditEvent.objects.filter(conversation_id=conversation_id, tool=call[0]).values("event_type", "extra_data")
    )
    return card, rows


async def _superset_ids(user) -> dict[str, int]:
    return {
        row.environment.env_id: row.superset_user_id
        async for row in SupersetIdentity.objects.filter(user=user, kind="api_key").select_related("environment")
    }


async def test_engineer_deploy_to_prod_with_api_keys_is_made_and_audited_as_engineer(keyed, scratch):
    engineer = keyed["engineer"]
    dev = scratch.dashboard("ss-dev", "Деплой по ключу", slug=f"key-deploy-{scratch.tag}")
    scratch.chart("ss-dev", "График по ключу", [dev["id"]])
    context = ui_context("dashboard", dev["id"], route=f"/dashboards/{dev['id']}")
    call = ("deploy_dashboard", {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"})

    card, rows = await _approved(engineer, call, context, typed_env="prod")

    as_engineer = {"kind": "api_key", "superset_username": "engineer"}
    [result] = [row["extra_data"] for row in rows if row["event_type"] == "tool_result"]
    assert result["acting"] == {"ss-dev": as_engineer, "prod": as_engineer}
    assert card["decision"]["acts_as"] == "user"
    ids = await _superset_ids(engineer)
    prod = await sync_to_async(superset_api.dashboard_by_slug)("prod", dev["slug"])
    assert prod["changed_by"]["id"] == ids["prod"]  # Superset's own record names engineer, not a shared account
    assert ids["prod"] in [owner["id"] for owner in prod["owners"]]


def _exports_since(env_id: str, username: str, since: datetime) -> list[dict]:
    """Superset's Action Log rows of exports by Superset user ``username`` since ``since`` (read independently)."""
    q = prison.dumps({"filters": [{"col": "action", "opr": "ct", "value": "export"}], "order_column": "dttm",
                      "order_direction": "desc", "page_size": 100})  # fmt: skip
    with superset_api.superset(env_id) as client:
        rows = client.get("/api/v1/log/", params={"q": q}).json()["result"]
    return [r for r in rows if r["user"]["username"] == username and datetime.fromisoformat(r["dttm"]) >= since]


async def test_engineer_backup_job_with_an_api_key_exports_as_engineer(keyed, backup_dir):
    """The backup's card approved in a turn: the audit names the engineer's key identity, and the job a real
    db_worker runs exports with that key — Superset's Action Log names engineer for the exports."""
    engineer = keyed["engineer"]
    started = datetime.now(UTC).replace(tzinfo=None, microsecond=0)

    _card, rows = await _approved(engineer, ("run_backup", {"env_id": "ss-dev"}), ui_context(None, None, route="/"))

    [result] = [row["extra_data"] for row in rows if row["event_type"] == "tool_result"]
    assert result["acting"] == {"ss-dev": {"kind": "api_key", "superset_username": "engineer"}}
    [record] = [row async for row in TaskRecord.objects.filter(user=engineer)]
    end = time.monotonic() + 180
    while record.state not in ("succeeded", "failed") and time.monotonic() < end:
        await asyncio.sleep(0.2)
        await record.arefresh_from_db()
    assert record.state == "succeeded", record.message
    assert list(backup_dir.glob("ss-dev/*.zip"))
    assert await asyncio.to_thread(_exports_since, "ss-dev", "engineer", started)


async def test_analyst_forbidden_query_with_an_api_key_is_refused_with_supersets_reason(keyed):
    analyst = keyed["analyst"]
    sql = f"SELECT * FROM regions WHERE region <> '{uuid.uuid4().hex[:8]}'"
    context = ui_context("dataset", 1, route="/datasets/1")
    model = scripted(tool_calls_message([(SQL_TOOL, {"env_id": "ss-dev", "database_id": 1, "sql": sql})]), "Готово.")
    frames = Frames()

    conversation_id = await AgentTurn(user=analyst, emit=frames, model=model).run(
        conversation_id=None, text=f"выполни {sql}", context=context
    )

    rows = await database_sync_to_async(list)(
        AuditEvent.objects.filter(conversation_id=conversation_id, tool=SQL_TOOL).values("event_type", "extra_data")
    )
    [denied] = [row["extra_data"] for row in rows if row["event_type"] == "permission_denied"]
    assert denied["source"] == "superset"
    assert denied["acting"] == {"ss-dev": {"kind": "api_key", "superset_username": "analyst"}}
    assert denied["message"] == table_refused("ru", "main.regions", "ss-dev")
    assert "main.regions" in denied["upstream"]  # Superset's own words: «You need access to the following tables»
    [error] = frames.of("error")
    assert error["code"] == "superset_denied"
    assert error["message"] == denied["message"]
    assert error["detail"] == denied["upstream"]  # shown folded under the sentence
