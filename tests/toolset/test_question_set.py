"""The labelled router questions (issue 8 item 4) are a fair measuring stick: big enough, both languages, every
DESIGN §8 tool, each expected tool really offered on its page, and no question copied from the texts the router
embeds (that would measure memory, not routing)."""

import hashlib
import re
from collections import Counter

import pytest

from agentchat.runtime.registry import registry
from agentchat.toolset.intents import ROUTER_EXAMPLES
from policies.defaults import ENVIRONMENTS, TOOLS
from tests.support.question_set import (
    BLIND2_PATH,
    BLIND_PATH,
    DEV2_PATH,
    DEV3_PATH,
    DEV4_PATH,
    DEV5_PATH,
    FRESH_PATH,
    HOLDOUT_PATH,
    PATH,
    load_questions,
)

SETS = {
    "main": PATH,
    "holdout": HOLDOUT_PATH,
    "fresh": FRESH_PATH,
    "dev2": DEV2_PATH,
    "dev3": DEV3_PATH,
    "dev4": DEV4_PATH,
    "dev5": DEV5_PATH,
}
# The blind set keeps its writer's labels, some of which name a tool not offered on the page beside one that is.
# Blind set 2 was written to label only offered tools, so the offered-tool check applies to it as well.
ALL_SETS = {**SETS, "blind": BLIND_PATH, "blind2": BLIND2_PATH}
# The fresh set of issue 16 is frozen: written before the planner was generalised, it may never be edited to
# fit the rules. A new phrasing goes into a new file.
FRESH_SHA256 = "7f1a2f08f67cdf2c6badbb3e6bcbca99fc3cabe3be04126e73fe9c845a1fc501"
# The blind set is frozen the same way, and stronger: nobody reads its misses to change a rule (see its header).
# Development set 2 (issue 16) is frozen too: written before the rules were generalised on it; tuned on after.
DEV2_SHA256 = "6e79d0f98e1246c8ae88c7c37063273a461824db455d12f161bbbcd558730cb3"
BLIND_SHA256 = "6f30838856098e125c005291ee768f8db0369b05a2ccd23454acce2e227d0d7f"
# Development set 3 (issue 16): written by someone who had not read the rules, frozen before tuning on it.
# Blind set 2 (issue 16) is frozen like the blind set: never tuned on, only its figures are reported.
BLIND2_SHA256 = "e43ed0aa0cd91f722660211e3a05092c0a97dd7b65e40863023e3f529962d266"
DEV3_SHA256 = "f1316667eb0f791e776e8748decaf63cfbcf3343830a4256a54f06bc6eeee667"
# Development set 4 (issue 16): the same way, weighted towards migration, dataset and no-object pages.
DEV4_SHA256 = "c791786316129e14dc73c134433a842e0afcc4e4cf9df5cfa7c33333f0f78c4e"
# Development set 5 (issue 16): the same way, ~40% migration pages.
DEV5_SHA256 = "c2c7281fce7536b69836ca0e24107ba8344bad1e51bae5a3ab433358069a8b5b"


def offered_by_default(question, tool: str) -> bool:
    """DESIGN §8 defaults for the admin role on the question's page."""
    _category, env_specific, affinities, roles = TOOLS[tool]
    if tool == "show_capabilities":
        return True
    if question.object_type and question.object_type not in affinities:
        return False
    return "admin" in roles and (question.env_id is not None or not env_specific)


def test_main_set_has_150_questions_in_both_languages_for_every_tool():
    questions = load_questions(PATH)
    labelled = [q for q in questions if q.tools]
    russian = [q for q in labelled if re.search(r"[а-яё]", q.q, re.I)]
    per_tool = Counter(tool for q in labelled for tool in set(q.tools))

    assert len(labelled) >= 150
    assert len(russian) >= 60
    assert len(labelled) - len(russian) >= 60
    assert set(per_tool) == set(TOOLS)
    assert min(per_tool.values()) >= 5
    assert sum(1 for q in questions if not q.tools) >= 3  # requests no tool can do


@pytest.mark.parametrize("name", [*SETS, "blind2"])
def test_every_expected_tool_is_offered_on_its_page(name):
    for question in load_questions(ALL_SETS[name]):
        assert question.env_id in (None, *ENVIRONMENTS), question
        assert question.object_type in (None, "dashboard", "dataset", "migration"), question
        assert set(question.first) <= set(question.tools) or not question.tools, question
        for tool in question.tools:
            assert tool in TOOLS, question
            assert offered_by_default(question, tool), question


@pytest.mark.parametrize("name", ALL_SETS)
def test_no_question_repeats_a_text_the_router_embeds_for_its_tool(name):
    """A question equal to an example of its own expected tool would be found by memory. (Equal to another
    tool's example is allowed: «расскажи про этот датасет» is get_dataset_details' example, but on a dataset
    page that tool is not offered and the question must reach superset_explore_database.)"""

    def norm(text: str) -> str:
        return re.sub(r"\W+", " ", text.casefold()).strip()

    embedded: dict[str, set[str]] = {}
    for spec in registry().values():
        for example in (*spec.examples_ru, *spec.examples_en, *ROUTER_EXAMPLES.get(spec.name, ())):
            embedded.setdefault(norm(example), set()).add(spec.name)
    questions = load_questions(ALL_SETS[name])

    assert [q.q for q in questions if embedded.get(norm(q.q), set()) & set(q.tools)] == []
    assert len({norm(q.q) for q in questions}) == len(questions)


@pytest.mark.parametrize("name", ["holdout", "fresh", "dev2", "dev3", "dev4", "dev5", "blind", "blind2"])
def test_held_out_sets_share_no_question_with_the_main_set(name):
    main = {q.q.casefold() for q in load_questions(PATH)}
    assert [q.q for q in load_questions(ALL_SETS[name]) if q.q.casefold() in main] == []


def test_fresh_set_is_frozen():
    assert hashlib.sha256(FRESH_PATH.read_bytes()).hexdigest() == FRESH_SHA256


def test_dev2_set_is_frozen():
    assert hashlib.sha256(DEV2_PATH.read_bytes()).hexdigest() == DEV2_SHA256


def test_dev3_set_is_frozen():
    assert hashlib.sha256(DEV3_PATH.read_bytes()).hexdigest() == DEV3_SHA256


def test_dev4_set_is_frozen():
    assert hashlib.sha256(DEV4_PATH.read_bytes()).hexdigest() == DEV4_SHA256


def test_dev5_set_is_frozen_and_weighted_to_migration_pages():
    assert hashlib.sha256(DEV5_PATH.read_bytes()).hexdigest() == DEV5_SHA256
    questions = load_questions(DEV5_PATH)
    kinds = Counter(q.object_type or "none" for q in questions)
    russian = [q for q in questions if re.search(r"[а-яё]", q.q, re.I)]

    assert len(questions) >= 120
    assert kinds["migration"] >= 0.35 * len(questions)
    assert min(len(russian), len(questions) - len(russian)) >= 40
    assert all(q.read in (True, False) for q in questions)
    labelled = [q for q in questions if q.tools]
    assert [q.q for q in labelled if q.read and any(TOOLS[t][0] != "read" for t in q.first)] == []


def test_blind_set_is_frozen_and_labels_only_known_tools():
    assert hashlib.sha256(BLIND_PATH.read_bytes()).hexdigest() == BLIND_SHA256
    questions = load_questions(BLIND_PATH)
    assert len(questions) >= 150
    assert {t for q in questions for t in q.tools} <= set(TOOLS)
    assert all(q.read in (True, False) for q in questions)


def test_blind2_set_is_frozen_and_big_enough():
    assert hashlib.sha256(BLIND2_PATH.read_bytes()).hexdigest() == BLIND2_SHA256
    assert len(load_questions(BLIND2_PATH)) >= 160


@pytest.mark.parametrize(
    "path",
    [FRESH_PATH, DEV2_PATH, DEV3_PATH, DEV4_PATH, BLIND2_PATH],
    ids=["fresh", "dev2", "dev3", "dev4", "blind2"],
)
def test_fresh_sets_cover_both_languages_every_context_kind_and_say_what_is_a_read(path):
    questions = load_questions(path)
    labelled = [q for q in questions if q.tools]
    russian = [q for q in labelled if re.search(r"[а-яё]", q.q, re.I)]
    kinds = Counter(q.object_type or "none" for q in labelled)

    assert len(labelled) >= 150
    assert min(len(russian), len(labelled) - len(russian)) >= 60
    assert set(kinds) == {"dashboard", "dataset", "migration", "none"}
    assert all(q.read in (True, False) for q in questions)
    # A question labelled as a read expects only read tools first (DESIGN §8 categories).
    assert [q.q for q in labelled if q.read and any(TOOLS[t][0] != "read" for t in q.first)] == []
