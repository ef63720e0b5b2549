"""A copy before every overwrite outside dev (issue 28 item 3), on the local pair ss-dev → prod.

The deploy saves prod's current versions of what it overwrites (Superset's own export) before it imports, the card
says so, the audit row links the copy; when prod's export fails (a fault proxy answering 500), nothing is written to
prod, the user is told why and the audit row says so.
"""

import asyncio
import json
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import AIMessage

from agentchat.models import Backup
from agentchat.superset.bundle import bundle_read
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent, Environment
from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.support.faultproxy import Fault, FaultProxy
from tests.support.frames import Frames
from tests.support.scripted_llm import scripted
from tests.tools.test_deploy import _impact, _run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]
PROD_URL = "http://127.0.0.1:8089"
EXPORT = r"^/api/v1/dashboard/export/"
IMPORT = r"^/api/v1/(dashboard|chart)/import/"


def _copy(backup_id: int) -> Backup:
    return Backup.objects.get(pk=backup_id)


async def test_a_prod_overwrite_saves_prods_current_version_first(users, scratch):
    # given a dashboard with a chart in ss-dev, deployed to prod once (only creations: a copy with no objects)
    dev = scratch.dashboard("ss-dev", "Копия", slug="copy")
    chart = scratch.chart("ss-dev", "График копии", [dev["id"]], params={"metrics": ["count"]})
    args = {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}
    first = await _run("deploy_dashboard", args, users["engineer"])
    assert first.ok, first.error_message
    created = await database_sync_to_async(_copy)(first.result["copy"]["backup_id"])
    assert created.kind == Backup.Kind.PRE_CHANGE
    assert created.dashboard_count == 0
    assert {(c["type"], c["name"]) for c in created.change["created"]} >= {
        ("dashboard", dev["dashboard_title"]),
        ("chart", chart["slice_name"]),
    }

    # given the dashboard renamed and its chart's metric changed in ss-dev
    old_title, new_title = dev["dashboard_title"], f"Копия v2 {scratch.tag}"
    scratch.rename("ss-dev", "dashboard", dev["id"], "dashboard_title", new_title)
    dataset_id = scratch.dataset_id("ss-dev", "energy_consumption")
    form = {"viz_type": "table", "datasource": f"{dataset_id}__table", "metrics": ["sum__kwh"]}
    scratch.rename("ss-dev", "chart", chart["id"], "params", json.dumps(form))

    # when the card is looked up, then it names the title and metric changes and says a copy is saved first
    impact = await _impact("deploy_dashboard", args, users["engineer"])
    assert impact["copy_first"] is True
    assert f"«{new_title}»: заголовок «{old_title}» → «{new_title}»" in impact["changes"]
    assert f"«{chart['slice_name']}»: метрики «count» → «sum__kwh»" in impact["changes"]
    assert "Изменения: «" in impact["summary"]
    assert "сохраняется копия текущей версии" in impact["summary"]
    impact_en = await _impact("deploy_dashboard", args, users["engineer"], language="en")
    assert f"“{chart['slice_name']}”: metrics “count” → “sum__kwh”" in impact_en["changes"]
    assert "A copy of the current version is saved before the change." in impact_en["summary"]

    # when deployed again, then the copy holds prod's version as it was before (the old title) and its chart
    outcome = await _run("deploy_dashboard", args, users["engineer"])
    assert outcome.ok, outcome.error_message
    backup = await database_sync_to_async(_copy)(outcome.result["copy"]["backup_id"])
    saved = bundle_read(await asyncio.to_thread(Path(backup.path).read_bytes))
    assert [c["dashboard_title"] for c in saved.by_uuid("dashboards").values()] == [old_title]
    assert chart["slice_name"] in [c["slice_name"] for c in saved.by_uuid("charts").values()]
    assert backup.created_by_id == users["engineer"].pk
    assert backup.change["tool"] == "deploy_dashboard"
    assert superset_api.dashboard_by_slug("prod", dev["slug"])["dashboard_title"] == f"Копия v2 {scratch.tag}"


async def test_a_dev_write_saves_no_copy(users, scratch):
    # given a dashboard in prod deployed back to ss-dev (a dev target)
    dev = scratch.dashboard("ss-dev", "Копия дев", slug="copy-dev")
    to_prod = await _run(
        "deploy_dashboard",
        {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["engineer"],
    )
    assert to_prod.ok, to_prod.error_message
    prod_id = to_prod.result["dashboards"][0]["id"]
    back = {"dashboard_id": prod_id, "source_env_id": "prod", "target_env_id": "ss-dev"}

    # when it is deployed into ss-dev over its own original, then no copy is made and the card says none
    impact = await _impact("deploy_dashboard", back, users["engineer"])
    assert impact["copy_first"] is False
    assert "копия" not in impact["summary"]
    outcome = await _run("deploy_dashboard", back, users["engineer"])
    assert outcome.ok, outcome.error_message
    assert outcome.result["copy"] is None


@pytest.fixture
def prod_export_fails(superset_stack):
    """prod's Superset behind a fault proxy whose dashboard export answers 500 (everything else is forwarded)."""
    with FaultProxy(PROD_URL) as proxy:
        proxy.inject("GET", EXPORT, Fault.STATUS, status=500)
        Environment.objects.filter(env_id="prod").update(superset_url=proxy.url)
        try:
            yield proxy
        finally:
            Environment.objects.filter(env_id="prod").update(superset_url=PROD_URL)


async def test_when_prods_export_fails_nothing_is_written_and_the_user_and_audit_are_told(
    users, scratch, prod_export_fails
):
    # given a dashboard that exists in prod (created there by a first deploy through the proxy: no export needed)
    dev = scratch.dashboard("ss-dev", "Копия сбой", slug="copy-fault")
    args = {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}
    first = await _run("deploy_dashboard", args, users["engineer"])
    assert first.ok, first.error_message
    scratch.rename("ss-dev", "dashboard", dev["id"], "dashboard_title", f"Копия сбой v2 {scratch.tag}")
    imports_before = prod_export_fails.count("POST", IMPORT)
    copies_before = await Backup.objects.filter(env_id="prod").acount()

    # when the engineer asks to deploy it again and approves the prod card
    call = AIMessage(content="", tool_calls=[{"id": "c0", "name": "deploy_dashboard", "args": args}])
    model = scripted(call, "Готово.")
    frames = Frames()
    turn = AgentTurn(user=users["engineer"], emit=frames, model=model)
    conversation_id = await turn.run(
        conversation_id=None,
        text="задеплой этот дашборд в prod",
        context=ui_context("dashboard", dev["id"], name=dev["dashboard_title"]),
    )
    card = frames.of("confirm_required")[0]
    assert "сохраняется копия текущей версии" in card["decision"]["impact"]["summary"]
    decided = Frames()
    await AgentTurn(user=users["engineer"], emit=decided, model=model).decide(
        confirmation_id=card["confirmation_id"], approve=True, typed_env="prod"
    )

    # then prod's export was tried, nothing was imported, no copy recorded, prod keeps its title
    assert prod_export_fails.count("GET", EXPORT) >= 1
    assert prod_export_fails.count("POST", IMPORT) == imports_before
    assert await Backup.objects.filter(env_id="prod").acount() == copies_before
    assert superset_api.dashboard_by_slug("prod", dev["slug"])["dashboard_title"] == dev["dashboard_title"]
    # the user reads why, and the audit row of the call says it
    said = " ".join(f["text"] for f in decided.of("message"))
    assert "Не удалось сохранить копию текущей версии в prod" in said
    row = await AuditEvent.objects.filter(conversation_id=conversation_id, tool="deploy_dashboard").alatest("id")
    assert row.event_type == AuditEvent.EventType.TOOL_ERROR
    assert "Не удалось сохранить копию текущей версии в prod" in row.extra_data["message"]
