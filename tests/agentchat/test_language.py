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
        ("SELECT count(*) FROM energy_consumption", "ru"),  # nothing but SQL: the UI's first language
        ("выполни SELECT region, sum(value) FROM energy GROUP BY region", "ru"),
        ("what is in `таблица`?", "en"),
        ("create a branch please", "en"),  # English prose with SQL words is not SQL
        ("delete the old backups and update me", "en"),
        ("select the best dashboard", "en"),
        ("выполни WITH t AS (SELECT 1) SELECT * FROM t", "ru"),
        ("DELETE FROM energy", "ru"),
        # a quoted name is the object's, not the writer's: an English question about a Russian-named dashboard
        ("show charts of «Отчёт по энергопотреблению»", "en"),
        ('tell me about "Обзор регионов"', "en"),
        ("what is on “Обзор регионов”?", "en"),
        ("deploy „Обзор регионов“ to prod", "en"),
        ("покажи графики «Energy report»", "ru"),
        ("«Отчёт по энергопотреблению»", "ru"),  # nothing outside the quotes: decided by what is inside
        ('"tell me about this dashboard"', "en"),
        ("", "ru"),
        ("12345", "ru"),
        # a language asked for in so many words is the answer's, whatever the rest is written in
        ("And in English please: сколько всего потреблено в 2024?", "en"),
        ("на английском, пожалуйста: сколько газа?", "en"),
        ("answer in Russian: how much gas was used?", "ru"),
        ("ответь по-русски: what changed?", "ru"),
        ("переведи по-английски", "en"),
        # English around Russian names only (capitalised, or the words of a capitalised title): English
        ("avg_price for Республика Татарстан in 2025?", "en"),
        ("who pushed Обзор регионов to prod?", "en"),
        ("show Москва и Питер", "ru"),  # «и» is a Russian word of prose
        # long input (the message limit is 8,000 characters): one unbroken word, many short words, one long
        # identifier — each decided by its letters
        ("ф" * 7990, "ru"),
        ("а б " * 1990, "ru"),
        ("x" * 7990, "en"),
        ("feature/energy-report", "ru"),
        ("please check " + "a-" * 3990, "en"),
        ("проверь " + "x_" * 3990, "ru"),
        # English prose around a Russian name typed without quotes (aspects_unserved2 d19, n13 were answered in
        # Russian); a Russian request with English words stays Russian.
        ("can u give me a permalink to this dashboard with the Москва filter already applied?", "en"),
        ("create an alert: ping me when monthly consumption in Москва goes over 500k MWh", "en"),
        ("who pushed Обзор регионов to prod last, and did it go through?", "en"),
        ("задеплой dashboard energy report в prod", "ru"),
        ("покажи last deploy history for prod please", "ru"),
        ("сделай backup of ss-dev and prod today", "ru"),
    ],
)
def test_language_of_a_message(text, expected):
    assert detect_language(text) == expected
