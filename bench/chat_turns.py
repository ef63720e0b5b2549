"""Questions as real chat turns on the local Superset pair, shared by ``bench/aspects.py`` and ``bench/turns.py``.

Each question is one ``AgentTurn.run`` (the path of the socket's message) with the provider of the environment
(offline unless ``LLM_PROVIDER`` says otherwise), the default policies and the router, as a demo person acting as
their own Superset identity (password mode, DESIGN §15), from a page: a seeded demo dashboard or dataset (found by
title / table name), a saved migration plan ss-dev → prod made here («energy report to prod», the energy
dashboard), or no page. A confirmation card the turn shows is declined afterwards, so nothing changes.
"""

import argparse
import asyncio
import io
import os
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from tests.support.aspects import MIGRATION_PLAN, Outcome
from tests.support.processes import fresh_database

# The frames that show a tool being used: run, asked for on a card, or refused by the policy on a card.
TOOL_FRAMES = ("tool_started", "confirm_required", "permission_denied")


class PageRow(Protocol):
    """What a question row says of its page, who asks and what."""

    id: str
    q: str
    role: str
    object_type: str | None
    object_name: str | None
    env_id: str | None


Row = TypeVar("Row", bound=PageRow)


def bench_parser(description: str) -> argparse.ArgumentParser:
    """The options both benches take: ``--set``, ``--ids``, ``--answers``, ``--json``, ``--turn-timeout``,
    ``--show-held``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--set", type=Path, help="another frozen set of the same format (default: the bench's own)")
    parser.add_argument("--ids", help="comma-separated row ids (default: all)")
    parser.add_argument("--answers", action="store_true", help="print each shown answer")
    parser.add_argument("--json", type=Path, help="write every shown row's result to this file")
    parser.add_argument("--turn-timeout", type=float, default=120.0, help="seconds per turn")
    parser.add_argument("--show-held", action="store_true", help="also show the held rows' lines and answers")
    return parser


def bench_run(rows: Sequence[Row], ids: str | None, suffix: str, timeout_s: float) -> tuple[list[Row], list]:
    """Run the rows named by ``ids`` (comma-separated; None: all) as chat turns in a fresh database ``…<suffix>``;
    print the run's line (count, provider, router, wall seconds, load); return the rows and their ``Outcome``s."""
    chosen = [r for r in rows if not ids or r.id in set(ids.split(","))]
    with tempfile.TemporaryDirectory(prefix=f"bench{suffix}-") as work:
        bench_setup(Path(work), suffix)
        from django.conf import settings

        users = bench_people()
        contexts = bench_pages(chosen, users["admin"])
        began = time.perf_counter()

        async def run_all() -> list:
            return [await bench_ask(users[r.role], r.q, contexts[page_key(r)], timeout_s) for r in chosen]

        outcomes = asyncio.run(run_all())
        wall = time.perf_counter() - began
    print(
        f"{len(chosen)} questions as chat turns, LLM_PROVIDER={settings.LLM_PROVIDER}, "
        f"EMBEDDINGS={settings.EMBEDDINGS}; {wall:.0f} s, load average {os.getloadavg()[0]:.1f}\n"
    )
    return chosen, outcomes


def bench_setup(work: Path, suffix: str) -> None:
    """A fresh database ``<DATABASE_URL's name><suffix>``, the product's migrations, the demo people
    (``seed_demo``); git repositories and backups under ``work``."""
    base_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    os.environ["DATABASE_URL"] = fresh_database(base_url, suffix)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
    os.environ.setdefault("LLM_PROVIDER", "offline")
    os.environ.update(GIT_REPOS_DIR=str(work / "git"), BACKUP_DIR=str(work / "backups"), LOG_LEVEL="WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", force=True, stdout=io.StringIO())


def bench_people() -> dict[str, Any]:
    """The demo users by username, each acting as their own Superset identity on the pair."""
    from django.contrib.auth import get_user_model

    from tests.support.people import SignIns

    users = {u.username: u for u in get_user_model().objects.filter(username__in=["analyst", "engineer", "admin"])}
    SignIns().act_as_people(list(users.values()))
    return users


def page_key(row: PageRow) -> tuple:
    """The key of a row's page in ``bench_pages``' answer."""
    return (row.object_type, row.object_name, row.env_id)


def bench_pages(rows: list[PageRow], admin: Any) -> dict[tuple, dict | None]:
    """The UIContext of every page the rows name (``page_key``), ids found in Superset by title / table name (in
    ss-dev when the page has no environment picked: the context then carries none)."""
    from agentchat.runtime import plans
    from tests.support.contexts import ui_context
    from tests.support.superset_api import dashboards_all, datasets_named

    dashboards = {env: {d["dashboard_title"]: d for d in dashboards_all(env)} for env in ("ss-dev", "prod")}
    contexts: dict[tuple, dict | None] = {}
    plan = None
    for row in rows:
        key = page_key(row)
        if key in contexts:
            continue
        if row.object_type == "dashboard":
            found = dashboards[row.env_id or "ss-dev"][row.object_name]
            object_id, name, route = found["id"], found["dashboard_title"], f"/dashboards/{found['id']}/"
        elif row.object_type == "dataset":
            found = datasets_named(row.env_id or "ss-dev", row.object_name)[0]
            object_id, name, route = found["id"], found["table_name"], f"/datasets/{found['id']}/"
        elif row.object_type == "migration":
            if plan is None:
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
        contexts[key] = ui_context(row.object_type, object_id, env_id=row.env_id, name=name, route=route)
    return contexts


async def bench_ask(user: Any, text: str, context: dict | None, timeout_s: float) -> Outcome:
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
    except Exception as exc:  # noqa: BLE001 - a turn that raises is a miss of its row, not the end of the run
        # (the chat consumer answers it «internal»; a held set's run had stopped on one row)
        frames.append({"event": "error", "code": "internal", "message": f"{type(exc).__name__}: {exc}"})
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
        steps=tuple(f["tool"] for f in frames if f.get("event") in TOOL_FRAMES),
        seconds=seconds,
    )
