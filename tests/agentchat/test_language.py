"""``detect_language``: Russian first; code, SQL and identifiers do not make a Russian sentence English."""

import pytest

from agentchat.language import detect_language


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("расскажи про этот дашборд", "ru"),
        ("tell me about this dashboard", "en"),
        ("создай ветку feature/energy-report", "ru"),
        ("сколько строк в energy_consumption на ss-dev?", "ru"),
        ("SELECT count(*) FROM energy_consumption", "en"),  # nothing but SQL: counted as it is
        ("выполни SELECT region, sum(value) FROM energy GROUP BY region", "ru"),
        ("what is in `таблица`?", "en"),
        ("", "ru"),
        ("12345", "ru"),
        # long input (the message limit is 8,000 characters): one unbroken word, many short words, one long
        # identifier — each decided by its letters
        ("ф" * 7990, "ru"),
        ("а б " * 1990, "ru"),
        ("x" * 7990, "en"),
        ("please check " + "a-" * 3990, "en"),
        ("проверь " + "x_" * 3990, "ru"),
    ],
)
def test_language_of_a_message(text, expected):
    assert detect_language(text) == expected
