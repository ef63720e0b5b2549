"""Context-bound arguments (issue 16; seed SC-001): where the page names the object the model may leave its id
out, the server fills it from the validated context, the result names the object used, and an id contradicting
"this dashboard" is not silently run against another dashboard. A scripted model plays the small model's calls;
the tool runs against the real local Superset."""

import json

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from agentchat.models import PendingConfirmation
from agentchat.runtime.binding import bind_call, object_used, page_bound
from agentchat.runtime.registry import registry
from agentchat.turn.agent import AgentTurn
from tests.support.contexts import dashboard_context, ui_context
from tests.support.frames import Frames
from tests.support.scripted_llm import scripted

pytestmark = pytest.mark.django_db(transaction=True)


def health_call(args: dict) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"id": "call_0", "name": "get_health_summary", "args": args}])


def tool_result(model) -> dict:
    (message,) = [m for m in model.seen[-1] if isinstance(m, ToolMessage)]
    return json.loads(message.content)


@pytest.fixture(autouse=True)
def _no_router(settings):
    settings.EMBEDDINGS = "off"


@pytest.fixture
def regions(superset_stack) -> dict:
    return superset_stack.dashboard_by_slug("ss-dev", "regions-overview")


def test_the_schema_lets_the_model_omit_what_the_page_names():
    spec = registry()["get_health_summary"]
    page = page_bound(spec, ui_context("dashboard", 3))
    schema = spec.openai_schema(page=page)["function"]["parameters"]

    assert page == {"env_id": "ss-dev", "dashboard_id": 3}
    assert "required" not in schema
    assert schema["properties"]["dashboard_id"] == {"type": "integer", "default": 3}
    assert schema["properties"]["env_id"] == {"type": "string", "default": "ss-dev"}
    assert spec.openai_schema()["function"]["parameters"]["required"] == ["env_id", "dashboard_id"]
    # A dataset page binds no dashboard; no page binds nothing.
    assert page_bound(spec, ui_context("dataset", 2)) == {"env_id": "ss-dev"}
    assert page_bound(spec, None) == {}


def test_an_id_is_replaced_only_when_the_question_points_at_the_page():
    spec = registry()["get_health_summary"]
    page = ui_context("dashboard", 3)

    assert bind_call(spec, {"dashboard_id": 1}, page, points_at_page=lambda given: True) == (
        {"dashboard_id": 3, "env_id": "ss-dev"},
        {"argument": "dashboard_id", "given": 1, "used": 3},
    )
    # "compare with dashboard 1": the question names its own id, the model's id is kept.
    assert bind_call(spec, {"dashboard_id": 1}, page, points_at_page=lambda given: False) == (
        {"dashboard_id": 1, "env_id": "ss-dev"},
        None,
    )


async def test_omitted_id_is_filled_from_the_page_and_the_result_names_it(users, regions):
    model = scripted(health_call({}), "ok")
    await AgentTurn(user=users["analyst"], emit=Frames(), model=model).run(
        conversation_id=None, text="summarise this dashboard", context=dashboard_context(regions)
    )

    result = tool_result(model)
    assert result["object_used"] == {"type": "dashboard", "id": regions["id"], "env_id": "ss-dev", "page_object": True}
    assert regions["dashboard_title"] in json.dumps(result, ensure_ascii=False)


async def test_a_wrong_id_for_this_dashboard_runs_on_the_page_object_and_says_so(users, regions, energy_dashboard):
    """SC-001: the 1.5B model called get_health_summary(dashboard_id=1) on the page of another dashboard."""
    model = scripted(health_call({"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}), "ok")
    frames = Frames()
    await AgentTurn(user=users["analyst"], emit=frames, model=model).run(
        conversation_id=None, text="расскажи про этот дашборд", context=dashboard_context(regions)
    )

    result = tool_result(model)
    text = json.dumps(result, ensure_ascii=False)
    assert result["object_used"]["id"] == regions["id"]
    assert result["object_used"]["replaced_id_given_by_model"] == energy_dashboard["id"]
    assert regions["dashboard_title"] in text
    assert energy_dashboard["dashboard_title"] not in text


async def test_an_id_the_user_names_is_run_as_asked(users, regions, energy_dashboard):
    model = scripted(health_call({"dashboard_id": energy_dashboard["id"]}), "ok")
    await AgentTurn(user=users["analyst"], emit=Frames(), model=model).run(
        conversation_id=None, text=f"а что с дашбордом {energy_dashboard['id']}?", context=dashboard_context(regions)
    )

    result = tool_result(model)
    assert result["object_used"] == {
        "type": "dashboard",
        "id": energy_dashboard["id"],
        "env_id": "ss-dev",
        "page_object": False,
    }


def test_a_dashboard_the_model_names_by_slug_gets_no_page_id():
    """Issue 16 review: «задеплой дашборд energy-report в прод» on the page of dashboard 2 — the page's id filled
    beside the slug won (``dashboard_resolve`` prefers an id) and the card proposed the page's dashboard."""
    spec = registry()["deploy_dashboard"]
    page = ui_context("dashboard", 2)
    args = {"dashboard": "energy-report", "target_env_id": "prod"}

    assert bind_call(spec, args, page, points_at_page=lambda given: True) == (
        {**args, "source_env_id": "ss-dev"},
        None,
    )
    # Without a name of its own the page's dashboard is the one deployed, from the page's environment.
    assert bind_call(spec, {"target_env_id": "prod"}, page, points_at_page=lambda given: True)[0] == {
        "target_env_id": "prod",
        "source_env_id": "ss-dev",
        "dashboard_id": 2,
    }


def test_a_database_the_model_names_gets_no_page_dataset():
    """A SQL tool on a dataset page runs on the dataset's database unless the model named a database itself."""
    spec = registry()["superset_execute_sql"]
    page = ui_context("dataset", 4)

    named, _ = bind_call(spec, {"sql": "select 1", "database_name": "examples"}, page, points_at_page=bool)
    assert "dataset_id" not in named
    assert bind_call(spec, {"sql": "select 1"}, page, points_at_page=bool)[0]["dataset_id"] == 4


def test_another_environment_gets_no_page_id_and_is_not_the_page_object():
    """Ids differ between Superset instances: prod's dashboard 2 is not the page's dashboard 2 of ss-dev."""
    spec = registry()["get_health_summary"]
    page = ui_context("dashboard", 2)

    assert bind_call(spec, {"env_id": "prod"}, page, points_at_page=lambda given: True) == ({"env_id": "prod"}, None)
    assert bind_call(spec, {"env_id": "prod", "dashboard_id": 5}, page, points_at_page=lambda given: True) == (
        {"env_id": "prod", "dashboard_id": 5},
        None,
    )
    assert object_used(spec, {"env_id": "prod", "dashboard_id": 2}, page) == {
        "type": "dashboard",
        "id": 2,
        "env_id": "prod",
        "page_object": False,
    }
    assert object_used(spec, {"env_id": "ss-dev", "dashboard_id": 2}, page)["page_object"] is True
    # deploy_dashboard's id is the source's: a deploy of the page's dashboard to prod is the page's object.
    deploy = {"dashboard_id": 2, "source_env_id": "ss-dev", "target_env_id": "prod"}
    assert object_used(registry()["deploy_dashboard"], deploy, page)["page_object"] is True


@pytest.mark.parametrize(
    ("question", "corrected"),
    [
        ("summarise this dashboard for 2024", True),
        ("top 10 charts of this dashboard", True),
        ("что на этом дашборде за 30 дней?", True),
        ("compare this dashboard with dashboard 1", False),
        ("сравни этот дашборд с дашбордом 1", False),
    ],
)
async def test_a_number_counts_against_this_only_when_it_is_the_model_s_id(users, regions, question, corrected):
    """Issue 16 review: any digit in the question disabled the "this" correction, so "summarise this dashboard
    for 2024" with the model's ``dashboard_id: 1`` ran on dashboard 1; only the id the model gave, named in the
    question, keeps the model's id."""
    assert regions["id"] != 1
    model = scripted(health_call({"env_id": "ss-dev", "dashboard_id": 1}), "ok")
    await AgentTurn(user=users["analyst"], emit=Frames(), model=model).run(
        conversation_id=None, text=question, context=dashboard_context(regions)
    )

    used = tool_result(model)["object_used"]
    assert used["id"] == (regions["id"] if corrected else 1)
    assert used["page_object"] is corrected
    assert ("replaced_id_given_by_model" in used) is corrected


async def test_a_deploy_of_a_dashboard_named_by_slug_proposes_that_dashboard(users, regions, energy_dashboard):
    """Issue 16 review (most serious): on the page of «Обзор регионов» the engineer asks to deploy energy-report
    to prod; the red PRODUCTION card must propose energy-report, not the page's dashboard."""
    call = {"id": "call_0", "name": "deploy_dashboard", "args": {"dashboard": "energy-report", "target_env_id": "prod"}}
    model = scripted(AIMessage(content="", tool_calls=[call]), "ok")
    frames = Frames()
    await AgentTurn(user=users["engineer"], emit=frames, model=model).run(
        conversation_id=None, text="задеплой дашборд energy-report в прод", context=dashboard_context(regions)
    )

    (card,) = [f for f in frames if f.get("event") == "confirm_required"]
    row = await PendingConfirmation.objects.aget(pk=card["confirmation_id"])
    assert "dashboard_id" not in row.args
    assert row.args["dashboard"] == "energy-report"
    assert energy_dashboard["dashboard_title"] in card["html"]
    assert regions["dashboard_title"] not in card["html"]


async def test_a_slug_and_an_id_naming_two_dashboards_get_no_card(users, regions, energy_dashboard):
    """A small model copies the schema's default (the page's id) beside the slug it was asked for: the id used to
    win silently (``dashboard_resolve``); two dashboards named at once are refused before any card, and the model
    reads both."""
    args = {"dashboard": "energy-report", "dashboard_id": regions["id"], "target_env_id": "prod"}
    call = {"id": "call_0", "name": "deploy_dashboard", "args": args}
    model = scripted(AIMessage(content="", tool_calls=[call]), "ok")
    frames = Frames()
    await AgentTurn(user=users["engineer"], emit=frames, model=model).run(
        conversation_id=None, text="задеплой дашборд energy-report в прод", context=dashboard_context(regions)
    )

    assert not [f for f in frames if f.get("event") == "confirm_required"]
    told = json.dumps(tool_result(model), ensure_ascii=False)
    assert "energy-report" in told
    assert str(energy_dashboard["id"]) in told
    assert str(regions["id"]) in told
    assert "два разных дашборда" in told  # in the turn's language


async def test_a_slug_and_the_id_of_that_dashboard_get_its_card(users, regions, energy_dashboard):
    args = {"dashboard": "energy-report", "dashboard_id": energy_dashboard["id"], "target_env_id": "prod"}
    model = scripted(AIMessage(content="", tool_calls=[{"id": "call_0", "name": "deploy_dashboard", "args": args}]))
    frames = Frames()
    await AgentTurn(user=users["engineer"], emit=frames, model=model).run(
        conversation_id=None, text="задеплой дашборд energy-report в прод", context=dashboard_context(regions)
    )

    (card,) = [f for f in frames if f.get("event") == "confirm_required"]
    assert energy_dashboard["dashboard_title"] in card["html"]
