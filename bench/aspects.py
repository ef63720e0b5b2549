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

import argparse
import asyncio
import io
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.aspects import (  # noqa: E402 - needs ROOT on sys.path
    CLASSES,
    MIGRATION_PLAN,
    AspectQuestion,
    Outcome,
    answer_classify,
    load_aspect_questions,
    patterns_load,
)
from tests.support.processes import fresh_database  # noqa: E402


def _setup(work: Path) -> None:
    """A fresh database, the product's migrations, the demo people (``seed_demo``) acting as themselves."""
    base_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    os.environ["DATABASE_URL"] = fresh_database(base_url, "_bench_aspects")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
    os.environ.setdefault("LLM_PROVIDER", "offline")
    os.environ.update(GIT_REPOS_DIR=str(work / "git"), BACKUP_DIR=str(work / "backups"), LOG_LEVEL="WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", force=True, stdout=io.StringIO())


def _people() -> dict:
    from django.contrib.auth import get_user_model

    from tests.support.people import SignIns

    users = {u.username: u for u in get_user_model().objects.filter(username__in=["analyst", "engineer", "admin"])}
    SignIns().act_as_people(list(users.values()))
    return users


def _pages(questions: list[AspectQuestion], admin) -> dict[tuple, dict]:
    """The UIContext of every page the questions name, ids found in Superset by title / table name."""
    from agentchat.runtime import plans
    from tests.support.contexts import ui_context
    from tests.support.superset_api import dashboards_all, datasets_named

    dashboards = {env: {d["dashboard_title"]: d for d in dashboards_all(env)} for env in ("ss-dev", "prod")}
    contexts: dict[tuple, dict] = {}
    for q in questions:
        key = (q.object_type, q.object_name, q.env_id)
        if key in contexts:
            continue
        if q.object_type == "dashboard":
            row = dashboards[q.env_id][q.object_name]
            object_id, name, route = row["id"], row["dashboard_title"], f"/dashboards/{row['id']}/"
        elif q.object_type == "dataset":
            row = datasets_named(q.env_id, q.object_name)[0]
            object_id, name, route = row["id"], row["table_name"], f"/datasets/{row['id']}/"
        elif q.object_type == "migration":
            energy = dashboards["ss-dev"]["Отчёт по энергопотреблению"]
            plan = plans.migration_create(
                user=admin,
                name=MIGRATION_PLAN,
                source_env_id="ss-dev",
                target_env_id="prod",
                dashboards=[{"id": energy["id"], "uuid": energy["uuid"], "title": energy["dashboard_title"]}],
            )
            object_id, name, route = plan.pk, plan.name, plans.migration_url(plan.pk)
        else:
            object_id, name, route = None, None, "/settings/"
        contexts[key] = ui_context(q.object_type, object_id, env_id=q.env_id, name=name, route=route)
    return contexts


async def _ask(user, text: str, context: dict, timeout_s: float) -> Outcome:
    """One turn; a card it shows is declined afterwards (nothing runs)."""
    from agentchat.turn.agent import AgentTurn
    from tests.support.frames import Frames

    frames = Frames()
    began = time.perf_counter()
    try:
        async with asyncio.timeout(timeout_s):
            await AgentTurn(user=user, emit=frames).run(conversation_id=None, text=text, context=context)
    except TimeoutError:
        frames.append({"event": "error", "code": "bench_timeout", "message": f"no answer within {timeout_s} s"})
    seconds = time.perf_counter() - began
    for card in frames.of("confirm_required"):
        await AgentTurn(user=user, emit=Frames()).decide(confirmation_id=card["confirmation_id"], approve=False)
    messages = frames.of("message")
    return Outcome(
        answer=messages[-1]["text"] if messages else "",
        tools=tuple(f["tool"] for f in frames.of("tool_started")),
        tools_ok=tuple(f["tool"] for f in frames.of("tool_finished") if f.get("ok")),
        cards=tuple(f["tool"] for f in frames.of("confirm_required")),
        denied=tuple(f["tool"] for f in frames.of("permission_denied")),
        errors=tuple(f.get("code", "?") for f in frames.of("error")),
        seconds=seconds,
    )


async def _run_all(questions, users, contexts, timeout_s: float) -> list[Outcome]:
    out = []
    for q in questions:
        context = contexts[(q.object_type, q.object_name, q.env_id)]
        out.append(await _ask(users[q.role], q.q, context, timeout_s))
    return out


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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ids", help="comma-separated row ids (default: all)")
    parser.add_argument("--show-held", action="store_true", help="also show the held rows' classes and answers")
    parser.add_argument("--answers", action="store_true", help="print each shown answer")
    parser.add_argument("--json", type=Path, help="write every row's result to this file")
    parser.add_argument("--turn-timeout", type=float, default=120.0, help="seconds per turn")
    args = parser.parse_args()
    questions = load_aspect_questions()
    if args.ids:
        wanted = set(args.ids.split(","))
        questions = [q for q in questions if q.id in wanted]
    patterns = patterns_load()
    with tempfile.TemporaryDirectory(prefix="bench-aspects-") as work:
        _setup(Path(work))
        from django.conf import settings

        users = _people()
        contexts = _pages(questions, users["admin"])
        began = time.perf_counter()
        outcomes = asyncio.run(_run_all(questions, users, contexts, args.turn_timeout))
        wall = time.perf_counter() - began
    verdicts = [answer_classify(outcome, q.lang, patterns) for q, outcome in zip(questions, outcomes, strict=True)]
    print(
        f"{len(questions)} questions as chat turns, LLM_PROVIDER={settings.LLM_PROVIDER}, "
        f"EMBEDDINGS={settings.EMBEDDINGS}; {wall:.0f} s, load average {os.getloadavg()[0]:.1f}\n"
    )
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
