"""Issue 29, the eighth session: a figure's condition named by a value of the dataset («сколько стоил газ в 2025»,
«потребление в Москве по источникам») is written into the planner's SQL after one read of the text columns'
values (``llm.offline.sql_values``); a word no value or several values alike account for is still asked back and
named, never dropped. The values here are the demo data's own (``scripts.devstack.energy_data``)."""

import pytest

from agentchat.llm.offline.answers import answer_from_result
from agentchat.llm.offline.sql_aggregate import aggregate_sql, unread_words
from agentchat.llm.offline.sql_steps import figure_step, sql_after_values, sql_for, still_unread
from agentchat.llm.offline.sql_values import value_conditions, values_read, values_where
from agentchat.llm.offline.state import Result, Turn
from scripts.devstack.energy_data import REGIONS, SOURCES
from tests.llm.test_day9_readings import PAYLOAD
from tests.llm.test_offline_planner import knowledge, offered, only_call, page, specs, step  # noqa: F401 - fixtures
from tests.support.stand_in_tools import specs_with_stand_ins
from tests.support.wording import text

VALUES = {"region": [r[0] for r in REGIONS], "source": list(SOURCES)}
READ = {**PAYLOAD, "source": {"table": "energy_consumption"}, "mode": "dataset"}


def _sql(question: str, values=VALUES) -> str | None:
    return aggregate_sql(question, READ, "t", lambda name: f'"{name}"', values)


@pytest.mark.parametrize(
    ("words", "conditions", "unread"),
    [
        (["москве"], {"region": ["Москва"]}, []),
        (["москвы", "татарстану"], {"region": ["Москва", "Республика Татарстан"]}, []),
        (["газа"], {"source": ["Газ"]}, []),
        (["свердловской", "области"], {"region": ["Свердловская область"]}, []),
        (["петербурге"], {"region": ["Санкт-Петербург"]}, []),
        (["области"], {}, ["области"]),  # two regions alike: no value is guessed
        (["moscow"], {}, ["moscow"]),  # an English word is no Russian value
        (["газовой"], {}, ["газовой"]),  # more than an ending added
        (["минске"], {}, ["минске"]),
    ],
)
def test_a_word_names_a_value_in_another_case_and_only_one(words, conditions, unread):
    assert value_conditions(words, VALUES) == (conditions, unread)


def test_the_condition_is_quoted_as_a_literal():
    quote = lambda name: f'"{name}"'  # noqa: E731
    assert values_where({"region": ["O'Brien"]}, quote) == ["\"region\" = 'O''Brien'"]
    assert values_where({"source": ["Газ", "Уголь"]}, quote) == ["\"source\" IN ('Газ', 'Уголь')"]


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        (
            "сколько стоил газ в 2025 году?",
            'SELECT SUM(cost_rub) AS "total_cost" FROM t WHERE "source" = \'Газ\' AND "date" >= \'2025-01-01\' '
            "AND \"date\" < '2026-01-01'",
        ),
        (
            "потребление в Москве по источникам за 2024",
            'SELECT "source", SUM(consumption_mwh) AS "total_consumption" FROM t WHERE "region" = \'Москва\' AND '
            '"date" >= \'2024-01-01\' AND "date" < \'2025-01-01\' GROUP BY "source" ORDER BY 2 DESC LIMIT 100',
        ),
        (
            "топ-3 региона по потреблению атомной энергии в 2025",
            'SELECT "region", SUM(consumption_mwh) AS "total_consumption" FROM t WHERE "source" = \'Атом\' AND '
            '"date" >= \'2025-01-01\' AND "date" < \'2026-01-01\' GROUP BY "region" ORDER BY 2 DESC LIMIT 3',
        ),
    ],
)
def test_the_values_named_are_the_figure_s_conditions(question, sql):
    assert _sql(question, values=None) is None  # before the values are read: not written, never summed over all
    assert _sql(question) == sql


@pytest.mark.parametrize(
    "question",
    [
        "потребление всех регионов кроме Москвы и Питера за 2024",  # a negation of a word no value is
        "сколько потребили по области за 2024",  # «области»: two regions alike
        "total cost 2024 Moscow",
        "потребление в Москве за последние 3 месяца",  # a period not read
        "сколько стоил газ в 2025 по кварталам",  # a breakdown by quarter
    ],
)
def test_a_condition_the_values_do_not_write_is_still_asked_for(question):
    assert _sql(question) is None


def _turn(question: str, results: list[Result]) -> Turn:
    context = page("dataset/1@ss-dev")
    return Turn(question, "ru", context, offered(specs_with_stand_ins(), context, "analyst"), results, "")


def _values_payload() -> dict:
    rows = [{"column": c, "value": v} for c, vs in VALUES.items() for v in vs]
    return {"columns": [{"name": "column"}, {"name": "value"}], "rows": rows, "row_count": len(rows)}


def test_the_planner_reads_the_values_then_writes_the_figure(specs, knowledge):  # noqa: F811
    question = "сколько стоил газ в 2025 году?"
    explore = Result("superset_explore_database", {"env_id": "ss-dev", "dataset_id": 1}, READ, True)

    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev", results=[explore], role="analyst"))
    assert name == "superset_execute_sql"
    assert args["dataset_id"] == 1
    assert "SELECT DISTINCT" in args["sql"]
    assert '"source"' in args["sql"]
    assert values_read(_values_payload()) == VALUES

    read = Result(name, args, _values_payload(), True)
    name, args = only_call(
        step(specs, knowledge, question, "dataset/1@ss-dev", results=[explore, read], role="analyst")
    )
    assert name == "superset_execute_sql"
    assert args == {
        "env_id": "ss-dev",
        "dataset_id": 1,
        "sql": _sql(question).replace("FROM t", 'FROM "energy_consumption"'),
    }


def test_a_word_still_unread_after_the_values_is_named_in_the_question_back(specs, knowledge):  # noqa: F811
    question = "сколько потребили газа по области за 2024"
    explore = Result("superset_explore_database", {"env_id": "ss-dev", "dataset_id": 1}, READ, True)
    values = figure_step(question, READ, None)
    assert values is not None  # the values are read first
    assert "row_limit" in values
    read = Result("superset_execute_sql", {"env_id": "ss-dev", "dataset_id": 1, **values}, _values_payload(), True)

    assert sql_after_values(_turn(question, [explore, read]), None) == {}  # not written: the SQL is asked for
    assert still_unread(_turn(question, [explore, read])) == ["области"]  # «газа» is a value now, not named
    message = step(specs, knowledge, question, "dataset/1@ss-dev", results=[explore, read], role="analyst")
    assert message.tool_calls == []
    assert "«области»" in message.content, message.content
    assert "газа" not in message.content, message.content


def test_the_person_s_own_sql_is_never_replaced_by_a_values_read():
    assert figure_step("сколько стоил газ в 2025 году? SELECT 1", READ, None, sql="SELECT 1") is None


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_sum_over_no_rows_is_said_as_no_value_not_null(language):
    """A fresh check: «сумма потребления за 2031 год» answered «total_consumption = NULL»."""
    result = {
        "env_id": "ss-dev",
        "database": "Energy",
        "columns": [{"name": "total_consumption", "type": "REAL"}],
        "rows": [{"total_consumption": None}],
        "row_count": 1,
    }
    answer = answer_from_result("superset_execute_sql", result, language)
    where = "Energy (ss-dev)"
    assert answer == text(
        language,
        "The query on database %(where)s gave no value of %(column)s (NULL): no row matches its conditions, "
        "or the rows that do hold no value.",
        where=where,
        column="total_consumption",
    )
    assert "= NULL" not in answer


def test_a_count_keeps_the_value_it_is_asked_for():
    """A QA check: «сколько записей по Москве?» answered the count of every row (2088)."""
    question = "сколько записей по Москве?"
    assert sql_for(question, READ, None) is None  # the values are read first
    assert sql_for(question, READ, None, VALUES) == (
        'SELECT COUNT(*) AS row_count FROM "energy_consumption" WHERE "region" = \'Москва\''
    )
    assert sql_for("how many rows for Moscow?", READ, None, VALUES) is None  # no Russian value is "Moscow"
    assert sql_for("сколько строк в датасете?", READ, None) == 'SELECT COUNT(*) AS row_count FROM "energy_consumption"'


@pytest.mark.parametrize(
    ("question", "where"),
    [
        ("сколько газа потребили?", "WHERE \"source\" = 'Газ'"),
        (
            "потребление Санкт-Петербурга за 2025 год",
            "WHERE \"region\" = 'Санкт-Петербург' AND \"date\" >= '2025-01-01'",
        ),
        ("сколько стоил уголь за 2024 год", "WHERE \"source\" = 'Уголь'"),
        ("сколько стоило угля в 2024", "WHERE \"source\" = 'Уголь'"),  # a fleeting vowel
    ],
)
def test_a_total_asked_in_other_words_keeps_its_value(question, where):
    assert where in (_sql(question) or ""), _sql(question)


@pytest.mark.parametrize(
    ("question", "unread"),
    [
        ("Москва и Питер: потребление по источникам", ["питер"]),  # a heading before a colon is the subject
        ("сумма cost_rub по годам", []),  # a breakdown by year is not written
    ],
)
def test_a_figure_that_leaves_out_its_subject_or_period_is_not_written(question, unread):
    """A QA check: «Москва и Питер: потребление по источникам» summed every region; «по годам» gave one total."""
    assert _sql(question) is None
    assert value_conditions(unread_words(question, READ), VALUES)[1] == unread


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        (
            "Свердловская область, уголь, 2024 — сколько потребили?",  # a heading before a dash is the subject
            'SELECT SUM(consumption_mwh) AS "total_consumption" FROM t WHERE "region" = \'Свердловская область\' AND '
            "\"source\" = 'Уголь' AND \"date\" >= '2024-01-01' AND \"date\" < '2025-01-01'",
        ),
        (
            "Москва, 2025: потребление по источникам",  # a year before a colon is read
            'SELECT "source", SUM(consumption_mwh) AS "total_consumption" FROM t WHERE "region" = \'Москва\' AND '
            '"date" >= \'2025-01-01\' AND "date" < \'2026-01-01\' GROUP BY "source" ORDER BY 2 DESC LIMIT 100',
        ),
        (
            "минимальное потребление гидро по регионам",  # the function of the measure, not its total
            'SELECT "region", MIN("consumption_mwh") AS "min_consumption_mwh" FROM t WHERE "source" = \'Гидро\' '
            'GROUP BY "region" ORDER BY 2 ASC LIMIT 100',
        ),
    ],
)
def test_a_second_fresh_check_s_wrong_figures_keep_every_condition(question, sql):
    """A second QA check: the region and the source before a dash, the year before a colon were left out, and
    «минимальное потребление» was written as a SUM."""
    assert _sql(question) == sql


def test_the_top_records_of_a_value_are_no_total():
    """A second QA check: «топ-5 записей по стоимости в Краснодарском крае» answered the region's total; now its
    records, ordered by the cost (the ninth session)."""
    assert _sql("топ-5 записей по стоимости в Краснодарском крае") == (
        'SELECT * FROM t WHERE "region" = \'Краснодарский край\' ORDER BY "cost_rub" DESC LIMIT 5'
    )


def test_only_before_a_value_is_its_condition():
    """A second QA check: «потребление по регионам только по ВИЭ» was asked back: «только» is how a value is said."""
    assert "WHERE \"source\" = 'ВИЭ'" in (_sql("потребление по регионам только по ВИЭ") or "")
    assert _sql("потребление по регионам только по ВИЭ", values=None) is None
