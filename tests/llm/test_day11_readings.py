"""Issue 29, the seventh session: what turns_day11's read half found the offline planner doing in place of what was
asked (no Superset needed)."""

import pytest

from agentchat.llm.offline.environments import unknown_environments_named
from agentchat.llm.offline.replies import unserved_part
from agentchat.llm.offline.sql_aggregate import aggregate_sql
from agentchat.toolset.clauses import main_clause
from agentchat.toolset.unsupported import request_without_tool
from agentchat.toolset.weights import aggregate_asked
from policies.defaults import ENVIRONMENTS
from tests.llm.test_day9_readings import PAYLOAD
from tests.llm.test_day10_readings import _turn_after
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures

ACTIVE = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]


def _sql(question: str) -> str | None:
    return aggregate_sql(question, PAYLOAD, "t", lambda name: f'"{name}"')


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        (  # g1149 was asked for the SQL
            "Итого стоимость по всем регионам за 2025 год, руб. Мне нужна одна цифра, без разбивки.",
            'SELECT SUM(cost_rub) AS "total_cost" FROM t WHERE "date" >= \'2025-01-01\' AND "date" < \'2026-01-01\'',
        ),
        (
            "Сколько МВт·ч потреблено всего за 2024 год, по всем регионам и источникам?",
            'SELECT SUM(consumption_mwh) AS "total_consumption" FROM t '
            "WHERE \"date\" >= '2024-01-01' AND \"date\" < '2025-01-01'",
        ),
        (
            "total cost in 2025, one number",
            'SELECT SUM(cost_rub) AS "total_cost" FROM t WHERE "date" >= \'2025-01-01\' AND "date" < \'2026-01-01\'',
        ),  # fmt: skip
    ],
)
def test_a_grand_total_is_one_figure_over_all_rows(question, sql):
    assert aggregate_asked(question)
    assert _sql(question) == sql


def test_a_total_by_a_column_stays_a_breakdown_and_only_is_no_total():
    assert (_sql("total cost by region in 2025") or "").startswith('SELECT "region", SUM(cost_rub)')
    assert not aggregate_asked("покажи всего 5 строк")  # «всего» is «only» here
    assert _sql("итого стоимость только по газу") is None  # a condition: the SQL is asked for


def test_an_approval_of_the_diff_is_no_request_for_it(specs, knowledge):  # noqa: F811
    """g1139: "ok the diff looks fine, ship it to prod" showed the comparison again instead of the deploy card."""
    question = "ok the diff looks fine, ship it to prod. and make sure the current prod version is saved first"
    assert only_call(step(specs, knowledge, question, "dashboard/1@ss-dev")) == (
        "deploy_dashboard",
        {"dashboard_id": 1, "source_env_id": "ss-dev", "target_env_id": "prod"},
    )
    assert only_call(step(specs, knowledge, "дифф посмотрел, всё ок, катим в прод", "dashboard/1@ss-dev"))[0] == (
        "deploy_dashboard"
    )
    assert (
        only_call(step(specs, knowledge, "show me the diff with prod", "dashboard/1@ss-dev"))[0] == "compare_versions"
    )


def test_a_compound_with_a_tier_is_no_environment_s_name(specs, knowledge):  # noqa: F811
    """g1133: «в prod-репозитории» was asked back as an unknown environment; «и сразу закоммить» is the next step."""
    assert unknown_environments_named("ветка в prod-репозитории", ACTIVE) == []
    assert unknown_environments_named("бэкапы в ss-prod", ACTIVE) == ["ss-prod"]
    question = "Нужна ветка release/2.5 в prod-репозитории для этого отчёта, и сразу закоммить текущее состояние"
    assert only_call(step(specs, knowledge, question, "dashboard/1@prod")) == (
        "create_branch",
        {"env_id": "prod", "name": "release/2.5"},
    )


@pytest.mark.parametrize(
    "question",
    [
        "Давай добавим в этот plan ещё «Обзор регионов», чтобы одной migration всё уехало. Отредактируешь план?",
        "edit this plan: add dashboard 2",
        "Create an index on energy_consumption (region, date) in the Energy DB, the region filter is slow.",
        "создай индекс по region",
        "Можно я удалю дашборд «Обзор регионов» в ss-dev? Он вроде дублирует отчёт по энергопотреблению.",
    ],
)
def test_a_request_no_tool_does_is_named(question):
    """g1127 ran the plan's preview and then its run card; g1137 was told about run times; g1151 searched."""
    assert request_without_tool(question)


def test_the_schema_refusal_says_where_it_is_done(specs, knowledge):  # noqa: F811
    message = step(specs, knowledge, "Create an index on region in the Energy DB", "dataset/1@ss-dev")
    assert "changes a database's tables or indexes" in message.content
    assert not message.tool_calls


def test_a_past_time_before_is_what_is_asked_not_a_precondition(specs, knowledge):  # noqa: F811
    """g1169: «Подтвердите, что перед последним изменением … была сохранена копия» read «Подтвердите» alone."""
    question = "Подтвердите, что перед последним изменением этого дашборда в prod была сохранена резервная копия"
    assert main_clause(question) == question
    assert main_clause("перед деплоем проверь дашборд") == "проверь дашборд"
    assert main_clause("проверь дашборд перед деплоем") == "проверь дашборд"
    assert only_call(step(specs, knowledge, question, "dashboard/1@prod"))[0] == "list_backups"


def test_a_list_that_details_the_question_is_no_second_request():
    """g1113: "Is energy_consumption identical in ss-dev and prod? columns, metrics, SQL." answered «You also
    asked: “columns, metrics, SQL.”»."""
    question = "Is energy_consumption identical in ss-dev and prod? columns, metrics, SQL."
    assert unserved_part(_turn_after(question, "", ["search_datasets", "compare_versions"])) == ""
    added = "energy_consumption в ss-dev и prod одинаковый? а ещё бэкапы прода."
    assert unserved_part(_turn_after(added, "", ["compare_versions"])) == "а ещё бэкапы прода."
