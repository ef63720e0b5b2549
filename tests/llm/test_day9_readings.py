"""Readings fixed against the development half of ``tests/data/turns_day9.yaml`` (issue 29; its held half is only
scored), each failing before its change (the row of the set in brackets)."""

import dataclasses

import pytest

from agentchat.llm.offline.sql_aggregate import aggregate_sql
from agentchat.toolset.aspects import asked_aspect, unheard_action
from agentchat.toolset.reading import read_question, reading_tool
from agentchat.toolset.unsupported import request_without_tool
from agentchat.toolset.weights import extreme_asked, writes_sql
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures


def test_the_env_s_name_to_be_typed_names_no_environment(specs, knowledge):  # noqa: F811
    """e903: «There is no environment “name”» was asked back."""
    question = "ship this to prod. I'll type the env name, just show me what gets overwritten"
    assert only_call(step(specs, knowledge, question, "dashboard/1@ss-dev")) == (
        "deploy_dashboard",
        {"dashboard_id": 1, "source_env_id": "ss-dev", "target_env_id": "prod"},
    )


@pytest.mark.parametrize(
    "question",
    [
        "Запустите, пожалуйста, перенос по этому плану. С заказчиком всё согласовано, окно на выкладку сейчас.",  # e907
        "выполните миграцию",
        "перенесите по этому плану",
    ],
)
def test_a_polite_plural_imperative_is_a_request(question):
    reading = read_question(question)
    assert (reading.verb, reading_tool(reading, "migration")) == ("make", "execute_migration")


@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        ("С заказчиком всё согласовано, запускайте", None),  # e907: said, not asked
        ("админ в отпуске, можешь сам запустить этот перенос? всё уже согласовано", None),  # e923
        ("Who approved this migration plan?", "approval"),
        ("он согласован?", "approval"),
        ("а план уже одобрен ли?", "approval"),
        ("отправь этот план на согласование", "approval"),
    ],
)
def test_an_approval_said_is_not_asked(question, aspect):
    assert getattr(asked_aspect(question), "name", None) == aspect


@pytest.mark.parametrize(
    ("question", "page", "tool"),
    [
        # e911: the sentence after the question is its context; its «column» and «break» are not asked about
        (
            "who can actually read this dataset? I'm about to change column types and want to know who I'd break",
            "dataset/2@ss-dev",
            "superset_audit_permissions",
        ),
        # e913: «причеши» makes a query readable, it does not run it
        (
            "причеши запрос плз: SELECT region,source,sum(consumption_mwh) FROM energy_consumption GROUP BY 1,2",
            "dataset/1@ss-dev",
            "superset_format_sql",
        ),
        # e943: who deployed what is the deploy history, not a deploy asking where from
        (
            "Не могли бы Вы посмотреть, кто и что выкладывал в прод, и можно ли будет вернуть как было?",
            "@prod",
            "deploy_history",
        ),
    ],
)
def test_the_first_tool_is_the_one_asked(specs, knowledge, question, page, tool):  # noqa: F811
    assert only_call(step(specs, knowledge, question, page, role="admin"))[0] == tool


def test_the_conditional_step_s_environment_is_not_the_first_step_s(specs, knowledge):  # noqa: F811
    """e933: «валидни его, и если зелёный — катим в прод» validated prod (or was not understood)."""
    name, args = only_call(step(specs, knowledge, "валидни его, и если зелёный — катим в прод", "dashboard/1@ss-dev"))
    assert (name, args["env_id"]) == ("run_llm_validation", "ss-dev")


@pytest.mark.parametrize(
    "question",
    ["до какого числа данные залиты? последняя декада какая", "на проде данные за декабрь 25го уже есть?"],
)
def test_how_far_the_data_goes_is_its_latest_date(question):  # e921, e965
    assert extreme_asked(question) == ("MAX", None)
    assert writes_sql(question)


def test_a_chart_type_changed_is_a_request_no_tool_does():  # e941: the dashboard's summary was shown instead
    assert request_without_tool("could you turn the population table on this dashboard into a bar chart?")
    assert request_without_tool("переделай таблицу населения в столбчатую диаграмму")


def test_an_adjective_before_the_noun_is_no_verb():  # e961: «I cannot do “full”»
    assert unheard_action("full backup of prod before tonight's release please") is None


# --- the SQL the planner writes for a ranking or duplicates (e915, e901; turns_day8 d823) -------------------------

PAYLOAD = {
    "columns": [
        {"name": "date", "type": "DATE", "label": "Дата"},
        {"name": "region", "type": "TEXT", "label": "Регион"},
        {"name": "source", "type": "TEXT", "label": "Источник"},
        {"name": "consumption_mwh", "type": "REAL", "label": "Потребление, МВт·ч"},
        {"name": "cost_rub", "type": "REAL", "label": "Стоимость, руб."},
    ],
    "metrics": [
        {"name": "count", "expression": "COUNT(*)", "label": None},
        {"name": "total_consumption", "expression": "SUM(consumption_mwh)", "label": "Потребление, МВт·ч"},
        {"name": "total_cost", "expression": "SUM(cost_rub)", "label": "Стоимость, руб."},
    ],
}


def _sql(question: str) -> str | None:
    return aggregate_sql(question, PAYLOAD, "t", lambda name: f'"{name}"')


def test_a_ranking_groups_by_the_column_named_and_filters_the_year():
    assert _sql("ok and now the top 3 regions by total consumption in 2024") == (
        'SELECT "region", SUM(consumption_mwh) AS "total_consumption" FROM t WHERE "date" >= \'2024-01-01\' '
        'AND "date" < \'2025-01-01\' GROUP BY "region" ORDER BY 2 DESC LIMIT 3'
    )


def test_a_russian_ranking_reads_the_labels_and_the_money_asked():
    sql = _sql("какие три региона потребили больше всего электроэнергии за 2025 год и во сколько это обошлось?")
    assert sql is not None
    assert sql.startswith('SELECT "region", SUM(consumption_mwh) AS "total_consumption", SUM(cost_rub) AS "total_cost"')
    assert sql.endswith("ORDER BY 2 DESC LIMIT 3")


def test_the_least_is_ascending():
    assert (_sql("which source has the lowest total cost?") or "").endswith("ORDER BY 2 ASC LIMIT 10")


def test_duplicates_group_by_the_columns_named():
    assert _sql("any dupes in here? check for more than one row per date + region + source") == (
        'SELECT "date", "region", "source", COUNT(*) AS copies FROM t GROUP BY "date", "region", "source" '
        "HAVING COUNT(*) > 1 ORDER BY copies DESC LIMIT 50"
    )


@pytest.mark.parametrize(
    "question",
    [
        "в каком регионе меньше всего потребили в 2025 по кварталам?",  # a quarter's breakdown: the SQL is asked for
        "top 5 regions by consumption where source = 'Газ'",  # nor a condition
        "какой регион самый большой по населению?",  # no column of this dataset named
    ],
)
def test_what_the_shapes_do_not_write_is_asked_for(question):
    assert _sql(question) is None


def test_a_request_no_tool_does_is_quoted_in_the_person_s_words(specs, knowledge):  # noqa: F811
    """e941: the refusal quoted «turn the «population table on this» dashboard …» (a title read into it)."""
    question = "could you turn the population table on this dashboard into a bar chart? easier to read in meetings"
    message = step(specs, knowledge, question, "dashboard/2@prod", role="analyst")
    assert message.tool_calls == []
    assert "“turn the population table on this dashboard into a bar chart”" in message.content


def test_the_context_after_a_question_neither_names_points_nor_counts():
    """e911 and a review of it: what follows the «?» says why; its objects, its «тут» and its «сколько» are not
    asked about (a quantity read from the context turned a question about dependents into SQL asked for)."""
    reading = read_question("какие графики построены на этом датасете? хочу понять, сколько всего сломается тут")
    assert (reading.objects, reading.quantity, reading.pointed) == (("chart", "dataset"), False, ("dataset",))
    # nor does it ask: «нужно» there explains, it requests nothing (the reading was a dataset to create)
    reading = read_question("у кого доступ к датасету? нужно для аудита")
    assert (reading.verb, reading_tool(reading, "dataset")) == ("show", "superset_audit_permissions")
    # a request after the question is no context: "when can I migrate? list the targets" asks for the targets
    assert read_question("when can I migrate? list the targets").objects[0] == "environment"


@pytest.mark.parametrize(
    ("question", "page", "role", "call"),
    [
        # e947: "report" is no repository: two versions compared, the dashboard named is looked up first
        (
            "diff the energy report between dev and prod, need to see what drifted before I push anything",
            "@prod",
            "engineer",
            ("search_dashboards", {"env_id": "prod", "query": "energy"}),
        ),
        # e961: an adjective, and what it is for, before a «please»: a backup is asked for
        ("full backup of prod before tonight's release please", "@prod", "admin", ("run_backup", {"env_id": "prod"})),
        ("бэкап прода пожалуйста", "@prod", "admin", ("run_backup", {"env_id": "prod"})),
        ("бэкапы прода", "@prod", "admin", ("list_backups", {"env_id": "prod"})),
        # e923: on its page a «перенос» is the migration: run (previewed first) by the admin
        ("запусти этот перенос", "migration/1@ss-dev", "admin", ("preview_migration", {"migration_id": 1})),
    ],
)
def test_day9_requests_get_their_tool(specs, knowledge, question, page, role, call):  # noqa: F811
    assert only_call(step(specs, knowledge, question, page, role=role)) == call


def test_a_migration_s_run_asked_by_a_role_without_it_is_that_run(specs, knowledge):  # noqa: F811
    """e923: the analyst's «можешь сам запустить этот перенос?» got the preview; the run is asked for, so its refusal
    for the role is what is said (issue 29 Build 3), not a preview in its place."""
    question = "админ в отпуске, можешь сам запустить этот перенос? всё уже согласовано"
    role_only = dataclasses.replace(knowledge, not_offered_reason=lambda tool, page: "role")
    assert only_call(step(specs, role_only, question, "migration/1@ss-dev", role="analyst")) == (
        "execute_migration",
        {"migration_id": 1},
    )  # refused on the «Недостаточно прав» card
    assert step(specs, knowledge, question, "migration/1@ss-dev", role="analyst").content == "why:execute_migration"


def test_the_polite_plural_of_a_seeing_verb_asks():
    """«Скажите, пожалуйста, … есть …?» read as a request (the imperative's shape) and was not searched."""
    reading = read_question("Скажите, пожалуйста, такой дашборд вообще есть в ss-dev?")
    assert (reading.verb, reading_tool(reading, "migration")) == ("show", "search_dashboards")


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "how many rows per region?",
            'SELECT "region", COUNT(*) AS row_count FROM t GROUP BY "region" ORDER BY 2 DESC LIMIT 100',
        ),
        (
            "потребление по источникам за 2025 год",
            'SELECT "source", SUM(consumption_mwh) AS "total_consumption" FROM t WHERE "date" >= \'2025-01-01\' '
            'AND "date" < \'2026-01-01\' GROUP BY "source" ORDER BY 2 DESC LIMIT 100',
        ),
    ],
)
def test_a_breakdown_lists_every_value_of_the_column_named(question, expected):
    assert writes_sql(question)
    assert _sql(question) == expected


@pytest.mark.parametrize(
    "question", ["сколько колонок в этом датасете?", "how many metrics does this dataset have?", "how many columns?"]
)
def test_a_count_of_the_dataset_s_parts_is_its_description(question):
    """A fresh check: «сколько колонок в этом датасете?» asked for SQL; the description lists and counts them."""
    assert reading_tool(read_question(question), "dataset") == "superset_explore_database"


def test_a_question_after_statements_is_what_is_asked(specs, knowledge):  # noqa: F811
    """turns_day8 d835: a reported request before the question («Коллеги просили перенести …») showed the
    migration's plan; the question that follows asks whether the dashboard exists."""
    question = (
        "Коллеги просили перенести ещё и «Обзор регионов». Скажите, пожалуйста, такой дашборд вообще есть в ss-dev?"
    )
    assert only_call(step(specs, knowledge, question, "migration/1@ss-dev")) == (
        "search_dashboards",
        {"env_id": "ss-dev", "query": "Обзор регионов"},
    )
    # a request before the question is no statement: it is read as before
    assert read_question("Запусти бэкап. Он уже готов?").verb == "make"
