"""Issue 29, the seventh session: what turns_day11's read half found the offline planner doing in place of what was
asked (no Superset needed)."""

import pytest

from agentchat.llm.offline.environments import unknown_environments_named
from agentchat.llm.offline.replies import unserved_part
from agentchat.llm.offline.sql_aggregate import aggregate_sql, unread_words
from agentchat.toolset.aspects import asked_aspect, unheard_action
from agentchat.toolset.clauses import main_clause
from agentchat.toolset.unsupported import request_without_tool
from agentchat.toolset.weights import FUNCTION_ASKED, aggregate_asked, writes_sql
from policies.defaults import ENVIRONMENTS
from tests.llm.test_day9_readings import PAYLOAD
from tests.llm.test_day10_readings import _turn_after
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.llm.test_sql_values import VALUES

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


def test_a_figure_with_no_dataset_asks_for_the_dataset_then_finds_it(specs, knowledge):  # noqa: F811
    """g1117: «Сколько МВт·ч потреблено всего за 2024 год?» with no page was asked for SQL «I do not write
    myself», though on a dataset's page the planner writes it: the dataset is what is missing."""
    question = "Сколько МВт·ч потреблено всего за 2024 год, по всем регионам и источникам?"
    asked = step(specs, knowledge, question, "@prod", role="analyst")
    assert not asked.tool_calls
    assert asked.content.startswith("О каком датасете речь? Назовите его таблицу")
    followed = step(specs, knowledge, "energy_consumption", "@prod", previous=question, role="analyst")
    assert only_call(followed) == ("search_datasets", {"env_id": "prod", "query": "energy_consumption"})
    plain = step(specs, knowledge, "выполни запрос", "@prod", role="analyst")  # no figure asked: its SQL
    assert "SQL" in plain.content


# --- a fresh QA check of this session (130 turns by a helper acting as new users) ----------------------------------


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        (  # the year standing alone was dropped: both years were summed, a wrong figure
            "total consumption 2024",
            'SELECT SUM(consumption_mwh) AS "total_consumption" FROM t '
            "WHERE \"date\" >= '2024-01-01' AND \"date\" < '2025-01-01'",
        ),
        (
            "total cost for the year 2025",
            'SELECT SUM(cost_rub) AS "total_cost" FROM t WHERE "date" >= \'2025-01-01\' AND "date" < \'2026-01-01\'',
        ),
        (
            "sum of cost_rub for 2025",
            'SELECT SUM(cost_rub) AS "total_cost" FROM t WHERE "date" >= \'2025-01-01\' AND "date" < \'2026-01-01\'',
        ),
        ("whats the max consumption_mwh", 'SELECT MAX("consumption_mwh") AS "max_consumption_mwh" FROM t'),
    ],
)
def test_a_figure_over_all_rows_keeps_its_year_and_function(question, sql):
    assert writes_sql(question)  # "what's the max consumption_mwh in this data?" was asked for as SQL (turns_day6)
    assert _sql(question) == sql


def test_a_place_named_is_a_condition_not_written():
    """«потребление по регионам в Москве» listed every region: the SQL is asked for instead."""
    assert _sql("потребление по регионам в Москве") is None
    assert _sql("потребление по регионам за 2024") is not None


def test_a_refusal_quotes_whole_words():
    """«дай мне роль админа» was quoted back as «дай мне рол»."""
    assert request_without_tool("дай мне роль админа") == "дай мне роль"


def test_a_comparison_s_predicate_is_no_name(specs, knowledge):  # noqa: F811
    """«а датасет одинаковый на деве и в проде?» on the dataset's page asked which dataset («одинаков» searched)."""
    assert only_call(step(specs, knowledge, "а датасет одинаковый на деве и в проде?", "dataset/1@ss-dev")) == (
        "compare_versions",
        {"env_id": "ss-dev", "dataset_id": 1, "other_env_id": "prod"},
    )


def test_rows_deleted_are_not_sent_to_superset(specs, knowledge):  # noqa: F811
    """«удали строки где …» was told «done in Superset itself»: Superset deletes no table rows either."""
    message = step(specs, knowledge, "удали строки где consumption_mwh < 100", "dataset/1@ss-dev")
    assert not message.tool_calls
    assert "Superset" not in message.content.split("\n")[0]


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("whats the max consumption_mwh", True),
        ("средняя стоимость за 2025", True),
        ("сколько запросов в среднем за день?", False),  # «в среднем» qualifies another figure
        ("on average, how many rows per load?", False),
        ("what is the average refresh time of this dataset?", False),  # a time is no column of the data
        ("среднее время выполнения запросов", False),
    ],
)
def test_a_function_of_a_column_is_not_an_adverb_or_a_time(question, asked):
    """A held row of aspects_unserved, diagnosed in general terms by a helper: «в среднем» in a question about a
    statistic no tool returns read as an average of a column (the dataset was read, then SQL asked for)."""
    assert bool(FUNCTION_ASKED.search(question)) is asked


def test_a_three_letter_typo_of_prod_is_named():
    """A QA check: «задеплой … из дева в прд» asked «В какое окружение?» though a place was typed."""
    assert unknown_environments_named("задеплой Обзор регионов из дева в прд", ACTIVE) == ["прд"]
    assert unknown_environments_named("что в том дашборде и в нём", ACTIVE) == []


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("какой регион больше всех потребил в 2024", 'SELECT "region", SUM(consumption_mwh) AS "total_consumption"'),
        ("стоимость по федеральным округам", None),  # no such column in this dataset: the SQL is asked for
    ],
)
def test_more_rankings_and_breakdowns_are_read(question, head):
    """A QA check: these were asked for as SQL."""
    assert aggregate_asked(question)
    sql = _sql(question)
    assert (sql or "").startswith(head) if head else sql is None


@pytest.mark.parametrize(
    "question",
    [
        "total cost 2024 Moscow",  # a second QA check: every region was summed, a confident wrong figure
        "итого стоимость 2024 Москва",
        "how much did coal cost in total",
        "средняя стоимость газа за 2025г.",
        "сумма потребления за 24 год",  # a year not read was left out: the total of every year
        "сумма потребления за 2024 и 2025 годы по регионам",  # only 2024 was summed
    ],
)
def test_a_condition_the_sql_would_leave_out_is_never_dropped(question):
    """A part of a year, which a held row of turns_day11 left out (diagnosed by a helper in general terms), is now
    written as its date range: tests/llm/test_sql_periods.py."""
    assert _sql(question) is None


def test_the_words_not_turned_into_sql_are_named():
    payload = {**PAYLOAD, "source": {"table": "energy_consumption"}}
    assert unread_words("total cost 2024 Moscow", payload) == ["moscow"]
    assert unread_words("Итого стоимость по всем регионам за 2025 год, руб. Одна цифра, без разбивки.", payload) == []
    assert unread_words("any dupes in here? more than one row per date + region + source", payload) == []
    assert (_sql("сумма потребления за 2025г.") or "").endswith("\"date\" < '2026-01-01'")
    # a unit in another case is no condition (a held row of turns_day10, diagnosed by a helper in general terms)
    assert unread_words("топ-3 региона по потреблению за 2025 год в рублях", payload) == []


def test_an_approval_without_the_article_is_no_verb(specs, knowledge):  # noqa: F811
    """A second QA check: "diff looks fine, ship it to prod" read «I cannot do “diff”»."""
    assert only_call(step(specs, knowledge, "diff looks fine, ship it to prod", "dashboard/1@ss-dev"))[0] == (
        "deploy_dashboard"
    )
    assert unheard_action("looks good, ship it") is None


@pytest.mark.parametrize(
    "question", ["what changed in this dashboard since yesterday", "что поменялось в дашборде со вчера?"]
)
def test_changes_over_a_period_are_an_aspect_no_tool_returns(question):
    """A QA check: the whole summary answered with no word that the changes themselves are not known."""
    aspect = asked_aspect(question)
    assert aspect is not None
    assert aspect.name == "object_history"
    assert asked_aspect("what changed in dashboard 2 since the last commit?") is None  # the git status says


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("создай ветку fix axis label", "fix axis label"),  # a card for «fix» dropped two words (a QA check)
        ("create a branch called fix axis label", "fix axis label"),
        ("create branch fix from main", "fix"),
        ("создай ветку fix-1 please", "fix-1"),
    ],
)
def test_a_branch_name_keeps_the_words_up_to_the_end(specs, knowledge, question, name):  # noqa: F811
    assert only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer"))[1]["name"] == name


def test_the_context_around_a_figure_is_no_condition():
    """turns_day8 d823 (read): «Добрый день. Готовлю записку … — подскажите, какие три региона …? Спасибо!» was asked
    for the SQL by the guard against dropped conditions: only the clause that asks the figure is read for one."""
    question = (
        "Добрый день. Готовлю отчёт для директора — подскажите, пожалуйста, какие три региона потребили больше всего "
        "за 2025 год. Спасибо!"
    )
    read = {**PAYLOAD, "source": {"table": "energy_consumption"}}
    # the eighth session: the clause before the dash is read for values first, and is context when it names none
    assert unread_words(question, read, VALUES) == []
    assert (aggregate_sql(question, read, "t", lambda name: f'"{name}"', VALUES) or "").endswith("LIMIT 3")
    assert unread_words("Готовлю отчёт. Сколько потребила Москва в 2025?", PAYLOAD) == ["москва"]


def test_a_short_word_of_asking_is_no_prefix_of_a_place():
    """«мин» (a minimum) must not account for «Минске», nor "for" for "Fort Worth": only units are read by prefix."""
    assert unread_words("итого стоимость в Минске за 2025", PAYLOAD) == ["минске"]
    assert unread_words("total cost for Fort Worth 2025", PAYLOAD) == ["fort", "worth"]
