"""Readings fixed against the development half of ``tests/data/turns_day8.yaml`` (issue 29; its held half is only
scored), each failing before its change.

- «Подскажите, что вы умеете делать с этим дашбордом?» (the polite «вы») read the dashboard's summary and said no
  tool returns «умеете» (d865).
- «сколько Новосибирская область потребила в декабре 2025?» on a dashboard page answered with the dashboard's
  summary: a figure of the data names no object, and no tool of a dashboard page reads data, so it is said so with
  the one-click to ask without the page (d813).
"""

import dataclasses

import pytest

from agentchat.llm.offline.state import ASK_WITHOUT_PAGE
from agentchat.toolset.reading import read_question, reading_tool
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures


@pytest.mark.parametrize(
    "question",
    [
        "Добрый день! Подскажите, пожалуйста, что вы умеете делать с этим дашбордом? Я не технический специалист.",
        "чем вы можете помочь?",
        "а что умеете?",
    ],
)
def test_the_polite_you_asks_what_the_agent_can_do(specs, knowledge, question):  # noqa: F811
    assert only_call(step(specs, knowledge, question, "dashboard/1@prod")) == ("show_capabilities", {})


@pytest.mark.parametrize(
    "question",
    [
        "сколько Новосибирская область потребила в декабре 2025? мне для планёрки цифра нужна",
        "сколько стоила электроэнергия в Москве в прошлом году?",
        # a fresh user's check: an aggregate named («total»), or a month with no quantity word
        "what was the total cost in December 2025?",
        "какое потребление было в декабре?",
        "сколько потребили в марте?",
    ],
)
def test_a_figure_of_the_data_on_a_dashboard_page_is_said_to_need_another_page(specs, knowledge, question):  # noqa: F811
    assert reading_tool(read_question(question), "dashboard") == "superset_execute_sql"
    page_only = dataclasses.replace(knowledge, not_offered_reason=lambda tool, page: "page")

    message = step(specs, page_only, question, "dashboard/2@prod", role="analyst")

    assert message.tool_calls == []
    assert message.content == "why:superset_execute_sql"
    assert message.response_metadata.get(ASK_WITHOUT_PAGE) is True


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("сколько графиков на этом дашборде?", "get_health_summary"),
        ("сколько у нас окружений?", "list_environments"),
        # the page's own parts named in the plural are still objects named (a review found it read as data)
        ("how many datasets does it use?", "get_health_summary"),
    ],
)
def test_a_count_of_objects_is_not_a_figure_of_the_data(question, tool):
    assert reading_tool(read_question(question), "dashboard") == tool


def test_a_count_of_the_page_s_parts_reads_the_dashboard(specs, knowledge):  # noqa: F811
    assert only_call(step(specs, knowledge, "how many datasets does it use?", "dashboard/1@ss-dev")) == (
        "get_health_summary",
        {"env_id": "ss-dev", "dashboard_id": 1},
    )


def test_a_period_in_a_request_is_no_figure_of_the_data(specs, knowledge):  # noqa: F811
    """«every 15 min» names SQL's «min» and a period: still no data asked (aspects_unserved2 a2-d11 kept)."""
    page_only = dataclasses.replace(knowledge, not_offered_reason=lambda tool, page: "page")

    message = step(specs, page_only, "set auto refresh on this dash to every 15 min on prod pls", "dashboard/1@prod")

    assert message.content != "why:superset_execute_sql"
