"""Context binding, second review (issue 16): a call with argument names its tool lacks is refused, not run on the
page's object; an id the model learnt from this turn's own tool results, or named together with the slug of the
same dashboard, is not replaced by the page's. Scripted models play the calls; nothing here needs Superset."""

import json

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic import BaseModel

from agentchat.runtime.binding import bind_call, result_ids, unknown_arguments
from agentchat.runtime.registry import assistant_tool, registry
from agentchat.turn.agent import AgentTurn
from agentchat.turn.pointing import learnt_ids
from policies.models import AuditEvent, Environment
from tests.support.contexts import ui_context
from tests.support.fake_superset import fake_superset
from tests.support.frames import Frames
from tests.support.scripted_llm import scripted
from tests.support.wording import plural, text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_router(settings):
    settings.EMBEDDINGS = "off"


def call(name: str, args: dict, call_id: str = "call_0") -> AIMessage:
    return AIMessage(content="", tool_calls=[{"id": call_id, "name": name, "args": args}])


def tool_results(model) -> list[dict]:
    return [json.loads(m.content) for m in model.seen[-1] if isinstance(m, ToolMessage)]


def audited_args(conversation_id: int, events: tuple[str, ...] = ("tool_call", "tool_error")) -> list[dict]:
    """The arguments of the conversation's audit rows of ``events`` (a call that started: ``tool_call``)."""
    rows = AuditEvent.objects.filter(conversation_id=conversation_id, event_type__in=events)
    return [row.args for row in rows.order_by("pk")]


@pytest.mark.parametrize("language", ["ru", "en"])
async def test_an_argument_the_tool_lacks_is_refused_and_the_page_id_is_not_filled(users, language):
    """``get_health_summary {"slug": "energy-report"}`` on the page of dashboard 2 ran against dashboard 2 (the
    argument model ignored ``slug``, then the page's id was filled). It is refused as invalid arguments, and the
    model reads the unknown name and the names the tool takes, in the turn's language."""
    model = scripted(call("get_health_summary", {"slug": "energy-report"}), "ok")
    frames = Frames()
    question = "расскажи про дашборд energy-report" if language == "ru" else "tell me about dashboard energy-report"

    conversation_id = await AgentTurn(user=users["analyst"], emit=frames, model=model).run(
        conversation_id=None, text=question, context=ui_context("dashboard", 2)
    )

    (told,) = tool_results(model)
    assert told["error"] == "invalid_args"
    unknown = plural(language, "unknown argument: %(names)s", "unknown arguments: %(names)s", 1, names="slug")
    takes = text(language, "%(tool)s takes only: %(names)s", tool="get_health_summary", names="env_id, dashboard_id")
    assert told["message"] == text(language, "Invalid tool arguments: %(detail)s", detail=f"{unknown}; {takes}")
    assert language == "en" or "неизвестный аргумент" in told["message"]  # said in the turn's language
    assert not [f for f in frames if f["event"] == "tool_started"]
    (args,) = await database_sync_to_async(audited_args)(conversation_id)
    assert args == {"slug": "energy-report"}  # the model's call as it was: no page id filled in


def test_unknown_argument_names_are_those_neither_field_nor_alias():
    """An alias (``schema``) and its field name (``schema_name``, ``populate_by_name``) are both the tool's."""
    sql = registry()["superset_execute_sql"]

    assert unknown_arguments(sql, {"sql": "select 1", "schema": "main", "database_name": "examples"}) == []
    assert unknown_arguments(sql, {"sql": "select 1", "schema_name": "main", "database_id": 1}) == []
    assert unknown_arguments(sql, {"sql": "select 1", "table": "t", "db": "x"}) == ["db", "table"]
    assert unknown_arguments(registry()["show_capabilities"], {}) == []


def test_every_tool_s_argument_model_forbids_unknown_names():
    """The executor validates every call (an approved card's, a page's) with the tool's model: an unknown name is
    an error there too, never dropped."""
    lax = [name for name, spec in registry().items() if spec.args_schema.model_config.get("extra") != "forbid"]

    assert lax == []


def test_a_tool_whose_model_lets_unknown_names_through_is_not_registered():
    class Lax(BaseModel):
        env_id: str

    register = assistant_tool(
        name="lax_tool",
        category="read",
        env_specific=True,
        args=Lax,
        description_ru="т",
        description_en="t",
        examples_ru=["т"],
        examples_en=["t"],
    )

    with pytest.raises(ValueError, match="forbid unknown names"):
        register(lambda ctx, args: None)  # type: ignore[arg-type,return-value]
    assert "lax_tool" not in registry()


def test_an_id_named_with_a_slug_on_a_this_question_is_kept_for_the_tool_to_check():
    """«задеплой этот дашборд в прод» on the page of dashboard 2, the model calls with ``dashboard_id: 5`` and the
    slug of dashboard 5: the id was replaced by 2 first, then the tool refused 2 and the slug as two dashboards.
    The model named the object itself twice: its own pair goes to the tool, whose check (id and slug naming two
    dashboards → invalid arguments, tests/turn/test_context_binding.py) judges it."""
    spec = registry()["deploy_dashboard"]
    page = ui_context("dashboard", 2)
    args = {"dashboard": "energy-report", "dashboard_id": 5, "target_env_id": "prod"}

    assert bind_call(spec, args, page, points_at_page=lambda given: True) == ({**args, "source_env_id": "ss-dev"}, None)


def test_a_database_beside_a_wrong_dataset_id_does_not_keep_it():
    """A database is another object than the dataset, and the SQL tool runs on the dataset's database whatever
    database is named (``tools.sql._target``): a wrong ``dataset_id`` beside one is still the page's on "this"."""
    spec = registry()["superset_execute_sql"]
    page = ui_context("dataset", 4)
    args = {"sql": "select 1", "dataset_id": 7, "database_name": "examples"}

    bound, replaced = bind_call(spec, args, page, points_at_page=lambda given: True)

    assert bound["dataset_id"] == 4
    assert replaced == {"argument": "dataset_id", "given": 7, "used": 4}


ENERGY = {"id": 5, "dashboard_title": "Энергопотребление", "slug": "energy-report", "published": True, "owners": []}
THIS_AND_ENERGY = "сравни этот дашборд с дашбордом про энергопотребление"


@pytest.fixture
def superset_fake():
    """ss-dev is a loopback stand-in knowing dashboard 5 (its search finds it); dashboard 2 it does not have."""
    routes = {
        "/api/v1/dashboard/": {"count": 1, "result": [ENERGY]},
        "/api/v1/dashboard/5": {"result": ENERGY},
        "/api/v1/dashboard/5/charts": {"result": [{"id": 2, "slice_name": "Потребление", "viz_type": "line"}]},
        "/api/v1/dashboard/5/datasets": {"result": []},
    }
    with fake_superset(routes) as fake:
        Environment.objects.filter(env_id="ss-dev").update(superset_url=fake.url)
        yield fake


async def test_an_id_the_model_learnt_from_this_turn_s_search_is_not_replaced(users, superset_fake):
    """«сравни этот дашборд с дашбордом про энергопотребление» on the page of dashboard 2: the model found 5 with
    search_dashboards and asked for its summary; "этот дашборд" in the question replaced 5 by 2, and the comparison
    was of dashboard 2 with itself. An id a tool result of this turn gave the model is its own; in the next turn
    (a question about "this" again) it is not, and a stray 5 is the page's 2 again."""
    model = scripted(
        call("search_dashboards", {"query": "энергопотребление"}),
        call("get_health_summary", {"dashboard_id": 5}, "call_1"),
        "ok",
        call("get_health_summary", {"dashboard_id": 5}, "call_2"),
        "ok",
    )
    turn = AgentTurn(user=users["analyst"], emit=Frames(), model=model)

    conversation_id = await turn.run(conversation_id=None, text=THIS_AND_ENERGY, context=ui_context("dashboard", 2))

    used = tool_results(model)[-1]["object_used"]
    assert used == {"type": "dashboard", "id": 5, "env_id": "ss-dev", "page_object": False}
    assert "GET /api/v1/dashboard/2" not in superset_fake.paths

    await turn.run(
        conversation_id=conversation_id, text="а теперь расскажи про этот дашборд", context=ui_context("dashboard", 2)
    )

    assert superset_fake.paths.count("GET /api/v1/dashboard/5") == 1
    assert "GET /api/v1/dashboard/2" in superset_fake.paths
    calls = await database_sync_to_async(audited_args)(conversation_id, ("tool_call",))
    assert [args.get("dashboard_id") for args in calls if "query" not in args] == [5, 2]


def test_the_ids_a_result_names_are_read_by_object_type():
    """A dashboard's charts and datasets have ids of their own: a chart's 9 is no dashboard the model learnt."""
    search = {"env_id": "ss-dev", "count": 2, "dashboards": [{"id": 5, "title": "a"}, {"id": 6, "title": "b"}]}
    health = {
        "object_used": {"type": "dashboard", "id": 2, "env_id": "ss-dev", "page_object": True},
        "env_id": "ss-dev",
        "dashboard": {"id": 2, "title": "x"},
        "charts": [{"id": 9, "name": "c"}],
        "datasets": [{"id": 4, "name": "energy"}],
        "validation": {"run_id": 3, "dashboard_id": 2},
    }

    assert result_ids(search) == {("dashboard", "ss-dev"): {5, 6}}
    assert result_ids(health) == {("dashboard", "ss-dev"): {2}, ("dataset", "ss-dev"): {4}}
    assert result_ids({"dashboard_ids": [7, 8], "task_id": 1}) == {("dashboard", None): {7, 8}}
    assert result_ids(["not", {"an": "object"}, 5]) == {}


def test_a_learnt_id_is_kept_and_any_other_is_still_the_page_s():
    spec = registry()["get_health_summary"]
    page = ui_context("dashboard", 2)

    this = {"points_at_page": lambda given: True}
    kept = bind_call(spec, {"dashboard_id": 5}, page, **this, learnt={("dashboard", None): {5}})
    other = bind_call(spec, {"dashboard_id": 5}, page, **this, learnt={("dataset", None): {5}})

    assert kept == ({"dashboard_id": 5, "env_id": "ss-dev"}, None)
    assert other == ({"dashboard_id": 2, "env_id": "ss-dev"}, {"argument": "dashboard_id", "given": 5, "used": 2})


def test_an_id_learnt_in_another_environment_is_not_learnt_for_the_page_s():
    """«сравни этот дашборд с дашбордом про энергию на prod»: prod's search found 5, and the model asks for the
    summary of 5 without an environment, so it runs in the page's ss-dev, where 5 is another dashboard. That 5 was
    not learnt there: on "this" it is still the page's 2 (reported), never ss-dev's unrelated 5 unnoticed."""
    spec = registry()["get_health_summary"]
    page = ui_context("dashboard", 2)
    learnt = result_ids({"env_id": "prod", "count": 1, "dashboards": [{"id": 5, "title": "Energy"}]})

    this = {"points_at_page": lambda given: True}
    here = bind_call(spec, {"dashboard_id": 5}, page, **this, learnt=learnt)
    there = bind_call(spec, {"env_id": "prod", "dashboard_id": 5}, page, **this, learnt=learnt)

    assert here == ({"dashboard_id": 2, "env_id": "ss-dev"}, {"argument": "dashboard_id", "given": 5, "used": 2})
    assert there == ({"env_id": "prod", "dashboard_id": 5}, None)


def test_only_this_turn_s_successful_results_count():
    found = ToolMessage(content=json.dumps({"dashboards": [{"id": 5}]}), tool_call_id="a")
    refused = ToolMessage(content=json.dumps({"error": "invalid_args", "dashboard_id": 7}), tool_call_id="b")
    refused.status = "error"
    earlier = ToolMessage(content=json.dumps({"dashboards": [{"id": 3}]}), tool_call_id="c")
    messages = [HumanMessage("найди"), earlier, HumanMessage("сравни этот с энергией"), found, refused]

    assert learnt_ids(messages) == {("dashboard", None): {5}}
    assert learnt_ids([found]) == {("dashboard", None): {5}}  # a history without a user message: all of it


def test_a_listing_that_named_nothing_teaches_no_id():
    """«расскажи про этот дашборд»: a model that lists every dashboard first and then takes one of them did not
    learn which dashboard the user meant — every dashboard of the instance is in that list — so on "this" its id
    is still the page's. A search for something named (a query, an owner) does teach its hits."""

    def turn(args: dict) -> list:
        asked = AIMessage(content="", tool_calls=[{"id": "s", "name": "search_dashboards", "args": args}])
        hits = {"env_id": "ss-dev", "count": 3, "dashboards": [{"id": 5}, {"id": 6}, {"id": 7}]}
        return [HumanMessage("расскажи про этот дашборд"), asked, ToolMessage(json.dumps(hits), tool_call_id="s")]

    assert learnt_ids(turn({"env_id": "ss-dev", "limit": 100})) == {}
    assert learnt_ids(turn({"env_id": "ss-dev", "query": "", "owner": None})) == {}
    assert learnt_ids(turn({"query": "энергия"})) == {("dashboard", "ss-dev"): {5, 6, 7}}
    assert learnt_ids(turn({"env_id": "ss-dev", "owner": "ivan"})) == {("dashboard", "ss-dev"): {5, 6, 7}}
