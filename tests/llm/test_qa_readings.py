"""Readings a fresh user's check found wrong (issue 29; the QA check of session 2026-12-07's start), each failing
before its change:

- a title in „…“ or “…” quotes was not read as a title;
- a «title» with no noun, asked on another dashboard's page («сколько графиков в «Обзоре регионов»?»), read the
  page's dashboard; «задеплой «Обзор регионов» в prod» put the page's dashboard on the deploy card;
- «сколько раз его деплоили?» read the summary, not the deploy history;
- "what was the total cost in December 2025?" («total» is an aggregate) and «какое потребление было в декабре?» (a
  month, no quantity word) on a dashboard page were not read as figures of the data: «не разобрал» instead of
  saying that no tool of the page reads data (checked with turns_day8's figures in ``test_day8_readings``); a month
  beside an object named is none.
"""

import dataclasses

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from agentchat.llm.offline.model import turn_read
from agentchat.llm.offline.planner import plan_step
from agentchat.llm.offline.state import Turn
from agentchat.toolset.tokens import quotes_unified
from agentchat.turn.prompt import system_prompt
from tests.llm.test_offline_planner import knowledge, offered, only_call, page, specs, step  # noqa: F401
from tests.support.contexts import ui_context


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("в „Обзоре регионов“ сколько графиков?", "в «Обзоре регионов» сколько графиков?"),
        ("deploy “Sales Overview” to prod", "deploy «Sales Overview» to prod"),
        ("what’s in ‘Sales Overview’?", "what’s in «Sales Overview»?"),
        ("select * from regions where region = 'Москва'", "select * from regions where region = 'Москва'"),
        # a second check: straight quotes deployed the page's dashboard
        ('deploy "Обзор регионов" to prod', "deploy «Обзор регионов» to prod"),
        ("сколько графиков в 'Обзор регионов'?", "сколько графиков в «Обзор регионов»?"),
        ("ship this to prod. I'll type the env name", "ship this to prod. I'll type the env name"),
        ('SELECT "date" FROM energy_consumption', 'SELECT "date" FROM energy_consumption'),
    ],
)
def test_other_quotes_are_read_as_the_title_s(text, expected):
    assert quotes_unified(text) == expected


def test_the_turn_reads_a_title_in_other_quotes():
    context = ui_context("dashboard", 1, env_id="ss-dev", name="Отчёт по энергопотреблению")
    messages = [
        SystemMessage(content=system_prompt(context, unavailable=False, language="ru")),
        HumanMessage(content="в „Обзоре регионов“ сколько графиков?"),
    ]
    assert turn_read(messages, tools=None).question == "в «Обзоре регионов» сколько графиков?"


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("в «Обзоре регионов» сколько графиков?", "get_health_summary"),
        ("кто владелец «Обзора регионов»?", "get_health_summary"),
        ("задеплой «Обзор регионов» в prod", "deploy_dashboard"),
    ],
)
def test_a_title_with_no_noun_on_another_dashboard_s_page_is_searched(specs, knowledge, question, tool):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "dashboard/1@ss-dev", role="engineer"))
    assert (name, args["query"]) == ("search_dashboards", next(iter(question.split("«")[1:])).split("»")[0])


def _on_own_page(specs, knowledge, question):  # noqa: F811
    context = {**page("dashboard/1@ss-dev"), "objectName": "Обзор регионов"}
    turn = Turn(question, "ru", context, offered(specs, context, "engineer"))
    return plan_step(turn, knowledge)


def test_the_page_s_own_title_in_quotes_reads_the_page(specs, knowledge):  # noqa: F811
    assert only_call(_on_own_page(specs, knowledge, "кто владелец «Обзор регионов»?")) == (
        "get_health_summary",
        {"env_id": "ss-dev", "dashboard_id": 1},
    )


def test_a_commit_message_in_quotes_names_no_dashboard(specs, knowledge):  # noqa: F811
    name, args = only_call(step(specs, knowledge, "закоммить с сообщением «новый график»", "dashboard/1@ss-dev"))
    assert (name, args["dashboard_id"], args["message"]) == ("commit_changes", 1, "новый график")


@pytest.mark.parametrize(
    "question",
    ["сколько раз его деплоили?", "how often was it deployed to prod?", "сколько раз выкатывали его в прод?"],
)
def test_how_many_times_it_was_deployed_is_its_deploy_history(specs, knowledge, question):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "dashboard/2@prod", role="analyst"))
    assert (name, args["dashboard_id"]) == ("deploy_history", 2)


@pytest.mark.parametrize(
    ("question", "tool"),
    [("кто менял дашборд в декабре?", "get_health_summary"), ("какие бэкапы были в ноябре?", "list_backups")],
)
def test_a_month_beside_an_object_is_no_figure_of_the_data(specs, knowledge, question, tool):  # noqa: F811
    page_only = dataclasses.replace(knowledge, not_offered_reason=lambda tool, page: "page")
    assert only_call(step(specs, page_only, question, "dashboard/2@prod"))[0] == tool


def test_a_link_s_address_in_the_answer_asks_nothing():
    """A fresh check: «есть ли в prod Обзора регионов?» after a search answer repeated that search in prod: the
    answer's links («…/?env_id=ss-dev») were read as a question back, so the new question as its answer."""
    context = ui_context(None, None, env_id="ss-dev")
    answer = "Найден 1 дашборд: [«Отчёт по энергопотреблению»](/dashboards/1/?env_id=ss-dev)."
    messages = [
        SystemMessage(content=system_prompt(context, unavailable=False, language="ru")),
        HumanMessage(content="найди дашборд «Потреблению энергии»"),
        AIMessage(content=answer),
        HumanMessage(content="есть ли в prod Обзора регионов?"),
    ]
    assert turn_read(messages, tools=None).previous_question == ""
    messages[2] = AIMessage(content=f"{answer} Какой из них открыть?")
    assert turn_read(messages, tools=None).previous_question == "найди дашборд «Потреблению энергии»"


def test_a_commit_of_a_quoted_title_with_a_quoted_message_searches_the_title(specs, knowledge):  # noqa: F811
    """A second check: «закоммить «Обзор регионов» с сообщением «правка»» put the page's dashboard on the card,
    with the title as the message."""
    question = "закоммить «Обзор регионов» с сообщением «правка»"
    assert only_call(step(specs, knowledge, question, "dashboard/1@ss-dev")) == (
        "search_dashboards",
        {"env_id": "ss-dev", "query": "Обзор регионов"},
    )
    name, args = only_call(step(specs, knowledge, "закоммить «правка подписей»", "dashboard/1@ss-dev"))
    assert (name, args["dashboard_id"], args["message"]) == ("commit_changes", 1, "правка подписей")


def test_a_short_follow_up_changes_the_value_of_the_request_before_it():
    """A second check: «а в ss-dev?» after «есть ли в prod «Обзор регионов»?» listed ss-dev's backups."""
    context = ui_context(None, None, env_id="ss-dev")
    messages = [
        SystemMessage(content=system_prompt(context, unavailable=False, language="ru")),
        HumanMessage(content="есть ли в prod «Обзор регионов»?"),
        AIMessage(content="В prod найден 1 дашборд: [«Обзор регионов»](/dashboards/2/?env_id=prod)."),
        HumanMessage(content="а в ss-dev?"),
    ]
    assert turn_read(messages, tools=None).previous_question == "есть ли в prod «Обзор регионов»?"
    messages[3] = HumanMessage(content="а какие бэкапы есть у ss-dev и когда был последний?")
    assert turn_read(messages, tools=None).previous_question == ""
