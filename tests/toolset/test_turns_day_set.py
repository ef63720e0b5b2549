"""The day set of issue 29 (``tests/data/turns_day.yaml``) is a fair measuring stick for ``bench/turns.py``.

It was written by the issue-29 helper and frozen before any code change of issue 29; it is not blind (its writer
had read the planner), so only figures measured without tuning on it are reported.
"""

import hashlib
from collections import Counter

from policies.defaults import ROLES, TOOLS
from tests.support.aspects import MIGRATION_PLAN, PAGE_KINDS
from tests.support.turns_day import NO_TOOL, PATH, load_day_questions

TURNS_DAY_SHA256 = "91cbb3118a1d450335c9471e508db8b640af75d415c623140b7274f8694f0235"
DEMO_PAGES = {
    "dashboard": {"Отчёт по энергопотреблению", "Обзор регионов"},
    "dataset": {"energy_consumption", "regions"},
    "migration": {MIGRATION_PLAN},
    "none": {None},
}


def test_day_set_is_frozen():
    assert hashlib.sha256(PATH.read_bytes()).hexdigest() == TURNS_DAY_SHA256


def test_day_set_is_big_enough_in_both_languages_on_every_page_kind():
    questions = load_day_questions()
    languages = Counter(q.lang for q in questions)

    assert len(questions) >= 60
    assert languages["ru"] > languages["en"] >= 20
    assert {q.page_kind for q in questions} == set(PAGE_KINDS)
    assert len({q.id for q in questions}) == len(questions)
    assert len({(q.q, q.page_kind, q.env_id, q.role) for q in questions}) == len(questions)
    assert {q.item for q in questions} == {"1", "2", "3", "4", "5", "6", "day"}


def test_day_set_names_real_pages_roles_and_tools():
    questions = load_day_questions()

    assert [q.id for q in questions if q.object_name not in DEMO_PAGES[q.page_kind]] == []
    assert {q.env_id for q in questions} <= {"ss-dev", "prod", None}
    assert {q.role for q in questions} <= set(ROLES)
    assert {t for q in questions for t in (*q.first, *q.reach)} <= {*TOOLS, NO_TOOL}
    assert [q.id for q in questions if not q.first] == []
    assert [q.id for q in questions if NO_TOOL in q.reach] == []
