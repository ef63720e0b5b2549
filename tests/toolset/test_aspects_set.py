"""The set of questions whose asked aspect no tool serves (issue 29, Must show 2) is a fair measuring stick.

``tests/data/aspects_unserved.yaml`` was written by helper h29set and frozen before any change of issue 29 (before
anyone changed the planner for that issue), without reading the offline planner, its intents, its reading, its
labelled examples or the router question sets. It is a development check, not a blind set: the misses of its rows
may be read, except those of the rows marked ``held: true`` (every third row of each page kind), whose figure alone
is reported (``bench/aspects.py`` prints only their counts unless run with ``--show-held``).
"""

import hashlib
from collections import Counter

import pytest

from policies.defaults import TOOLS
from tests.support.aspects import (
    MIGRATION_PLAN,
    PAGE_KINDS,
    PATH,
    Outcome,
    answer_classify,
    load_aspect_questions,
    patterns_load,
)

ASPECTS_SHA256 = "59d36888947da85a85476768752538a447089d15de41f3594a3c886aaad66e69"
DEMO_DASHBOARDS = {"Отчёт по энергопотреблению", "Обзор регионов"}
DEMO_DATASETS = {"energy_consumption", "regions"}


def test_aspects_set_is_frozen():
    assert hashlib.sha256(PATH.read_bytes()).hexdigest() == ASPECTS_SHA256


def test_aspects_set_is_big_enough_in_both_languages_on_every_page_kind():
    questions = load_aspect_questions()
    languages = Counter(q.lang for q in questions)
    kinds = Counter(q.page_kind for q in questions)

    assert len(questions) >= 60
    assert set(languages) == {"ru", "en"}
    assert languages["ru"] > languages["en"] >= 20
    assert set(kinds) == set(PAGE_KINDS)
    assert min(kinds.values()) >= 10
    assert len({q.id for q in questions}) == len({q.q.casefold() for q in questions}) == len(questions)
    assert 0 < sum(q.held for q in questions) < len(questions) / 2


def test_aspects_set_names_real_pages_roles_and_tools():
    questions = load_aspect_questions()
    names = {
        "dashboard": DEMO_DASHBOARDS,
        "dataset": DEMO_DATASETS,
        "migration": {MIGRATION_PLAN},
        "none": {None},
    }

    assert [q.id for q in questions if q.object_name not in names[q.page_kind]] == []
    assert {q.env_id for q in questions} <= {"ss-dev", "prod", None}
    assert {q.role for q in questions} <= {"analyst", "engineer", "admin"}
    assert {q.kind for q in questions} == {"question", "action"}
    assert {tool for q in questions for tool in q.offer} <= set(TOOLS)


SUMMARY_RU = (
    "Дашборд «Отчёт по энергопотреблению» (id 1, окружение ss-dev) — опубликован.\n"
    "Графики (3):\n- Потребление по месяцам (echarts_timeseries_line)\n"
    "Владельцы: admin\nПоследнее изменение: 03.12.2026 21:02 MSK (admin)\n"
    "Git: не удалось проверить: Superset недоступен (prod: HTTP 500), повторите позже.\n"
    "Последняя проверка: проверок ещё не было"
)
SUMMARY_EN = (
    "Dashboard “Обзор регионов” (id 2, environment ss-dev) is published.\nLatest validation: no validation has run yet"
)


@pytest.mark.parametrize(
    ("lang", "outcome", "expected"),
    [
        # A summary in place of "who viewed it": its own «не удалось проверить» line is no refusal.
        ("ru", Outcome(answer=SUMMARY_RU, tools_ok=("get_health_summary",)), "generic"),
        ("en", Outcome(answer=SUMMARY_EN, tools_ok=("get_health_summary",)), "generic"),
        # A card for another operation, no word that the asked one is not done.
        ("ru", Outcome(answer="", cards=("create_branch",)), "generic"),
        (
            "ru",
            Outcome(
                answer="Кто смотрел дашборд, Superset не хранит. Могу показать владельцев и последнее изменение:\n"
                + SUMMARY_RU,
                tools_ok=("get_health_summary",),
            ),
            "good",
        ),
        (
            "en",
            Outcome(
                answer="I can't tell who viewed it: Superset does not keep a view log.\n\n" + SUMMARY_EN,
                tools_ok=("get_health_summary",),
            ),
            "good",
        ),
        (
            "en",
            Outcome(
                answer="I cannot do that (“Roll back”): I have no tool for it.\n\nHere I can do:\n- Migration preview"
            ),
            "good",
        ),
        ("ru", Outcome(answer="Этого я сделать не могу: у меня нет такого инструмента."), "other"),  # names nothing
        ("en", Outcome(answer="I can't do that."), "other"),
        ("ru", Outcome(answer="Укажите номер задачи, например «задача 12»."), "other"),
        ("en", Outcome(answer="Which dashboard do you mean? Give its id or its name in quotes."), "other"),
        ("ru", Outcome(answer="Со страницы дашборда это недоступно. Откройте агента из настроек."), "other"),
        ("ru", Outcome(answer="Не получилось: Superset запрещает: Forbidden", errors=("superset_denied",)), "other"),
    ],
)
def test_answer_classifier_tells_a_refusal_that_helps_from_a_generic_answer(lang, outcome, expected):
    verdict = answer_classify(outcome, lang, patterns_load())

    assert verdict.cls == expected, verdict.reason
