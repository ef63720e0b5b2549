"""Issue 29, Must show 2: questions whose asked aspect no tool serves — is any answered with a generic answer?

Every question of the frozen set ``tests/data/aspects_unserved.yaml`` (``tests/support/aspects.py``) is sent as a
real chat turn: ``AgentTurn.run`` (the same path as the socket's message) with the provider of the environment
(offline unless ``LLM_PROVIDER`` says otherwise), the default policies, the router and the real local Superset pair,
as the demo person the row names (admin unless given), acting as that person's own Superset identity (password
mode, DESIGN §15), from the row's page: a seeded demo dashboard or dataset (found by title / table name), a saved
migration plan ss-dev → prod that this bench creates («energy report to prod», the energy dashboard), or no page.
A confirmation card the turn shows is declined, so nothing changes.

The final answer (its message text, the tools called, cards, refusals, errors) is classified by
``tests/support/aspects.py`` ``answer_classify`` with the patterns of ``tests/data/aspects_patterns.yaml``:

- ``good``: a sentence says the asked thing cannot be served, and the answer names what can be done instead;
- ``generic``: a summary, listing or card of another operation, with no sentence saying that the asked thing
  was not served — the failure the issue counts (Must show: 0);
- ``other``: anything else (a question back, a refusal naming nothing the product can do, a page runaround for an
  aspect no page serves, an error).

Each question's class is printed with the reason the classifier gave; then counts per class, per language, per
page kind and per kind (question / action), and the generic ones. Rows marked ``held`` are counted, never shown
(``--show-held`` shows them; do not read their misses while changing the planner).

Run from the repository root (needs PostgreSQL — the database ``<DATABASE_URL's name>_bench_aspects`` is dropped
and created — and the local Superset pair, ``make superset``):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agentchat .venv/bin/python bench/aspects.py \
        [--ids d01,s03] [--show-held] [--answers] [--json FILE]

``--answers`` prints each shown answer's text too; ``--json`` writes each shown row's result (its answer, tools,
cards, class) to a file for a later look. Loopback only; bounded: one turn per question, each within
``--turn-timeout`` seconds.
"""

import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.chat_turns import bench_parser, bench_run  # noqa: E402
from tests.support.aspects import (  # noqa: E402 - needs ROOT on sys.path
    CLASSES,
    PATH,
    answer_classify,
    load_aspect_questions,
    patterns_load,
)


def _line(verdicts: list) -> str:
    c = Counter(v.cls for v in verdicts)
    return ", ".join(f"{cls} {c[cls]}" for cls in CLASSES)


def _counts(title: str, rows: list[tuple[str, object]]) -> None:
    """Print the class counts per group: rows are (group, Verdict)."""
    print(f"\n{title}:")
    for group in sorted({g for g, _ in rows}):
        verdicts = [v for g, v in rows if g == group]
        print(f"  {group:<10} {len(verdicts):>3}: {_line(verdicts)}")


def _report(questions, outcomes, verdicts, show_held: bool, answers: bool) -> None:
    """Every shown row's class and reason, then the counts and the generic rows."""
    rows = list(zip(questions, outcomes, verdicts, strict=True))
    print(f"{'id':<4} {'class':<8} {'page':<9} {'lang':<4} reason | question")
    for q, outcome, v in rows:
        if q.held and not show_held:
            continue
        print(f"{q.id:<4} {v.cls:<8} {q.page_kind:<9} {q.lang:<4} {v.reason} | {q.q}")
        if answers:
            print("       " + outcome.answer.replace("\n", "\n       ")[:1500])
    print(f"\nall rows ({len(rows)}): {_line(verdicts)}")
    for part, held in (("shown", False), ("held", True)):
        part_verdicts = [v for q, _, v in rows if q.held == held]
        if part_verdicts:
            print(f"  {part} rows ({len(part_verdicts)}): {_line(part_verdicts)}")
    for cls in CLASSES:
        how = Counter(v.how for v in verdicts if v.cls == cls)
        if how:
            print(f"  {cls} by how: " + ", ".join(f"{name} {n}" for name, n in how.most_common()))
    _counts("per language", [(q.lang, v) for q, _, v in rows])
    _counts("per page kind", [(q.page_kind, v) for q, _, v in rows])
    _counts("per kind", [(q.kind, v) for q, _, v in rows])
    generic = [q for q, _, v in rows if v.cls == "generic"]
    print(f"\ngeneric answers: {len(generic)} (held among them: {sum(q.held for q in generic)})")
    for q in generic:
        if not q.held or show_held:
            print(f"  {q.id} [{q.page_kind}, {q.lang}] {q.q}")


def main() -> None:
    parser = bench_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    patterns = patterns_load()
    questions, outcomes = bench_run(
        load_aspect_questions(args.set or PATH), args.ids, "_bench_aspects", args.turn_timeout
    )
    verdicts = [answer_classify(outcome, q.lang, patterns) for q, outcome in zip(questions, outcomes, strict=True)]
    _report(questions, outcomes, verdicts, args.show_held, args.answers)
    if args.json:
        rows = [
            {"id": q.id, "class": v.cls, "how": v.how, "reason": v.reason, **outcome.as_dict()}
            for q, outcome, v in zip(questions, outcomes, verdicts, strict=True)
            if args.show_held or not q.held
        ]
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
