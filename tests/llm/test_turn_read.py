"""The offline planner reads the answer to its own question as the rest of the request (issue 16 review: its
questions go on after the "?", «В какое окружение? Напишите, например, «в prod» …», and «в prod» was read alone,
in English)."""

import pytest
from django.utils import translation
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from agentchat.language import detect_language
from agentchat.llm.offline.model import turn_read
from agentchat.turn.prompt import system_prompt
from tests.support.contexts import DASHBOARD_1
from tests.support.wording import text


def messages(question: str, asked: str, answer: str) -> list:
    return [
        SystemMessage(content=system_prompt(DASHBOARD_1, unavailable=False, language="ru")),
        HumanMessage(content=question),
        AIMessage(content=asked),
        HumanMessage(content=answer),
    ]


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_answer_to_the_planner_s_question_continues_the_request(language):
    with translation.override(language):
        asked = text(language, "To which environment? Write, for example, “to prod”.")
    question = {"ru": "задеплой этот дашборд", "en": "deploy this dashboard"}[language]
    answer = {"ru": "в prod", "en": "to prod"}[language]
    assert not asked.rstrip().endswith("?")  # what the old check required

    turn = turn_read(messages(question, asked, answer), tools=None)

    assert turn.previous_question == question
    assert turn.language == language


def test_an_answer_that_asked_nothing_starts_a_new_request():
    turn = turn_read(messages("что на этом дашборде?", "На дашборде 3 графика.", "в prod"), tools=None)
    assert turn.previous_question == ""


@pytest.mark.parametrize(
    ("message", "language"),
    [("в prod", "ru"), ("на staging", "ru"), ("и dev тоже", "ru"), ("to prod", "en"), ("deploy it to prod", "en")],
)
def test_a_short_russian_word_standing_alone_makes_the_message_russian(message, language):
    assert detect_language(message) == language
