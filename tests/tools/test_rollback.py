"""Charts a deploy leaves detached, and rollback_deploy (issue 28 items 2 and 4; DESIGN §16), on the local pair.

A dashboard of ss-dev is deployed over a DIFFERENT prod dashboard with its slug (the situation of the issue: prod
was built by hand, then deployed over): the card names prod's chart that would be left on no dashboard and offers
to delete it; approved with that option ticked, prod keeps no duplicate. Then the deploy is rolled back from the
copy saved before it: prod's export equals that copy again (ids and dates aside), and the chart the deploy created
is gone. Everything is checked in Superset independently of the app (``tests.support.superset_api``).
"""

import asyncio
import json
from pathlib import Path

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import AIMessage

from agentchat.models import Backup, PendingConfirmation
from agentchat.superset.bundle import bundle_comparable, bundle_read
from agentchat.turn.agent import AgentTurn
from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.support.frames import Frames, stored_answer
from tests.support.scripted_llm import scripted
from tests.tools.test_deploy import _impact, _run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


def _prod_export(dashboard_id: int):
    with superset_api.superset("prod") as client:
        response = client.get("/api/v1/dashboard/export/", params={"q": f"!({dashboard_id})"})
        response.raise_for_status()
    return bundle_read(response.content)


def _copy(backup_id: int) -> Backup:
    return Backup.objects.get(pk=backup_id)


def _charts_named(name: str) -> list[int]:
    return superset_api.chart_ids_named(name, "prod")


async def _replacing_deploy(users, scratch) -> dict:
    """ss-dev's «Откат» with its chart, and prod's own dashboard of that slug with a chart of the same name."""
    dev = scratch.dashboard("ss-dev", "Откат", slug="rollback")
    chart = scratch.chart("ss-dev", "Потребление", [dev["id"]], params={"metrics": ["count"]})
    prod = scratch.dashboard("prod", "Откат", slug="rollback")
    prod_chart = scratch.chart("prod", "Потребление", [prod["id"]], params={"metrics": ["count"]})
    assert prod["slug"] == dev["slug"]
    assert prod_chart["slice_name"] == chart["slice_name"]
    # Prod's layout stored as a person's save stores it (an API-made dashboard has none: each export invents one).
    [layout] = _prod_export(prod["id"]).by_uuid("dashboards").values()
    scratch.rename("prod", "dashboard", prod["id"], "position_json", json.dumps(layout["position"]))
    return {"dev": dev, "chart": chart, "prod": prod, "prod_chart": prod_chart}


async def test_a_replaced_dashboards_chart_is_named_on_the_card_and_deleted_only_when_ticked(users, scratch):
    made = await _replacing_deploy(users, scratch)
    args = {"dashboard_id": made["dev"]["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}
    name = made["chart"]["slice_name"]

    # the impact names prod's chart left on no dashboard, in both languages, and offers to delete it
    impact = await _impact("deploy_dashboard", args, users["engineer"])
    assert impact["detached"] == [{"id": made["prod_chart"]["id"], "name": name}]
    assert f"В prod 1 график останется без дашборда: «{name}»." in impact["summary"]
    assert [o["name"] for o in impact["options"]] == ["remove_detached"]
    impact_en = await _impact("deploy_dashboard", args, users["engineer"], language="en")
    assert f"In prod 1 chart will be left on no dashboard: “{name}”." in impact_en["summary"]

    # when the offline planner's card is approved with the option ticked
    frames = Frames()
    context = ui_context("dashboard", made["dev"]["id"], name=made["dev"]["dashboard_title"])
    await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None, text="задеплой этот дашборд в prod", context=context
    )
    [card] = frames.of("confirm_required")
    assert card["tool"] == "deploy_dashboard"
    assert 'data-option="remove_detached"' in card["html"]
    assert name in card["html"]
    decided = Frames()
    await AgentTurn(user=users["engineer"], emit=decided).decide(
        confirmation_id=card["confirmation_id"], approve=True, typed_env="prod", options=["remove_detached"]
    )

    # then the stored call carries the choice, and prod holds one chart of that name, on the dashboard
    row = await PendingConfirmation.objects.aget(pk=card["confirmation_id"])
    assert row.status == PendingConfirmation.Status.EXECUTED, decided
    assert row.args["remove_detached"] is True
    assert row.decision["chosen"] == ["remove_detached"]
    assert len(_charts_named(name)) == 1
    replaced = superset_api.dashboard_by_slug("prod", made["prod"]["slug"])
    assert superset_api.dashboard_chart_names("prod", replaced["id"]) == [name]
    assert "Удалён 1 график, оставшийся после деплоя без дашборда" in await database_sync_to_async(stored_answer)(
        frames.of("conversation")[0]["conversation_id"]
    )


async def test_an_option_the_card_did_not_offer_is_refused(users, scratch):
    dev = scratch.dashboard("ss-dev", "Без опций", slug="no-options")
    args = {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}
    model = scripted(AIMessage(content="", tool_calls=[{"id": "c0", "name": "deploy_dashboard", "args": args}]), "ok")
    frames = Frames()
    await AgentTurn(user=users["engineer"], emit=frames, model=model).run(
        conversation_id=None, text="deploy it", context=ui_context("dashboard", dev["id"])
    )
    [card] = frames.of("confirm_required")
    decided = Frames()
    await AgentTurn(user=users["engineer"], emit=decided, model=model).decide(
        confirmation_id=card["confirmation_id"], approve=True, typed_env="prod", options=["remove_detached"]
    )
    assert [f["code"] for f in decided.of("error")] == ["bad_frame"]
    row = await PendingConfirmation.objects.aget(pk=card["confirmation_id"])
    assert row.status == PendingConfirmation.Status.PENDING
    assert "remove_detached" not in row.args


async def test_rollback_brings_prods_export_back_to_the_copy_and_removes_what_the_deploy_made(users, scratch):
    made = await _replacing_deploy(users, scratch)
    before = _prod_export(made["prod"]["id"])
    args = {"dashboard_id": made["dev"]["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}
    deployed = await _run("deploy_dashboard", args, users["engineer"])
    assert deployed.ok, deployed.error_message
    backup_id = deployed.result["copy"]["backup_id"]
    assert deployed.result["detached"] == [{"id": made["prod_chart"]["id"], "name": made["chart"]["slice_name"]}]
    created = superset_api.chart_ids_named(made["chart"]["slice_name"], "prod")
    assert len(created) == 2  # the detached one and the deployed one (nothing was ticked)

    # the rollback card shows the way back and that a copy is saved first
    impact = await _impact("rollback_deploy", {"env_id": "prod"}, users["engineer"])
    assert impact["backup_id"] == backup_id
    assert ("dashboard", made["prod"]["dashboard_title"], "restore") in {
        (o["type"], o["name"], o["action"]) for o in impact["objects"]
    }
    assert ("chart", "delete") in {(o["type"], o["action"]) for o in impact["objects"]}
    assert impact["copy_first"] is True
    assert f"копия №{backup_id}" in impact["headline"]

    # when rolled back
    outcome = await _run("rollback_deploy", {"env_id": "prod"}, users["engineer"])
    assert outcome.ok, outcome.error_message
    assert outcome.result["verified"] is True, outcome.result["differences"]

    # then prod's dashboard of that slug equals the copy (ids and dates aside), seen independently
    restored = superset_api.dashboard_by_slug("prod", made["prod"]["slug"])
    now = _prod_export(restored["id"])
    copy = bundle_read(await asyncio.to_thread(Path((await database_sync_to_async(_copy)(backup_id)).path).read_bytes))
    assert bundle_comparable(now) == bundle_comparable(copy)
    assert bundle_comparable(now) == bundle_comparable(before)
    assert [c["dashboard_title"] for c in now.by_uuid("dashboards").values()] == [made["prod"]["dashboard_title"]]
    assert len(superset_api.chart_ids_named(made["chart"]["slice_name"], "prod")) == 1  # the deployed one is gone

    # and the rollback saved its own copy, bound to the copy it restored; «the last deploy» is not undone twice
    own = await database_sync_to_async(_copy)(outcome.result["copy"]["backup_id"])
    assert own.change["tool"] == "rollback_deploy"
    assert own.change["rolls_back"] == backup_id
    again = await _run("rollback_deploy", {"env_id": "prod"}, users["engineer"])
    assert not again.ok
    assert again.error_code == "not_applicable"
    assert f"копии №{backup_id}, уже откачено" in again.error_message


async def test_nothing_to_roll_back_in_dev_is_said_and_no_card_is_offered(users, superset_stack):
    outcome = await _run("rollback_deploy", {"env_id": "ss-dev"}, users["engineer"], language="en")
    assert not outcome.ok
    assert outcome.error_code == "not_applicable"
    assert outcome.error_message.startswith("There is nothing to roll back in ss-dev")


async def test_the_offline_planner_reads_an_undo_as_the_rollback_card_with_the_named_environment(users, scratch):
    made = await _replacing_deploy(users, scratch)
    deployed = await _run(
        "deploy_dashboard",
        {"dashboard_id": made["dev"]["id"], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["engineer"],
    )
    assert deployed.ok, deployed.error_message
    frames = Frames()
    await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None,
        text="откати последний деплой в prod",
        context=ui_context("dashboard", made["dev"]["id"], name=made["dev"]["dashboard_title"]),
    )
    [card] = frames.of("confirm_required")
    assert card["tool"] == "rollback_deploy"
    assert card["decision"]["env_id"] == "prod"
    assert card["decision"]["typed_confirmation"] is True
    assert f"№{deployed.result['copy']['backup_id']}" in card["html"]


def _owned_by_service_only(scratch, env_id: str, chart_id: int) -> None:
    """Make the chart the stack service account's alone: the engineer (Alpha) may not delete or overwrite it."""
    q = f"(filters:!((col:username,opr:eq,value:{superset_api.SERVICE_USERNAME})))"
    [service] = superset_api.api(env_id, "GET", "/api/v1/security/users/", params={"q": q})["result"]
    scratch.rename(env_id, "chart", chart_id, "owners", [service["id"]])


async def test_superset_refusing_to_delete_another_person_s_chart_leaves_the_deploy_done_and_says_so(users, scratch):
    made = await _replacing_deploy(users, scratch)
    _owned_by_service_only(scratch, "prod", made["prod_chart"]["id"])
    args = {
        "dashboard_id": made["dev"]["id"],
        "source_env_id": "ss-dev",
        "target_env_id": "prod",
        "remove_detached": True,
    }

    outcome = await _run("deploy_dashboard", args, users["engineer"])

    assert outcome.ok, outcome.error_message
    assert outcome.result["removed"] == []
    [kept] = outcome.result["not_removed"]
    assert kept["name"] == made["chart"]["slice_name"]
    assert kept["reason"].startswith("Superset запрещает")
    assert outcome.result["copy"]["backup_id"]
    assert len(_charts_named(made["chart"]["slice_name"])) == 2  # the refused one is still there


async def test_a_rollback_superset_would_refuse_is_refused_first_and_leaves_the_copy_for_another_try(users, scratch):
    """Superset lets only owners and Admins overwrite by import, and answers a bare HTTP 500 otherwise: the
    ownership is asked first, the refusal names the objects and their owners, nothing is written or marked."""
    made = await _replacing_deploy(users, scratch)
    deployed = await _run(
        "deploy_dashboard",
        {"dashboard_id": made["dev"]["id"], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["admin"],
    )
    assert deployed.ok, deployed.error_message
    backup_id = deployed.result["copy"]["backup_id"]
    # the chart the copy brings back now belongs to someone else: the engineer may not overwrite it
    _owned_by_service_only(scratch, "prod", made["prod_chart"]["id"])

    refused = await _run("rollback_deploy", {"env_id": "prod", "backup_id": backup_id}, users["engineer"])

    assert not refused.ok
    assert refused.error_code == "not_applicable", refused.error_message
    assert refused.error_message.startswith("Superset откажет в этом в prod"), refused.error_message
    assert made["prod_chart"]["slice_name"] in refused.error_message
    assert "agentchat service" in refused.error_message
    marked = await database_sync_to_async(lambda: Backup.objects.filter(change__rolls_back=backup_id).exists())()
    assert not marked  # not rolled back: the same copy can be restored by someone who may
    again = await _run("rollback_deploy", {"env_id": "prod", "backup_id": backup_id}, users["admin"])
    assert again.ok, again.error_message
