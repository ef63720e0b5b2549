"""Issue 29: a BI engineer's day as chat turns — the right first tool, and the expected tool reached within the turn.

Every question of the frozen day set ``tests/data/turns_day.yaml`` (``tests/support/turns_day.py``) is sent as a
real chat turn on the local Superset pair (``bench/chat_turns.py``: ``AgentTurn.run``, the provider of the
environment — offline unless ``LLM_PROVIDER`` says otherwise —, the default policies and the router, as the row's
demo person acting as their own Superset identity, from the row's page; a card is declined, so nothing changes).

- right first tool: the first tool the turn used (run, asked for on a confirmation card, or refused by the policy
  on a «Недостаточно прав» card) is one of the row's ``first``; with no tool used, right when ``first`` has
  ``none`` (an honest answer without a call, such as «staging здесь не активно»);
- expected tool reached: one of the row's ``reach`` tools was used within the turn (rows whose right answer calls
  no tool count when no tool was used).

It prints each row (its first tool, the tools used, right / reached), then both figures over all rows, per
language, per page kind and per Build item of issue 29. Run from the repository root (PostgreSQL — the database
``<DATABASE_URL's name>_bench_turns`` is dropped and created — and the local pair, ``make superset``):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agentchat .venv/bin/python bench/turns.py \
        [--set FILE] [--ids t01,t02] [--answers] [--show-held] [--json FILE]

``--set`` runs another frozen set of the same format (``tests/data/turns_day2.yaml``: written later, from the
user's side; its ``held`` rows are counted, and shown only with ``--show-held``).

Loopback only; bounded: one turn per question, each within ``--turn-timeout`` seconds.
"""

import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.chat_turns import bench_parser, bench_run  # noqa: E402
from tests.support.aspects import Outcome  # noqa: E402 - needs ROOT on sys.path
from tests.support.turns_day import NO_TOOL, PATH, DayQuestion, load_day_questions  # noqa: E402


def judged(q: DayQuestion, outcome: Outcome) -> tuple[bool, bool]:
    """``(right first tool, expected tool reached)`` of one turn (see the module docstring)."""
    used = outcome.steps
    if not used:
        return NO_TOOL in q.first, not q.reach or NO_TOOL in q.reach
    return used[0] in q.first, bool(set(q.reach) & set(used)) or not q.reach


def _figures(title: str, rows: list[tuple[str, bool, bool]]) -> None:
    """Print right-first and reached shares per group: rows are (group, right, reached)."""
    print(f"\n{title}:")
    groups: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
    for group, right, reached in rows:
        groups[group].append((right, reached))
    for group in sorted(groups):
        marks = groups[group]
        n = len(marks)
        firsts, reaches = sum(r for r, _ in marks), sum(r for _, r in marks)
        print(f"  {group:<10} {n:>3}: first {firsts / n:.3f} ({firsts}/{n})  reached {reaches / n:.3f} ({reaches}/{n})")


def main() -> None:
    parser = bench_parser(__doc__.splitlines()[0])
    args = parser.parse_args()
    questions, outcomes = bench_run(load_day_questions(args.set or PATH), args.ids, "_bench_turns", args.turn_timeout)
    marks = [judged(q, o) for q, o in zip(questions, outcomes, strict=True)]
    print(f"{'id':<4} {'first':<5} {'reach':<5} {'page':<9} {'role':<8} used | question")
    for q, o, (right, reached) in zip(questions, outcomes, marks, strict=True):
        if q.held and not args.show_held:
            continue
        used = ",".join(o.steps) or NO_TOOL
        marks_text = f"{'ok' if right else 'MISS':<5} {'ok' if reached else 'MISS':<5}"
        print(f"{q.id:<4} {marks_text} {q.page_kind:<9} {q.role:<8} {used} | {q.q}")
        if args.answers:
            print("       " + o.answer.replace("\n", "\n       ")[:1500])
    _figures("all rows", [("all", r, h) for r, h in marks])
    if any(q.held for q in questions):
        _figures(
            "shown and held rows",
            [("held" if q.held else "shown", r, h) for q, (r, h) in zip(questions, marks, strict=True)],
        )
    _figures("per language", [(q.lang, r, h) for q, (r, h) in zip(questions, marks, strict=True)])
    _figures("per page kind", [(q.page_kind, r, h) for q, (r, h) in zip(questions, marks, strict=True)])
    _figures("per Build item of issue 29", [(q.item, r, h) for q, (r, h) in zip(questions, marks, strict=True)])
    if args.json:
        rows = [
            {"id": q.id, "right_first": r, "reached": h, **o.as_dict()}
            for q, o, (r, h) in zip(questions, outcomes, marks, strict=True)
            if args.show_held or not q.held
        ]
        args.json.write_text(json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
