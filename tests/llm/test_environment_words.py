"""Environments a question names (``llm.offline.environments``), from the day set of issue 32 behind the planner.

d35: «какие бэкапы есть в ss-prod?» listed prod's backups: the «prod» of «ss-prod» was read as the prod tier, though
no environment ss-prod exists — a different question answered without a word. d45: «что с дашбордом 7 на деве?»
asked for an environment: «на деве» (the dev tier, in the locative) was not read. d31: «задеплой на прод-2» asked
«в какое окружение?» with examples instead of saying that «прод-2» is none of the person's.
"""

import dataclasses

import pytest

from agentchat.llm.offline.environments import envs_named, unknown_environments_named
from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures
from tests.support.wording import text

ACTIVE = [("ss-dev", "dev"), ("prod", "prod")]


@pytest.mark.parametrize(
    ("question", "named", "unknown"),
    [
        ("какие бэкапы есть в ss-prod?", [], ["ss-prod"]),
        ("задеплой на прод-2", [], ["прод-2"]),
        ("что с дашбордом 7 на деве? кто его владелец", ["ss-dev"], []),
        ("сравни с девом", ["ss-dev"], []),
        ("из ss-dev в prod", ["ss-dev", "prod"], []),
        ("дашборд energy-report в prod", ["prod"], []),  # a slug is no environment
        ("покажи «ss-prod отчёт»", [], []),  # nor a quoted title's words
        ("девочки из отдела продаж просят отчёт", [], []),  # words that only start like a tier
        # a fresh check: names with no tier word of their own were replaced by the page's environment silently
        ("задеплой на prod2", [], ["prod2"]),
        ("какие бэкапы на preprod?", [], ["preprod"]),
        ("deploy it to uat", [], ["uat"]),
        ("deploy to qa please", [], ["qa"]),
        ("а что на тесте?", [], ["тесте"]),
        ("dev2 backups", [], ["dev2"]),
        ("run a QA check on this dashboard", [], []),  # QA the activity, not a place
        ("what's on the test dashboard", [], []),
    ],
)
def test_environments_named_and_names_that_are_none(question, named, unknown):
    assert envs_named(question, ACTIVE)[0] == named
    assert unknown_environments_named(question, ACTIVE) == unknown


def test_an_environment_that_does_not_exist_is_said_so_not_replaced(specs, knowledge):  # noqa: F811
    message = step(specs, knowledge, "какие бэкапы есть в ss-prod?", "@ss-dev")
    assert message.tool_calls == []
    expected = text("ru", "There is no environment “%(value)s”. Which one do you mean: %(envs)s?")
    assert message.content == expected % {"value": "ss-prod", "envs": "ss-dev, staging, prod"}


def test_the_dev_tier_in_the_locative_is_the_dev_environment(specs, knowledge):  # noqa: F811
    name, args = only_call(step(specs, knowledge, "что с дашбордом 7 на деве? кто его владелец", "@prod"))
    assert (name, args["env_id"], args["dashboard_id"]) == ("get_health_summary", "ss-dev", 7)


def test_an_environment_that_does_not_exist_is_said_so_with_no_environment_selected(specs, knowledge):  # noqa: F811
    """A fresh check: with no environment selected the answer was «выберите окружение в переключателе»."""
    no_environment = dataclasses.replace(knowledge, not_offered_reason=lambda tool, page: "environment")
    message = step(specs, no_environment, "какие бэкапы есть в ss-prod?", "")
    assert message.tool_calls == []
    assert "ss-prod" in message.content
    assert step(specs, no_environment, "какие бэкапы есть в prod?", "").content == "why:list_backups"


@pytest.mark.parametrize(
    ("question", "where"), [("задеплой на prod2", "dashboard/1@ss-dev"), ("list backups on uat", "@ss-dev")]
)
def test_an_environment_name_without_a_tier_word_is_said_to_be_none(specs, knowledge, question, where):  # noqa: F811
    message = step(specs, knowledge, question, where)
    assert message.tool_calls == []
    assert question.split()[-1] in message.content, message.content


@pytest.mark.parametrize(
    ("previous", "answer", "env"),
    [("какие бэкапы есть в ss-prod?", "prod", "prod"), ("list backups on uat", "in ss-dev", "ss-dev")],
)
def test_the_environment_given_after_no_such_environment_is_taken(specs, knowledge, previous, answer, env):  # noqa: F811
    """A fresh check: «prod» after «Окружения «ss-prod» нет. Какое вы имеете в виду…» asked the same question again
    (the joined request still named ss-prod)."""
    name, args = only_call(step(specs, knowledge, answer, "@ss-dev", previous=previous))
    assert (name, args["env_id"]) == ("list_backups", env)
