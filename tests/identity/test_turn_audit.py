"""A write through the whole turn (card, approval, tool) acts as the approving user, and the audit row says whom
Superset saw; in service mode the card and the audit say it is the shared account (DESIGN §15)."""

import uuid

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import AIMessage

from agentchat.models import PendingConfirmation
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent, AuthMode, Environment
from tests.support.contexts import DASHBOARD_1
from tests.support.frames import Frames
from tests.support.scripted_llm import scripted, tool_calls_message
from tests.support.superset_api import SERVICE_USERNAME
from tests.support.wording import table_refused, text

pytestmark = pytest.mark.django_db(transaction=True)

CONTEXT = {**DASHBOARD_1, "objectName": "Отчёт по энергопотреблению"}
SQL_TOOL = "superset_execute_sql"


@pytest.fixture(autouse=True)
def _git_dir(settings, tmp_path):
    settings.GIT_REPOS_DIR = str(tmp_path / "git")


def _branch_call(name: str) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"id": "call_0", "name": "create_branch", "args": {"env_id": "ss-dev", "name": name}}]
    )


async def _approved_branch(user) -> tuple[dict, dict]:
    """Ask for a branch, approve its card; return the card frame and the call's ``tool_result`` audit row."""
    model = scripted(_branch_call(f"feature-{uuid.uuid4().hex[:8]}"), "Ветка создана.")
    frames = Frames()
    conversation_id = await AgentTurn(user=user, emit=frames, model=model).run(
        conversation_id=None, text="создай ветку", context=CONTEXT
    )
    [card] = frames.of("confirm_required")
    decided = Frames()
    await AgentTurn(user=user, emit=decided, model=model).decide(confirmation_id=card["confirmation_id"], approve=True)
    assert (await PendingConfirmation.objects.aget(pk=card["confirmation_id"])).status == "executed", decided
    rows = await database_sync_to_async(list)(
        AuditEvent.objects.filter(conversation_id=conversation_id, event_type="tool_result").values("extra_data")
    )
    return card, rows[0]["extra_data"]


async def test_engineer_branch_is_audited_under_engineers_superset_identity(engineer):
    card, extra = await _approved_branch(engineer)

    assert card["decision"]["acts_as"] == "user"
    assert text("ru", "acts as the service account") not in card["html"]
    assert extra["acting"] == {"ss-dev": {"kind": "password", "superset_username": "engineer"}}


async def test_service_mode_card_and_audit_say_the_shared_account(password_mode, superset_stack):
    await Environment.objects.filter(env_id="ss-dev").aupdate(auth_mode=AuthMode.SERVICE)

    card, extra = await _approved_branch(password_mode["engineer"])

    assert card["decision"]["acts_as"] == "service"
    assert text("ru", "acts as the service account") in card["html"]
    assert extra["acting"] == {"ss-dev": {"kind": "service", "superset_username": SERVICE_USERNAME}}


DATASET_CONTEXT = {
    **CONTEXT,
    "objectType": "dataset",
    "objectId": "1",
    "objectName": "energy_consumption",
    "route": "/datasets/1",
}


async def test_superset_refusal_in_a_turn_is_audited_as_permission_denied_from_superset(analyst):
    """The analyst's SELECT on regions: Superset refuses; the turn tells the user Superset's reason and the audit
    row is ``permission_denied`` with ``source: superset`` and whom it acted as — nothing is retried."""
    sql = "SELECT * FROM regions LIMIT 5"
    model = scripted(tool_calls_message([(SQL_TOOL, {"env_id": "ss-dev", "database_id": 1, "sql": sql})]), "Готово.")
    frames = Frames()

    conversation_id = await AgentTurn(user=analyst, emit=frames, model=model).run(
        conversation_id=None, text=f"выполни {sql}", context=DATASET_CONTEXT
    )

    rows = await database_sync_to_async(list)(
        AuditEvent.objects.filter(conversation_id=conversation_id, tool=SQL_TOOL).values(
            "event_type", "outcome", "extra_data"
        )
    )
    denied = [row for row in rows if row["event_type"] == "permission_denied"]
    assert len(denied) == 1
    assert denied[0]["outcome"] == "superset_denied"
    assert denied[0]["extra_data"]["source"] == "superset"
    assert denied[0]["extra_data"]["acting"] == {"ss-dev": {"kind": "password", "superset_username": "analyst"}}
    assert denied[0]["extra_data"]["message"] == table_refused("ru", "main.regions", "ss-dev")
    assert denied[0]["extra_data"]["upstream"].startswith("You need access to the following tables: `main.regions`")
    assert denied[0]["extra_data"]["retries"] == 0
    assert not [row for row in rows if row["event_type"] == "retry"]
    assert frames.of("tool_finished")[0]["ok"] is False
