"""Issue 29, the ninth session: what turns_day13's read half found, read by the offline planner (the held half was
never read). Each is a class of question, checked here with other words than the row's."""

import pytest

from agentchat.llm.offline.asked import figure_read
from agentchat.llm.offline.sql_steps import sql_for
from agentchat.toolset.aspects import asked_aspect
from agentchat.toolset.intents import rule_scores
from agentchat.toolset.reading import read_question
from agentchat.toolset.weights import writes_sql
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.llm.test_sql_periods import SQLITE


@pytest.mark.parametrize(
    "question",
    [
        "Здравствуйте. Смотрю на этот отчёт, мне нужны деньги. Сколько стоил газ в 2025 году?",
        "Открыл дашборд, тут только объёмы. Сколько в рублях обошлась Москва за 2024?",
    ],
)
def test_a_figure_asked_after_context_that_names_the_page_is_a_figure(question):
    """m1333: the report named in the context made the dashboard's summary stand in for the figure."""
    reading = read_question(question)
    assert not reading.figure  # the whole message names a dashboard
    assert figure_read(question, reading)


def test_a_figure_in_one_sentence_is_read_as_before():
    reading = read_question("какой дашборд самый популярный?")
    assert figure_read("какой дашборд самый популярный?", reading) == reading.figure


@pytest.mark.parametrize(
    "question",
    [
        "тут в гите есть незакомиченое после вчерашнего релиза?",
        "на дашборде что-то незакоммиченное осталось после деплоя?",
    ],
)
def test_uncommitted_with_one_m_or_after_a_deploy_is_the_git_state(question):
    """m1341: «незакомиченое» (one «м») after a deploy was not read as a git question."""
    scores = rule_scores(question, "dashboard")
    assert max(scores, key=lambda name: scores[name]) == "get_git_status"


@pytest.mark.parametrize(
    "question",
    [
        "Could you email this report to the finance team every Friday?",
        "присылайте мне этот дашборд каждый понедельник утром",
        "send the dashboard to my boss weekly",
    ],
)
def test_a_report_sent_regularly_is_a_schedule_no_tool_makes(question):
    """m1311: "email this dashboard … every Monday" was answered with the dashboard's summary and no word of it."""
    assert asked_aspect(question).name == "schedule"


def test_deploys_carried_out_into_production_are_the_deploy_history(specs, knowledge):  # noqa: F811
    """m1349: «кто выполнял развёртывания в продуктивную среду» searched dashboards."""
    name, args = only_call(step(specs, knowledge, "кто и когда выполнял развёртывания в продуктивную среду?", ""))
    assert (name, args) == ("deploy_history", {"target_env_id": "prod"})
    name, args = only_call(step(specs, knowledge, "кто деплоил в прод на этой неделе?", "@prod"))
    assert (name, args) == ("deploy_history", {"target_env_id": "prod"})  # no dashboard: no source to filter


@pytest.mark.parametrize(
    ("question", "sql"),
    [
        ("скок строк в таблице?", 'SELECT COUNT(*) AS row_count FROM "energy_consumption"'),
        (
            "сколько строк и с какой даты по какую идут данные?",
            'SELECT COUNT(*) AS row_count, MIN("date") AS first_date, MAX("date") AS last_date '
            'FROM "energy_consumption"',
        ),
    ],
)
def test_a_count_said_short_or_with_the_data_s_period(question, sql):
    """m1351 («скок строк») and m1303 (a count and the period in one question) were asked back as SQL."""
    assert writes_sql(question)
    assert sql_for(question, SQLITE, None) == sql
