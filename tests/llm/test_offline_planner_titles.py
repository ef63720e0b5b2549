"""A third review of the offline planner (DESIGN §11): what a quoted title says is its name, not an id nor an
environment; a number right after "that dashboard" is its id; a word that only starts like «прод» is no
environment; the words before a number are read near it, quickly. Uses the planner tests' fixtures (the real router)."""

import time

import pytest

from agentchat.chat.frames import MAX_TEXT_CHARS
from agentchat.llm.offline.mentions import mentions_read
from agentchat.llm.offline.numbers import ids_read
from agentchat.llm.offline.state import Knowledge
from policies.defaults import ENVIRONMENTS
from tests.llm import test_offline_planner as planner_tests
from tests.llm.test_offline_planner import only_call, step

specs = planner_tests.specs
knowledge = planner_tests.knowledge
ENVS = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]


@pytest.mark.parametrize(
    ("question", "where"),
    [
        ("Как поживает дашборд «Отчёт 5»?", "@ss-dev"),
        ("расскажи про дашборд «Продажи 2024»", "@ss-dev"),
        ('summarise the dashboard "Top 3 regions"', "@ss-dev"),
    ],
)
def test_a_number_in_a_quoted_title_is_no_id(specs, knowledge, question, where):
    """«Отчёт 5» is a title: the dashboard is looked up by it, dashboard 5 is not read."""
    name, args = only_call(step(specs, knowledge, question, where))
    assert name == "search_dashboards"
    assert "dashboard_id" not in args


@pytest.mark.parametrize(
    ("question", "where", "env"),
    [
        ("найди дашборд «Staging KPIs»", "@ss-dev", "ss-dev"),
        ("найди дашборд «Prod costs»", "@ss-dev", "ss-dev"),
        ("найди дашборды про продукты", "@ss-dev", "ss-dev"),
        ("найди дашборд про продвижение", "@ss-dev", "ss-dev"),
        ("найди дашборды на проде", "@ss-dev", "prod"),
        ("найди дашборд «Staging KPIs» на проде", "@ss-dev", "prod"),
    ],
)
def test_only_the_user_s_own_words_name_an_environment(specs, knowledge, question, where, env):
    """A title («Staging KPIs») or a word that starts like one («продукты») is searched where the page is."""
    name, args = only_call(step(specs, knowledge, question, where))
    assert name == "search_dashboards"
    assert args["env_id"] == env


def test_a_title_in_quotes_gives_no_deploy_target(specs, knowledge):
    """«Dev overview» names the dashboard, not an environment: on a prod page "to prod" gives no deploy to ss-dev."""
    message = step(specs, knowledge, "задеплой дашборд 5 «Dev overview» в prod", "dashboard/5@prod")
    assert all(call["args"].get("target_env_id") != "ss-dev" for call in message.tool_calls)


def test_an_environment_quoted_as_the_planner_wrote_it_is_the_environment():
    """The clarifying question writes “to prod”: the user's copy of it in quotes still names prod."""
    assert mentions_read("задеплой этот дашборд “to prod”", ENVS).envs == ["prod"]


@pytest.fixture
def local_knowledge(knowledge) -> Knowledge:
    """The local stack: ss-dev and prod are active, staging is not."""
    return Knowledge(
        rank=knowledge.rank,
        catalogue=knowledge.catalogue,
        environments=[("ss-dev", "dev"), ("prod", "prod")],
        why_not=knowledge.why_not,
    )


def test_a_quoted_title_with_an_inactive_tier_word_is_not_said_inactive(specs, local_knowledge):
    """On the local stack (no staging) «Staging KPIs» is a title: it is searched, not «staging is not active»."""
    name, args = only_call(step(specs, local_knowledge, "найди дашборд «Staging KPIs»", "@ss-dev"))
    assert (name, args) == ("search_dashboards", {"env_id": "ss-dev", "query": "Staging KPIs"})


def test_a_title_searched_for_is_no_inactive_environment(specs, local_knowledge):
    """ "the dashboard Stage results" is searched for; "to staging" after it is still said not to be active."""
    name, args = only_call(step(specs, local_knowledge, "find the dashboard Stage results", "@ss-dev"))
    assert (name, args) == ("search_dashboards", {"env_id": "ss-dev", "query": "Stage results"})
    message = step(specs, local_knowledge, "deploy the dashboard Stage results to staging", "@ss-dev")
    assert message.tool_calls == []
    assert "staging" in message.content


@pytest.mark.parametrize(
    "question", ["show the charts that dashboard 5 has", "which datasets does that dashboard 5 use?"]
)
def test_a_number_right_after_that_dashboard_is_its_id(specs, knowledge, question):
    """“that dashboard 5” names dashboard 5 (a relative "that" as often as a demonstrative): on the page of
    dashboard 1 it is 5 that is read."""
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev"))
    assert (name, args) == ("get_health_summary", {"env_id": "ss-dev", "dashboard_id": 5})


@pytest.mark.parametrize(
    ("question", "dashboards"),
    [("покажи этот дашборд 2024", []), ("покажи этот дашборд, 3 графика", []), ("those dashboards 1 and 2", [1])],
)
def test_a_number_after_a_pointed_noun_is_its_id_only_right_after_it_and_no_year(question, dashboards):
    assert mentions_read(question, ENVS).ids.get("dashboard", []) == dashboards


def test_a_long_message_of_numbers_is_read_quickly():
    """The words before each number are read near it: 4000 numbers in a message of the largest size a frame takes
    (8000 characters) took 14 s of the planner's shared thread, reading all the text before each."""
    question = ("дашборд " + "1 " * 4000)[:MAX_TEXT_CHARS]

    started = time.perf_counter()
    ids = ids_read(question)

    assert time.perf_counter() - started < 2
    assert ids["dashboard"][:2] == [1, 1]


@pytest.mark.parametrize(("question", "numbers"), [("покажи отчёт финансов 2021", [2021]), ("за 2021", [])])
def test_only_a_whole_word_of_time_makes_a_year(question, numbers):
    """«финансов 2021» ends with «в» but is no «в 2021»."""
    assert ids_read(question)["any"] == numbers


@pytest.mark.parametrize("question", ["расскажи про дашборд Region 3 overview", "show the dashboard Region 3 overview"])
def test_a_number_inside_an_unquoted_title_is_no_id(specs, knowledge, question):
    """ "Region 3 overview" is the title: it is searched for, dashboard 3 is not read."""
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert name == "search_dashboards"
    assert "dashboard_id" not in args


@pytest.mark.parametrize(
    ("question", "dashboards"),
    [
        ("дашборды 1, 2 и 5", [1, 2, 5]),
        ("dashboards 3, 4 or #7", [3, 4, 7]),
        ("дашборд Region 3 overview", []),
        ("сравни дашборд 1 с дашбордом 2", [1, 2]),
    ],
)
def test_a_noun_s_ids_are_the_number_after_it_and_those_listed_after_that(question, dashboards):
    assert mentions_read(question, ENVS).ids.get("dashboard", []) == dashboards


@pytest.mark.parametrize(("question", "dashboards"), [("дашборд 1 годовой отчёт", [1]), ("отчёт 2024 года", [])])
def test_only_a_year_s_word_makes_a_year_not_a_word_it_starts(question, dashboards):
    """«годовой» (annual) after «дашборд 1» is no «1 года»."""
    assert mentions_read(question, ENVS).ids.get("dashboard", []) == dashboards
