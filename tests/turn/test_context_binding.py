"""Context-bound arguments (issue 16; seed SC-001): where the page names the object the model may leave its id
out, the server fills it from the validated context, the result names the object used, and an id contradicting
"this dashboard" is not silently run against another dashboard. A scripted model plays the small model's calls;
the tool runs against the real local Superset."""

import json

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from agentchat.runtime.binding import bind_call, page_bound
from agentchat.runtime.registry import registry
from agentchat.turn.agent import AgentTurn
from tests.support.contexts import dashboard_context, ui_context
from tests.support.scripted_llm import scripted

pytestmark = pytest.mark.django_db(transaction=True)


class Frames(list):
    async def __call__(self, event):
        self.append(event.wire())


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

    assert bind_call(spec, {"dashboard_id": 1}, page, points_at_page=True) == (
        {"dashboard_id": 3, "env_id": "ss-dev"},
        {"argument": "dashboard_id", "given": 1, "used": 3},
    )
    # "compare with dashboard 1": the question names its own id, the model's id is kept.
    assert bind_call(spec, {"dashboard_id": 1}, page, points_at_page=False) == (
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
