"""Defects a fresh review found in the offline planner (DESIGN §11), each read by a mechanism, not by its example:
a year or a count is no id, a bare follow-up keeps the conversation's language and completes the request, an
unquoted title is read as a quoted one, an environment that is not active is said to be so, a typo'd kind word is
the kind, and the kind the question names decides which search runs. Uses the planner tests' fixtures (the real
router)."""

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from agentchat.llm.offline.mentions import mentions_read
from agentchat.llm.offline.model import turn_read
from agentchat.llm.offline.state import Knowledge, Result
from agentchat.toolset.tokens import corrected
from agentchat.turn.prompt import system_prompt
from policies.defaults import ENVIRONMENTS
from tests.llm import test_offline_planner as planner_tests
from tests.llm.test_offline_planner import only_call, search_result, step
from tests.support.contexts import ui_context
from tests.support.wording import text

specs = planner_tests.specs  # the planner tests' fixtures: the tool schemas and the real router
knowledge = planner_tests.knowledge
ENVS = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]
ASKED_TARGET = "To which environment? Write, for example, “to prod”."


# --- a year, a date or a count is not an id -------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "покажи этот дашборд за 2024",
        "summarise this dashboard for 2024",
        "что было на этом дашборде в 2023 году?",
        "как менялся этот дашборд с 2022 по 2024",
        "покажи сводку этого дашборда за последние 30 дней",
    ],
)
def test_a_year_or_a_count_on_the_page_s_dashboard_is_not_its_id(specs, knowledge, question):
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev"))
    assert (name, args) == ("get_health_summary", {"env_id": "ss-dev", "dashboard_id": 1})


@pytest.mark.parametrize(
    ("question", "dashboards", "numbers"),
    [
        ("покажи этот дашборд за 2024", [], []),
        ("summarise dashboard 5 for 2024", [5], [5]),
        ("дашборд 7 за последние 30 дней", [7], [7]),
        ("дашборды 1 и 2 за январь 2024", [1, 2], [1, 2]),
        ("dashboards 3, 4 and 7", [3, 4, 7], [3, 4, 7]),
        ("first 10 rows of dashboard 3's dataset", [3], [3]),
        ("перенеси дашборды 1 и 2 на прод", [1, 2], [1, 2]),
        ("show dashboard 3 charts", [3], [3]),
        ("первые 10 строк датасета 3", [], [3]),
        ("открой отчёт 2024 года", [], []),
        ("покажи 5 дашбордов на проде", [], []),
        ("как менялся дашборд с 2022 по 2024", [], []),
        ("дашборд с id 12 за 2024", [12], [12]),
    ],
)
def test_only_numbers_that_name_an_object_are_ids(question, dashboards, numbers):
    ids = mentions_read(question, ENVS).ids
    assert ids.get("dashboard", []) == dashboards
    assert ids["any"] == numbers


# --- a bare follow-up: the conversation's language, and the rest of the request ---------------------------------


def conversation(question: str, asked: str, answer: str, language: str) -> list:
    return [
        SystemMessage(content=system_prompt(ui_context("migration", 5), unavailable=False, language=language)),
        HumanMessage(content=question),
        AIMessage(content=text(language, asked)),
        HumanMessage(content=answer),
    ]


@pytest.mark.parametrize(
    ("question", "answer", "language"),
    [
        ("перенеси дашборды 1 и 2", "prod", "ru"),
        ("перенеси дашборды 1 и 2", "staging", "ru"),
        ("перенеси дашборды 1 и 2", "ss-dev", "ru"),
        ("move dashboards 1 and 2", "prod", "en"),
        ("move dashboards 1 and 2", "ss-dev", "en"),
    ],
)
def test_a_one_word_answer_keeps_the_conversation_s_language(question, answer, language):
    turn = turn_read(conversation(question, ASKED_TARGET, answer, language), tools=None)
    assert turn.language == language


@pytest.mark.parametrize(
    ("previous", "answer"), [("перенеси дашборды 1 и 2", "prod"), ("перенеси дашборд 1", "staging")]
)
@pytest.mark.parametrize("where", ["migration/5@ss-dev", "@ss-dev"])
def test_a_bare_environment_answer_completes_the_request(specs, knowledge, previous, answer, where):
    """«перенеси дашборды 1 и 2» → «В какое окружение?» → «prod»: the preview of that migration to prod, not the list
    of environments because an environment's name is a keyword of that list."""
    name, args = only_call(step(specs, knowledge, answer, where, previous=previous))
    assert name == "preview_migration"
    assert args["target_env_id"] == answer


# --- an unquoted title is read as a quoted one --------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "расскажи про дашборд Обзор регионов",
        "show me the dashboard Regions overview",
        "describe dashboard Regions overview",
    ],
)
def test_a_title_without_quotes_found_once_goes_on_to_what_was_asked(specs, knowledge, question):
    first, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert first == "search_dashboards"
    found = search_result((2, "Обзор регионов"))
    second = only_call(step(specs, knowledge, question, "@ss-dev", results=[found]))
    assert second == ("get_health_summary", {"env_id": "ss-dev", "dashboard_id": 2})


# --- an environment that is not active here --------------------------------------------------------------------


@pytest.fixture
def local_knowledge(knowledge) -> Knowledge:
    """The local stack: ss-dev and prod are active, staging is not."""
    return Knowledge(
        rank=knowledge.rank,
        catalogue=knowledge.catalogue,
        environments=[("ss-dev", "dev"), ("prod", "prod")],
        why_not=knowledge.why_not,
    )


def not_active(language: str, env: str) -> str:
    return text(
        language,
        "The environment “%(env)s” is not active here. Active environments: %(envs)s.",
        env=env,
        envs="ss-dev, prod",
    )


@pytest.mark.parametrize(
    ("question", "previous", "where", "language"),
    [
        ("в staging", "задеплой этот дашборд", "dashboard/1@ss-dev", "ru"),
        ("staging", "перенеси дашборды 1 и 2", "migration/5@ss-dev", "ru"),
        ("задеплой этот дашборд в staging", "", "dashboard/1@ss-dev", "ru"),
        ("deploy this dashboard to staging", "", "dashboard/1@ss-dev", "en"),
        ("найди дашборды на стейджинге", "", "@ss-dev", "ru"),
    ],
)
def test_an_environment_that_is_not_active_is_named_with_the_active_ones(
    specs, local_knowledge, question, previous, where, language
):
    """Asking «В какое окружение?» again says nothing of why: the answer names the environment as not active here
    and lists the active ones; nothing runs in another environment instead."""
    message = step(specs, local_knowledge, question, where, previous=previous)
    assert message.tool_calls == []
    assert message.content == not_active(language, "staging")


# --- a typo in the kind word ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typo", "word"),
    [("дашборт", "дашборд"), ("дашборта", "дашборда"), ("датасед", "датасет"), ("дашбоард", "дашборд")],
)
def test_a_kind_word_with_its_last_consonant_devoiced_is_the_kind_word(typo, word):
    assert corrected(typo) == word


@pytest.mark.parametrize(
    ("question", "tool", "query"),
    [
        ("расскажи про дашборт продажи", "search_dashboards", "продаж"),
        ("найди дашборт продажи", "search_dashboards", "продаж"),
        ("что за датасэт regions?", "search_datasets", "region"),
        ("find the dashbord called Sales Overview", "search_dashboards", "Sales Overview"),
    ],
)
def test_a_typo_in_the_kind_word_is_the_kind_not_the_query(specs, knowledge, question, tool, query):
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert name == tool
    assert args.get("query") == query


# --- the kind the question names decides which search runs -----------------------------------------------------


def dataset_hit() -> Result:
    payload = {"env_id": "ss-dev", "count": 1, "datasets": [{"id": 4, "table_name": "energy_consumption"}]}
    return Result("search_datasets", {"env_id": "ss-dev", "query": "energy_consumption"}, payload, True)


@pytest.mark.parametrize(
    "question",
    [
        "в каких дашбордах используется датасет energy_consumption?",
        "which dashboards use the dataset energy_consumption?",
    ],
)
def test_a_dataset_named_is_searched_among_datasets(specs, knowledge, question):
    first = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert first == ("search_datasets", {"env_id": "ss-dev", "query": "energy_consumption"})
    second = only_call(step(specs, knowledge, question, "@ss-dev", results=[dataset_hit()]))
    assert second == ("get_dataset_details", {"env_id": "ss-dev", "dataset_id": 4})


@pytest.mark.parametrize(
    "question", ["tell me about the dataset regions", "расскажи про датасет продажи", "кто владелец датасета weather"]
)
def test_a_dataset_named_on_a_dashboard_page_is_not_the_page_s_dashboard(specs, knowledge, question):
    """The dashboard page offers no dataset search (DESIGN §8): that is said, the page's dashboard is not read
    instead."""
    message = step(specs, knowledge, question, "dashboard/1@ss-dev")
    assert message.tool_calls == []
    assert message.content == "why:search_datasets"
