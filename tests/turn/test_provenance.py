"""Issue 32 item 1: an object id or environment in a model's call must come from the conversation.

Measured behind the local 1.5B model: «закоммичены ли изменения этого дашборда?» with no page became
``get_git_status(dashboard_id=123)`` (Superset: 404), «какие бэкапы есть для прода?» became
``list_backups(env_id="ss-prod")`` and the user read a validator's text. Such a call never reaches Superset: the model
gets a ToolMessage saying how to find the object or which environments exist, the audit says ``invented_argument``.
The unit part checks ``runtime.provenance``; the rest runs real turns with a scripted OpenAI-compatible model and
every environment behind a counting proxy in front of the local Superset pair.
"""

import json
import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agentchat.runtime.provenance import (
    invented_ids,
    invented_sql,
    known_from,
    provenance_question,
    provenance_text,
    unknown_environments,
)
from agentchat.runtime.registry import tool_spec
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, Recorded, Reply
from tests.support.contexts import ui_context
from tests.support.frames import Frames
from tests.toolset.test_tool_rbac import proxies, upstream_requests  # noqa: F401 - the counting proxies


def test_known_ids_are_the_page_s_the_user_s_the_answers_and_the_results():
    messages = [
        HumanMessage("сравни дашборды 7 и #12"),
        AIMessage("Дашборд 40 «Продажи» подойдёт."),
        HumanMessage("да, его"),
        AIMessage("Проверю дашборд 77 и базу 8."),  # the model's own words in this turn
        ToolMessage(json.dumps({"dashboards": [{"id": 31, "title": "A"}]}), tool_call_id="a"),
        ToolMessage(json.dumps({"database": {"id": 3, "name": "examples"}, "task_id": 55}), tool_call_id="c"),
        ToolMessage(json.dumps({"dashboards": [{"id": 99, "title": "B"}]}), tool_call_id="b", status="error"),
    ]
    known = known_from(messages, {"objectType": "dashboard", "objectId": 5}).ids
    assert {5, 7, 12, 40, 31, 3, 55} <= known
    assert 99 not in known  # a failed call's result names nothing
    assert not {77, 8} & known  # an id the model wrote itself this turn vouches for nothing
    assert 123 not in known_from([HumanMessage("закоммичены ли изменения этого дашборда?")], None).ids


def test_sql_to_format_or_to_make_a_dataset_of_must_be_the_user_s_or_a_result_s():
    """«приведи SQL к нормальному виду» with no SQL: the 1.5B model wrote ``SELECT * FROM my_table`` itself."""
    messages = [
        HumanMessage("отформатируй:\nselect region, sum(kwh)\nfrom energy group by region;"),
        ToolMessage(json.dumps({"sql": 'SELECT 1 AS "one"\nFROM dual'}), tool_call_id="a"),
    ]
    texts = known_from(messages, None).texts
    fmt = tool_spec("superset_format_sql")
    assert not invented_sql(fmt, {"sql": "SELECT region, SUM(kwh) FROM energy GROUP BY region"}, texts)
    assert not invented_sql(fmt, {"sql": 'select 1 as "one" from dual;'}, texts)
    assert invented_sql(fmt, {"sql": "SELECT * FROM my_table WHERE id = 1"}, texts)
    assert invented_sql(fmt, {"sql": "SELECT * FROM my_table"}, ())
    # a query the model writes to answer a question is what superset_execute_sql is for
    assert not invented_sql(tool_spec("superset_execute_sql"), {"sql": "SELECT 2"}, ())


def test_invented_ids_are_those_nothing_named():
    spec = tool_spec("get_git_status")
    assert invented_ids(spec, {"env_id": "ss-dev", "dashboard_id": 123}, {1, 2}) == [("dashboard_id", 123)]
    assert invented_ids(spec, {"env_id": "ss-dev", "dashboard_id": 2}, {1, 2}) == []
    deploy = tool_spec("execute_migration")
    assert invented_ids(deploy, {"dashboard_ids": [1, 3], "target_env_id": "prod"}, {1}) == [("dashboard_ids", 3)]
    # beside a saved plan the list is the plan's business (tools.migration_impact.migration_target)
    assert invented_ids(deploy, {"migration_id": 4, "dashboard_ids": [3]}, {4}) == []
    slug = {"dashboard": "energy-report", "dashboard_id": 8, "target_env_id": "prod"}
    assert invented_ids(tool_spec("deploy_dashboard"), slug, set()) == []  # checked against the slug
    # a fresh check: the model's database_id / object_id / task_id reached Superset unchecked
    sql = {"env_id": "ss-dev", "database_id": 42, "sql": "SELECT 1"}
    assert invented_ids(tool_spec("superset_execute_sql"), sql, {1}) == [("database_id", 42)]
    audit = {"env_id": "ss-dev", "object_type": "database", "object_id": 17}
    assert invented_ids(tool_spec("superset_audit_permissions"), audit, {1}) == [("object_id", 17)]
    assert invented_ids(tool_spec("get_task_status"), {"task_id": 9}, {9}) == []
    assert invented_ids(tool_spec("get_task_status"), {"task_id": 9}, set()) == [("task_id", 9)]


def test_unknown_environments_and_what_the_model_is_told():
    spec = tool_spec("list_backups")
    assert unknown_environments(spec, {"env_id": "ss-prod"}, ["ss-dev", "prod"]) == [("env_id", "ss-prod")]
    assert unknown_environments(spec, {"env_id": "prod"}, ["ss-dev", "prod"]) == []
    told = provenance_text([("dashboard_id", 123)], [("env_id", "ss-prod")], ["ss-dev", "prod"], "en")
    assert all(part in told for part in ("dashboard_id=123", "search_dashboards", "env_id=ss-prod", "ss-dev, prod"))
    russian = provenance_text([("dataset_id", 9)], [], [], "ru")
    assert all(part in russian for part in ("dataset_id=9", "search_datasets", "спросите пользователя"))
    database = provenance_text([("object_id", 17)], [], [], "en", object_type="database")
    assert "superset_explore_database" in database, database
    asked = provenance_question([("object_id", 17)], [], [], "ru", False, object_type="database")
    assert asked.startswith("Какую базу данных"), asked


def _refused_then(answer: str, call: Call):
    """The model's script: ``call``, then ``answer`` once it has the tool's reply."""

    def model(request: Recorded) -> Reply:
        return Reply(text=answer) if request.last.get("role") == "tool" else Reply(calls=[call])

    return model


TURN = pytest.mark.django_db(transaction=True)


@TURN
@pytest.mark.parametrize(
    ("question", "call", "told"),
    [
        (
            "закоммичены ли изменения этого дашборда?",
            Call("get_git_status", {"env_id": "ss-dev", "dashboard_id": 123}, id="call_git"),
            ["dashboard_id=123", "search_dashboards"],
        ),
        (
            "какие бэкапы есть для прода?",
            Call("list_backups", {"env_id": "ss-prod"}, id="call_backups"),
            ["env_id=ss-prod", "ss-dev", "prod"],
        ),
        (  # a fresh check: the model's database_id and object_id reached Superset unchecked
            "сколько строк в energy_consumption на ss-dev?",
            Call("superset_execute_sql", {"env_id": "ss-dev", "database_id": 4242, "sql": "SELECT 1"}, id="c_sql"),
            ["database_id=4242", "superset_explore_database"],
        ),
        (
            "кто имеет доступ к базе examples на ss-dev?",
            Call(
                "superset_audit_permissions",
                {"env_id": "ss-dev", "object_type": "database", "object_id": 777},
                id="c_audit",
            ),
            ["object_id=777", "superset_explore_database"],
        ),
    ],
    ids=["invented_id", "invented_environment", "invented_database", "invented_object"],
)
async def test_an_invented_argument_never_reaches_superset(
    users,
    proxies,  # noqa: F811
    openai_provider,  # noqa: F811
    question,
    call,
    told,
):
    server = openai_provider(default=_refused_then("Уточните, пожалуйста.", call))
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text=question, context=ui_context(None, None)
    )

    assert upstream_requests(proxies) == 0
    (refused,) = (r["content"] for r in server.requests[1].tool_results())
    detail = json.dumps(refused, ensure_ascii=False)
    assert all(word in detail for word in told), detail
    assert frames.of("tool_started") == []
    assert frames.of("error") == []
    audited = AuditEvent.objects.filter(tool=call.name, outcome="invented_argument")
    assert await audited.acount() == 1


@TURN
async def test_an_id_a_search_returned_is_used_and_reaches_superset(
    users,
    proxies,  # noqa: F811
    openai_provider,  # noqa: F811
):
    """The repair the ToolMessage asks for: search first, then the id the search returned is the model's to use."""
    script = iter(
        [
            Reply(calls=[Call("search_dashboards", {"env_id": "ss-dev", "query": "энергопотреблению"}, id="c1")]),
        ]
    )

    def model(request: Recorded) -> Reply:
        if request.last.get("role") != "tool":
            return next(script)
        last = request.tool_results()[-1]
        listed = re.search(r"\(id (\d+)", str(last["content"].get("facts")))  # the search's facts name each id
        if last["tool_call_id"] == "c1" and listed:
            found = int(listed.group(1))
            return Reply(calls=[Call("get_health_summary", {"env_id": "ss-dev", "dashboard_id": found}, id="c2")])
        return Reply(text="Готово.")

    server = openai_provider(default=model)
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="расскажи про дашборд Отчёт по энергопотреблению", context=ui_context(None, None)
    )

    assert [f["ok"] for f in frames.of("tool_finished")] == [True, True], server.requests[-1].messages
    assert not await AuditEvent.objects.filter(outcome="invented_argument").aexists()
    assert upstream_requests(proxies) > 0


@TURN
async def test_the_page_s_object_is_known(
    users,
    proxies,  # noqa: F811
    openai_provider,  # noqa: F811
    energy_dashboard,
):
    page = ui_context("dashboard", energy_dashboard["id"], env_id="ss-dev")
    call = Call("get_health_summary", {"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}, id="c1")
    openai_provider(default=_refused_then("Готово.", call))
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="что это за дашборд?", context=page
    )

    assert [f["ok"] for f in frames.of("tool_finished")] == [True]


@TURN
@pytest.mark.parametrize("repaired", [True, False], ids=["repaired", "failed_again"])
async def test_one_repair_round_and_an_error_frame_only_when_it_fails(
    users,
    openai_provider,  # noqa: F811
    energy_dashboard,
    repaired,
):
    """Issue 32 item 3: refused arguments become a ToolMessage the model acts on; the user sees no validator text
    unless the repaired call is refused too."""
    good = {"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}
    bad = {"env_id": "ss-dev", "dashboard_id": "energy"}
    calls = iter(
        [
            Reply(calls=[Call("get_health_summary", bad, id="c1")]),
            Reply(calls=[Call("get_health_summary", good if repaired else bad, id="c2")]),
            Reply(text="Готово."),
        ]
    )
    server = openai_provider(default=lambda request: next(calls))
    frames = Frames()
    page = ui_context("dashboard", energy_dashboard["id"], env_id="ss-dev")

    await AgentTurn(user=users["admin"], emit=frames).run(conversation_id=None, text="что за дашборд?", context=page)

    (told,) = (r["content"] for r in server.requests[1].tool_results())
    assert told["error"] == "invalid_args"
    assert "dashboard_id" in json.dumps(told)
    assert [f["call_id"] for f in frames.of("error")] == ([] if repaired else ["c2"])
    assert [f["ok"] for f in frames.of("tool_finished")] == ([True] if repaired else [])


@TURN
async def test_when_the_repair_fails_the_error_frame_asks_the_person_in_words(
    users,
    openai_provider,  # noqa: F811
):
    """A fresh check: invented ids twice (123, then 124) ended in an error frame reading the model's detail
    («Не отправлено в Superset: dashboard_id=124: … найдите объект (search_dashboards)…»)."""
    calls = iter(
        [
            Reply(calls=[Call("get_git_status", {"env_id": "ss-dev", "dashboard_id": 123}, id="c1")]),
            Reply(calls=[Call("get_git_status", {"env_id": "ss-dev", "dashboard_id": 124}, id="c2")]),
            Reply(text="Готово."),
        ]
    )
    openai_provider(default=lambda request: next(calls))
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="закоммичены ли изменения?", context=ui_context(None, None, env_id="ss-dev")
    )

    (error,) = frames.of("error")
    assert error["message"].startswith("Какой дашборд вы имеете в виду?"), error
    assert "dashboard_id" not in error["message"]


@TURN
async def test_sql_the_user_did_not_give_is_not_formatted(
    users,
    openai_provider,  # noqa: F811
):
    sql = "SELECT * FROM my_table WHERE id = 1"
    server = openai_provider(
        default=_refused_then("Пришлите запрос.", Call("superset_format_sql", {"sql": sql}, id="c1"))
    )
    frames = Frames()

    await AgentTurn(user=users["analyst"], emit=frames).run(
        conversation_id=None, text="приведи SQL к нормальному виду", context=ui_context(None, None)
    )

    (refused,) = (r["content"] for r in server.requests[1].tool_results())
    assert refused["error"] == "invented_argument"
    assert "sql" in refused["message"]
    assert frames.of("tool_started") == []
    assert frames.of("message")[-1]["text"] == "Пришлите запрос."
