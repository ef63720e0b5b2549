"""compare_versions on the local pair (issue 28 item 1): a dashboard of ss-dev against its prod version and against
the copy saved before prod was overwritten, asked offline and on the OpenAI-compatible path (a scripted model).
"""

import json
import re

import prison
import pytest
from channels.db import database_sync_to_async

from agentchat.turn.agent import AgentTurn
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support import superset_api
from tests.support.chat_server import Call, Recorded, Reply
from tests.support.contexts import ui_context
from tests.support.frames import Frames, stored_answer
from tests.support.superset_scratch import owner_ids, superset
from tests.support.tool_runs import answer
from tests.support.wording import DASHBOARD_EXPORT_REFUSED, plural, text
from tests.tools.test_deploy import _run

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


async def _deployed_then_changed(users, scratch) -> tuple[dict, dict, str, str]:
    """A dashboard with a chart deployed ss-dev → prod, then renamed and its chart's metric changed in ss-dev."""
    dev = scratch.dashboard("ss-dev", "Сравнение", slug="compare")
    chart = scratch.chart("ss-dev", "График сравнения", [dev["id"]], params={"metrics": ["count"]})
    deployed = await _run(
        "deploy_dashboard",
        {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["engineer"],
    )
    assert deployed.ok, deployed.error_message
    old, new = dev["dashboard_title"], f"Сравнение v2 {scratch.tag}"
    scratch.rename("ss-dev", "dashboard", dev["id"], "dashboard_title", new)
    dataset_id = scratch.dataset_id("ss-dev", "energy_consumption")
    form = {"viz_type": "table", "datasource": f"{dataset_id}__table", "metrics": ["sum__kwh"]}
    scratch.rename("ss-dev", "chart", chart["id"], "params", json.dumps(form))
    return dev, chart, old, new


async def test_a_dashboard_against_prod_lists_the_changed_title_and_metric(users, scratch):
    dev, chart, old, new = await _deployed_then_changed(users, scratch)
    args = {"env_id": "ss-dev", "dashboard_id": dev["id"], "other_env_id": "prod"}

    outcome = await _run("compare_versions", args, users["engineer"])

    assert outcome.ok, outcome.error_message
    result = outcome.result
    assert result["found"] is True
    assert result["other"]["env_id"] == "prod"
    lines = {(d["kind"], d["field"]): (d["before"], d["after"]) for d in result["differences"]}
    assert lines[("dashboard", "dashboard_title")] == (old, new)
    assert lines[("chart", "metrics")] == ("count", "sum__kwh")
    assert result["counts"]["changed"] >= 2


async def test_owners_are_compared_from_superset_s_answer(users, scratch):
    """Superset's export has no owners: a QA trial read «различий нет» between two dashboards whose owners
    differed. The owners come from the REST answer of each side."""
    dev, _chart, _old, _new = await _deployed_then_changed(users, scratch)
    prod_id = scratch.dashboard_get("prod", dev["slug"])["id"]
    scratch.rename("ss-dev", "dashboard", dev["id"], "owners", owner_ids("ss-dev"))
    scratch.rename("prod", "dashboard", prod_id, "owners", owner_ids("prod"))  # the same people on both sides
    args = {"env_id": "ss-dev", "dashboard_id": dev["id"], "other_env_id": "prod"}
    same = await _run("compare_versions", args, users["engineer"])
    q = prison.dumps({"filters": [{"col": "username", "opr": "eq", "value": "analyst"}]})
    with superset("prod") as client:
        analyst = client.get("/api/v1/security/users/", params={"q": q}).json()["result"][0]
    scratch.rename("prod", "dashboard", prod_id, "owners", [*owner_ids("prod"), analyst["id"]])

    differs = await _run("compare_versions", args, users["engineer"])

    assert same.ok, same.error_message
    assert differs.ok, differs.error_message
    assert ("dashboard", "owners") not in {(d["kind"], d["field"]) for d in same.result["differences"]}
    lines = {(d["kind"], d["field"]): (d["before"], d["after"]) for d in differs.result["differences"]}
    before, after = lines[("dashboard", "owners")]
    assert f"{analyst['first_name']} {analyst['last_name']}" in before.split(", ")
    assert before.split(", ") == sorted([*after.split(", "), f"{analyst['first_name']} {analyst['last_name']}"])


async def test_offline_the_question_from_the_dashboard_page_is_answered_with_the_differences(users, scratch):
    dev, chart, old, new = await _deployed_then_changed(users, scratch)
    frames = Frames()

    conversation_id = await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None,
        text="чем этот дашборд отличается от версии в prod?",
        context=ui_context("dashboard", dev["id"], name=new),
    )

    assert [f["tool"] for f in frames.of("tool_started")] == ["compare_versions"]
    answer = await database_sync_to_async(stored_answer)(conversation_id)
    assert f"«{new}»: заголовок «{old}» → «{new}»" in answer
    assert f"«{chart['slice_name']}»: метрики «count» → «sum__kwh»" in answer
    assert "prod" in answer
    assert "ss-dev" in answer


async def test_a_dashboard_missing_in_prod_is_said_so(users, scratch):
    dev = scratch.dashboard("ss-dev", "Только дев", slug="dev-only")
    frames = Frames()

    conversation_id = await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None,
        text="what's different between this dashboard and the prod one?",
        context=ui_context("dashboard", dev["id"], name=dev["dashboard_title"]),
    )

    answer = await database_sync_to_async(stored_answer)(conversation_id)
    assert "no version in prod" in answer, answer


async def test_prod_against_the_copy_saved_before_it_was_overwritten(users, scratch):
    dev, _chart, old, new = await _deployed_then_changed(users, scratch)
    again = await _run(
        "deploy_dashboard",
        {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["engineer"],
    )
    assert again.ok, again.error_message
    prod_id = again.result["dashboards"][0]["id"]
    backup_id = again.result["copy"]["backup_id"]

    outcome = await _run(
        "compare_versions", {"env_id": "prod", "dashboard_id": prod_id, "backup_id": backup_id}, users["engineer"]
    )

    assert outcome.ok, outcome.error_message
    assert outcome.result["other"]["backup_id"] == backup_id
    titles = [(d["before"], d["after"]) for d in outcome.result["differences"] if d["field"] == "dashboard_title"]
    assert titles == [(old, new)]


async def test_the_openai_path_gets_the_differences_in_the_tool_result(users, scratch, openai_provider):  # noqa: F811
    dev, _chart, old, new = await _deployed_then_changed(users, scratch)
    call = Call("compare_versions", {"env_id": "ss-dev", "dashboard_id": dev["id"], "other_env_id": "prod"}, id="c1")

    def model(request: Recorded) -> Reply:
        if request.last.get("role") != "tool":
            return Reply(calls=[call])
        (result,) = (r["content"] for r in request.tool_results())
        # what the model reads: the differences as labelled lines (issue 32 item 5), «…: заголовок «old» → «new»»
        changed = re.search(r"заголовок «([^»]+)» → «([^»]+)»", result["facts"])
        return Reply(text=f"В prod заголовок «{changed.group(1)}», в ss-dev «{changed.group(2)}».")

    server = openai_provider(default=model)
    frames = Frames()
    conversation_id = await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None,
        text="чем этот дашборд отличается от версии в prod?",
        context=ui_context("dashboard", dev["id"], name=new),
    )

    assert "compare_versions" in server.requests[0].tools
    answer = await database_sync_to_async(stored_answer)(conversation_id)
    assert f"В prod заголовок «{old}», в ss-dev «{new}»." in answer


async def test_another_dashboard_found_by_its_slug_is_said_with_the_charts_a_deploy_makes_anew(users, scratch):
    """A fresh check compared «Отчёт по энергопотреблению» with prod and read that only the owners differed, while
    prod's dashboard was another one with the same slug and a deploy would create its charts anew (the preview said
    so). Superset's import matches by uuid: the comparison now says what it matched by and what a deploy makes."""
    dev = scratch.dashboard("ss-dev", "Тот же slug", slug="same-slug")
    scratch.chart("ss-dev", "График под другим uuid", [dev["id"]])
    prod = scratch.dashboard("prod", "Тот же slug", slug="same-slug")
    assert prod["slug"] == dev["slug"]  # one slug, two objects

    args = {"env_id": "ss-dev", "dashboard_id": dev["id"], "other_env_id": "prod"}
    outcome = await _run("compare_versions", args, users["engineer"])

    assert outcome.ok, outcome.error_message
    assert (outcome.result["other"]["matched_by"], outcome.result["charts_anew"]) == ("slug", 1)
    said = answer("compare_versions", outcome, "ru")
    first = (
        "In %(other)s the dashboard with the same slug is #%(id)s, another object (its uuid differs); compared with it:"
    )
    assert said.startswith(text("ru", first, other="prod", id=prod["id"])), said  # said first, with its id there
    one = "A deploy to %(other)s would create %(count)d chart anew: %(other)s has it under another uuid."
    many = "A deploy to %(other)s would create %(count)d charts anew: %(other)s has them under other uuids."
    assert plural("ru", one, many, 1, other="prod", count=1) in said


async def test_the_same_dashboard_in_prod_is_matched_by_uuid_with_nothing_made_anew(users, scratch):
    dev, _chart, _old, _new = await _deployed_then_changed(users, scratch)
    args = {"env_id": "ss-dev", "dashboard_id": dev["id"], "other_env_id": "prod"}

    outcome = await _run("compare_versions", args, users["engineer"])

    assert (outcome.result["other"]["matched_by"], outcome.result["charts_anew"]) == ("uuid", 0)
    said = answer("compare_versions", outcome, "en")
    assert "uuid" not in said
    # which object it is there, first («есть ли он в prod?» is answered by it; a fresh check read no id)
    assert said.startswith(f"In prod it is #{outcome.result['other']['id']}."), said


async def test_an_export_superset_fails_for_hidden_charts_is_superset_s_refusal_not_an_outage(users, superset_stack):
    """Superset 6.1 answers the analyst's export of «Обзор регионов» with HTTP 500 «Fatal error» (its charts use the
    regions dataset, hidden from them) although it lists the dashboard: the answer said «Superset недоступен»."""
    dashboard_id = superset_api.dashboard_by_slug("ss-dev", "regions-overview")["id"]
    args = {"env_id": "ss-dev", "dashboard_id": dashboard_id, "other_env_id": "prod"}

    refused = await _run("compare_versions", args, users["analyst"])
    served = await _run("compare_versions", args, users["engineer"])

    assert not refused.ok
    assert refused.error_code == "upstream_error"
    assert refused.error_message == plural(
        "ru",
        *DASHBOARD_EXPORT_REFUSED,
        1,
        ids=f"#{dashboard_id}",
        env="ss-dev",
        status=500,
    )
    assert "недоступен" not in refused.error_message
    assert served.ok, served.error_message  # the same export as the engineer: Superset is up


async def test_offline_the_analyst_reads_who_refused_the_comparison(users, superset_stack):
    dashboard = superset_api.dashboard_by_slug("ss-dev", "regions-overview")
    frames = Frames()

    conversation_id = await AgentTurn(user=users["analyst"], emit=frames).run(
        conversation_id=None,
        text="чем этот дашборд отличается от версии в prod?",
        context=ui_context("dashboard", dashboard["id"], name=dashboard["dashboard_title"]),
    )

    assert [f["tool"] for f in frames.of("tool_started")] == ["compare_versions"]
    answer_text = await database_sync_to_async(stored_answer)(conversation_id)
    assert f"Superset показывает вам дашборд #{dashboard['id']} в ss-dev" in answer_text
    assert "недоступен" not in answer_text
