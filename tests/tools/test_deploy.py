"""deploy_dashboard and preview_migration against the local Superset pair, ss-dev → prod (DESIGN §8, §9).

The two instances were seeded separately, so the same seeded objects have different uuids there; the tests
make uniquely named dashboards and charts in ss-dev, deploy them and check prod independently
(``tests.support.superset_api``), then delete everything tagged.
"""

import pytest

from agentchat.runtime.context import ToolContext
from agentchat.runtime.executor import tool_execute
from agentchat.runtime.registry import tool_spec
from agentchat.superset.call import CallState
from tests.support import superset_api
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse fixture
from tests.support.superset_api import dashboard_uuid
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)


async def _run(tool: str, args: dict, user, language: str = "ru"):
    return await tool_execute(
        spec=tool_spec(tool), args=args, user=user, conversation_id=None, ui_context=None, language=language
    )


async def _impact(tool: str, args: dict, user, language: str = "ru") -> dict:
    """Call the tool's impact look-up the way the confirmation card does (parsed args, a fresh context)."""
    spec = tool_spec(tool)
    ctx = ToolContext(
        user=user, conversation_id=None, ui_context=None, language=language, call=CallState(True), timeout_s=30
    )
    try:
        return await spec.impact(ctx, spec.args_schema.model_validate(args))
    finally:
        await ctx.aclose()


def _actions(impact: dict) -> dict[tuple[str, str], str]:
    return {(o["type"], o["name"]): o["action"] for o in impact["objects"]}


async def test_deploy_creates_dashboard_with_charts_in_prod_then_overwrites_it(users, scratch):
    # given a new dashboard with a new chart in ss-dev
    dev = scratch.dashboard("ss-dev", "Деплой", slug="deploy")
    chart = scratch.chart("ss-dev", "График деплоя", [dev["id"]])
    args = {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}

    # when the card's impact is looked up, then the dashboard and chart are new and Energy is kept
    impact = _actions(await _impact("deploy_dashboard", args, users["engineer"]))
    assert impact[("dashboard", dev["dashboard_title"])] == "create"
    assert impact[("chart", chart["slice_name"])] == "create"
    assert impact[("database", "Energy")] == "keep"
    assert impact[("dataset", "energy_consumption")] == "keep"

    # when deployed
    outcome = await _run("deploy_dashboard", args, users["engineer"])
    assert outcome.ok, outcome.error_message

    # then prod has the dashboard with its chart (seen independently)
    prod = superset_api.dashboard_by_slug("prod", dev["slug"])
    assert prod["dashboard_title"] == dev["dashboard_title"]
    assert superset_api.dashboard_chart_names("prod", prod["id"]) == [chart["slice_name"]]
    assert outcome.result["dashboards"][0]["id"] == prod["id"]
    assert _actions(outcome.result)[("dashboard", dev["dashboard_title"])] == "create"

    # given the dashboard and its chart renamed in ss-dev
    new_title, new_chart = f"Деплой v2 {scratch.tag}", f"График v2 {scratch.tag}"
    scratch.rename("ss-dev", "dashboard", dev["id"], "dashboard_title", new_title)
    scratch.rename("ss-dev", "chart", chart["id"], "slice_name", new_chart)

    # when deployed again, the impact says both are overwritten, and then prod's objects were overwritten
    impact = _actions(await _impact("deploy_dashboard", args, users["engineer"]))
    assert impact[("dashboard", new_title)] == "overwrite"
    assert impact[("chart", new_chart)] == "overwrite"
    outcome = await _run("deploy_dashboard", args, users["engineer"])
    assert outcome.ok, outcome.error_message
    again = superset_api.dashboard_by_slug("prod", dev["slug"])
    assert again["id"] == prod["id"]
    assert again["dashboard_title"] == new_title
    assert superset_api.dashboard_chart_names("prod", prod["id"]) == [new_chart]
    assert [d["id"] for d in scratch.tagged("prod", "dashboard")] == [prod["id"]]
    assert [c["slice_name"] for c in scratch.tagged("prod", "chart")] == [new_chart]


async def test_deploy_by_slug_reports_created_objects_in_english(users, scratch):
    dev = scratch.dashboard("ss-dev", "Slug deploy", slug="slug-deploy")
    chart = scratch.chart("ss-dev", "Slug chart", [dev["id"]])

    outcome = await _run(
        "deploy_dashboard",
        {"dashboard": dev["slug"], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["engineer"],
        language="en",
    )

    assert outcome.ok, outcome.error_message
    assert outcome.result["verified"] is True
    assert outcome.result["dashboards"][0]["charts"] == [chart["slice_name"]]
    assert outcome.result["counts"]["chart"] == {"create": 1}
    assert superset_api.dashboard_by_slug("prod", dev["slug"])["dashboard_title"] == dev["dashboard_title"]


async def test_same_slug_different_dashboard_in_target_is_named_in_impact(users, scratch):
    # given prod holds a DIFFERENT dashboard with the slug of a new ss-dev dashboard
    dev = scratch.dashboard("ss-dev", "Новый отчёт", slug="clash")
    scratch.chart("ss-dev", "График конфликта", [dev["id"]])
    other = scratch.dashboard("prod", "Чужой дашборд прода", slug="clash")
    assert other["slug"] == dev["slug"]
    migration = {"dashboard_ids": [dev["id"]], "source_env_id": "ss-dev", "target_env_id": "prod"}

    # when previewed and when the deploy card's impact is looked up
    preview = await _run("preview_migration", migration, users["engineer"])  # a draft: Superset shows its owners
    deploy = {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"}
    card, card_en = [
        await _impact("deploy_dashboard", deploy, users["engineer"], language) for language in ("ru", "en")
    ]

    # then both name prod's dashboard as the conflict, and nothing changed in prod
    assert preview.ok, preview.error_message
    for impact, language in ((preview.result, "ru"), (card, "ru"), (card_en, "en")):
        assert _actions(impact)[("dashboard", other["dashboard_title"])] == "conflict"
        assert ("dashboard", dev["dashboard_title"]) not in _actions(impact)
        taken = text(
            language,
            "“%(name)s” (replaced by “%(source)s”)",
            name=other["dashboard_title"],
            source=dev["dashboard_title"],
        )
        assert (
            text(language, "The same slug is taken in %(env)s: %(names)s.", env="prod", names=taken)
            in (impact["summary"])
        )
        assert impact["counts"]["dashboard"] == {"conflict": 1}
    assert superset_api.dashboard_by_slug("prod", other["slug"])["dashboard_title"] == other["dashboard_title"]

    # when deployed anyway (the user confirmed the card), then that prod dashboard is replaced in place
    outcome = await _run(
        "deploy_dashboard",
        {"dashboard_id": dev["id"], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["admin"],
    )
    assert outcome.ok, outcome.error_message
    replaced = superset_api.dashboard_by_slug("prod", other["slug"])
    assert (replaced["id"], replaced["dashboard_title"]) == (other["id"], dev["dashboard_title"])
    assert _actions(outcome.result)[("dashboard", other["dashboard_title"])] == "conflict"


async def test_preview_of_seeded_dashboards_names_what_prod_would_get(users, superset_stack):
    # given the seeded dashboards of ss-dev and the state of prod, read independently
    dev_rows = [superset_api.dashboard_by_slug("ss-dev", s) for s in ("energy-report", "regions-overview")]
    prod_rows = {s: superset_api.dashboard_by_slug("prod", s) for s in ("energy-report", "regions-overview")}
    dev_uuids = {r["slug"]: dashboard_uuid("ss-dev", r["slug"]) for r in dev_rows}
    prod_uuids = {slug: dashboard_uuid("prod", slug) for slug in prod_rows}

    # when previewed
    outcome = await _run(
        "preview_migration",
        {"dashboard_ids": [r["id"] for r in dev_rows], "source_env_id": "ss-dev", "target_env_id": "prod"},
        users["engineer"],  # the analyst may not read «Обзор регионов»'s dataset: Superset refuses its export
        language="en",
    )

    # then each seeded dashboard is an overwrite when prod has its uuid, else a conflict named after prod's one
    assert outcome.ok, outcome.error_message
    actions = _actions(outcome.result)
    for row in dev_rows:
        prod_row = prod_rows[row["slug"]]
        if prod_uuids[row["slug"]] == dev_uuids[row["slug"]]:
            assert actions[("dashboard", row["dashboard_title"])] == "overwrite"
        else:
            assert actions[("dashboard", prod_row["dashboard_title"])] == "conflict"
    assert actions[("database", "Energy")] == "keep"
    assert actions[("dataset", "energy_consumption")] == "keep"
    assert actions[("dataset", "regions")] == "keep"
    dev_charts = set()
    for row in dev_rows:
        dev_charts |= set(superset_api.dashboard_chart_names("ss-dev", row["id"]))
    assert dev_charts == {name for (kind, name) in actions if kind == "chart"}
    assert outcome.result["summary"].startswith("2 dashboards will be changed in prod.")


async def test_unknown_dashboard_and_same_environment_are_clear_errors(users, superset_stack):
    missing = await _run(
        "deploy_dashboard", {"dashboard_id": 987654, "source_env_id": "ss-dev", "target_env_id": "prod"}, users["admin"]
    )
    same = await _run(
        "deploy_dashboard", {"dashboard_id": 1, "source_env_id": "prod", "target_env_id": "prod"}, users["admin"]
    )
    unknown_env = await _run(
        "preview_migration",
        {"dashboard_ids": [1], "source_env_id": "ss-dev", "target_env_id": "nowhere"},
        users["admin"],
    )

    assert not missing.ok
    assert missing.error_message == text(
        "ru", "Environment %(env)s has no dashboards with id %(ids)s.", env="ss-dev", ids="987654"
    )
    assert (same.ok, same.error_code) == (False, "invalid_args")
    assert "must differ" in same.error_message
    assert (unknown_env.ok, unknown_env.error_code) == (False, "invalid_args")
    assert "nowhere" in unknown_env.error_message
