"""The system prompt of a turn (DESIGN §5 step 4, §7; issue 16): the page context readable for a small model,
only what could end the data block escaped, and the answer language named for each turn."""

import json
import sys
import unicodedata

import pytest

from agentchat.context.uicontext import BLOCK_BEGIN, BLOCK_END, UNSAFE_CATEGORIES, parse_prompt_block
from agentchat.language import detect_language
from agentchat.turn.prompt import system_prompt

PAGE = {
    "contextVersion": 1,
    "objectType": "dashboard",
    "objectId": "3",
    "objectName": "Обзор регионов <b> & «итоги»",
    "envId": "ss-dev",
    "route": "/dashboards/3",
}


def data_line(prompt: str) -> str:
    return prompt[prompt.index(BLOCK_BEGIN) + len(BLOCK_BEGIN) : prompt.index(BLOCK_END)].strip("\n")


def test_cyrillic_is_written_as_letters_and_only_block_enders_are_escaped():
    line = data_line(system_prompt(PAGE, unavailable=False))

    assert "Обзор регионов" in line
    assert "«итоги»" in line
    assert "\\u04" not in line
    assert "<" not in line
    assert ">" not in line
    assert "&" not in line
    assert "\\u003cb\\u003e \\u0026" in line
    assert "\n" not in line
    assert json.loads(line)["objectName"] == PAGE["objectName"]


def test_a_value_spelling_the_closing_marker_stays_data():
    prompt = system_prompt({**PAGE, "objectName": BLOCK_END}, unavailable=False)

    assert prompt.count(BLOCK_END) == 1
    assert parse_prompt_block(prompt)["objectName"] == BLOCK_END


@pytest.mark.parametrize(
    ("message", "named"),
    [
        ("расскажи про этот дашборд", "write your answers in Russian"),
        ("summarise this dashboard", "write your answers in English"),
    ],
)
def test_the_answer_language_is_named_from_the_message(message, named):
    prompt = system_prompt(PAGE, unavailable=False, language=detect_language(message))

    assert named in prompt
    assert "the language of the user's last message" not in prompt


def test_without_a_language_the_prompt_asks_for_the_users_language():
    assert "the language of the user's last message" in system_prompt(None, unavailable=False)


def test_every_character_the_block_escapes_is_one_str_isprintable_rejects():
    """``context_prompt_block`` skips its per-character pass for a printable line without < > & (issue 17); that is
    exact only while no character of ``UNSAFE_CATEGORIES`` counts as printable in this Python's Unicode data."""
    printable_unsafe = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in UNSAFE_CATEGORIES and chr(code).isprintable()
    ]
    assert printable_unsafe == []


@pytest.mark.parametrize("name", ["<b>", "a&b", "Обзор регионов", "plain ascii", "x > y"])
def test_the_data_line_is_one_printable_line_of_the_name_whichever_pass_wrote_it(name):
    line = data_line(system_prompt({**PAGE, "objectName": name}, unavailable=False))

    assert line.isprintable()
    assert json.loads(line)["objectName"] == name
    assert all(ch not in line for ch in "<>&")
