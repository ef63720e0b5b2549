"""The load itself: N chats on WebSockets, each sending one message per ``interval``; frames attributed to turns."""

import asyncio
import json
import random
import time
import uuid
from collections import deque
from dataclasses import dataclass, field

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.support.contexts import DASHBOARD_1

CONTEXT = DASHBOARD_1
CONNECT_CONCURRENCY = 50


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
    close_code: int | None = None


async def open_socket(url: str, origin: str, cookie: str | None, gate: asyncio.Semaphore):
    async with gate:
        headers = {"Cookie": cookie} if cookie else {}
        return await connect(url, origin=origin, additional_headers=headers, ping_interval=None, max_queue=None)


async def agent_reader(ws, client: Client) -> None:
    """Attribute frames to turns in order: ``conversation`` starts the next one, ``message`` ends it; an ``error``
    ``busy`` refuses the oldest waiting message (it comes without a ``conversation`` frame); the socket's close
    code is kept (1011: the consumer crashed)."""
    try:
        async for raw in ws:
            _agent_frame(client, json.loads(raw), time.monotonic())
    finally:
        client.close_code = ws.close_code


def _agent_frame(client: Client, frame: dict, now: float) -> None:
    client.frames += 1
    event = frame.get("event")
    if event == "conversation":
        client.conversation_id = frame["conversation_id"]
        client.current = client.waiting.popleft() if client.waiting else None
    elif event == "error" and client.current is None:
        turn = client.waiting.popleft() if client.waiting else None
        if turn is not None:  # refused before it started (``busy``) or failed before its conversation frame
            turn.error, turn.final = frame.get("code", "error"), now
    elif client.current is None:
        return
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


async def settle(server_cpu, quiet_s: float = 0.5, share: float = 0.05, bound_s: float = 60.0) -> float:
    """Wait until the server is idle: its CPU over ``quiet_s`` below ``share`` of one core, at most ``bound_s``.

    ``server_cpu``: a function returning the server process's CPU seconds so far (``figures.cpu_seconds``). After
    N handshakes the server still works on each socket it accepted (its groups joined in Redis, the session
    primed: about 10 ms each on the 2-core machine), so 1,000 sockets keep it busy for seconds after the last
    accept; the turns are measured after that. Returns the seconds waited."""
    began = time.monotonic()
    before = server_cpu()
    while time.monotonic() - began < bound_s:
        await asyncio.sleep(quiet_s)
        now = server_cpu()
        if now - before < share * quiet_s:
            break
        before = now
    return time.monotonic() - began


async def run_clients(
    kind: str, url: str, origin: str, cookies: list, args, during=None, measure=None, server_cpu=None
) -> dict:
    """Connect every client, then each sends one message per ``interval`` for ``duration`` s from a random offset;
    wait at most ``drain`` s for the last answers. ``during``: a coroutine function ``(start) -> dict`` run beside
    the sending (the outage mode), its result under ``"during"``. ``measure``: a function called once every socket
    is open and once the last answer came, before the sockets close (its two results under ``"measured"``), so
    what the server spends on handshakes and closes is not charged to the turns. ``server_cpu``: the server's CPU
    seconds so far; given, the sending starts once the server has settled after the handshakes (``settle``)."""
    gate = asyncio.Semaphore(CONNECT_CONCURRENCY)
    clients = [Client(cookie=c) for c in cookies]
    sockets = await asyncio.gather(*(open_socket(url, origin, c.cookie, gate) for c in clients))
    reader = agent_reader if kind == "agent" else echo_reader
    readers = [asyncio.create_task(reader(ws, c)) for ws, c in zip(sockets, clients, strict=True)]
    await asyncio.sleep(0.2)  # the server's work after each handshake (groups joined, timers) is done
    if server_cpu is not None:
        await settle(server_cpu)
    measured = [await asyncio.to_thread(measure)] if measure else []  # sync: Django and /proc reads
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
            try:
                await ws.send(json.dumps(frame, ensure_ascii=False))
            except ConnectionClosed:  # the server closed the socket: what is unanswered counts as lost
                return
            k += 1

    began = time.monotonic()
    side = asyncio.create_task(during(start)) if during else None
    await asyncio.gather(*(talk(ws, c, rng.uniform(0, args.interval)) for ws, c in zip(sockets, clients, strict=True)))
    during_result = await side if side else {}
    deadline = time.monotonic() + args.drain
    pending = lambda: any(t.final is None and not t.error for c in clients for t in c.turns)  # noqa: E731
    while time.monotonic() < deadline and pending():  # noqa: ASYNC110 - polling bounded by the drain deadline
        await asyncio.sleep(0.1)
    elapsed = time.monotonic() - began
    if measure:
        measured.append(await asyncio.to_thread(measure))
    for task in readers:
        task.cancel()
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    turns = [t for c in clients for t in c.turns]
    closes = [c.close_code for c in clients if c.close_code not in (None, 1000)]
    frames = sum(c.frames for c in clients)
    return {
        "turns": turns,
        "frames": frames,
        "elapsed": elapsed,
        "abnormal_closes": closes,
        "during": during_result,
        "measured": measured,
    }
