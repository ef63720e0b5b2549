"""A chat page as ``frontend/js/agent.js`` behaves on the wire (issue 31 item 3), for the fault tests of the
production shape: real WebSockets through nginx, a client id per message, a reconnect when the socket drops
(bounded), then ``resume`` with the conversation and the ids of the messages it heard nothing final about.

Every message's fate is kept (``Sent``) and summed up as the issue counts it (``Ledger``): answered (its turn
ended here, or ``resume`` found its answer), failed with a resend offered (an ``error`` naming it, or a
``turn_state`` interrupted / failed / not_received), duplicated (two answers, or an answer and a failure), lost
(none of these by the end).
"""

import asyncio
import json
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

FAILED_STATES = ("interrupted", "failed", "not_received")


@dataclass
class Sent:
    """One message the page sent: its answers (message ids), turn ends seen, failures offered for resend."""

    client_id: str
    text: str
    answers: set[int] = field(default_factory=set)
    ends: int = 0
    failures: list[str] = field(default_factory=list)


@dataclass
class Ledger:
    """The counts of the issue: messages sent / answered / failed with a resend / duplicated / lost."""

    sent: int = 0
    answered: int = 0
    failed: int = 0
    duplicated: int = 0
    lost: int = 0
    reasons: dict[str, int] = field(default_factory=dict)

    def add(self, message: Sent) -> None:
        self.sent += 1
        for reason in message.failures:
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
        if len(message.answers) > 1 or message.ends > 1 or (message.ends and message.failures):
            self.duplicated += 1
        elif message.ends:
            self.answered += 1
        elif message.failures:
            self.failed += 1
        else:
            self.lost += 1

    def line(self, name: str) -> str:
        return (
            f"{name}: messages sent {self.sent} / answered {self.answered} / failed-with-resend {self.failed} "
            f"{self.reasons or ''} / duplicated {self.duplicated} / lost {self.lost}"
        )


class PageClient:
    """One chat tab.

    Args:
        base_url: nginx's ``http://127.0.0.1:<port>``; the socket is ``ws://…/ws/agent/`` with that Origin.
        cookie: the session's ``Cookie`` header value.
        context: the UIContext sent with each message (None: no page context).
        reconnect_s: how long a dropped socket is retried (every 0.2 s) before the page gives up.
    """

    def __init__(self, base_url: str, cookie: str, *, context: dict | None = None, reconnect_s: float = 30.0):
        self.base_url = base_url
        self.cookie = cookie
        self.context = context
        self.reconnect_s = reconnect_s
        self.conversation_id: int | None = None
        self.sent: dict[str, Sent] = {}
        self.outstanding: set[str] = set()
        self.frames: list[dict[str, Any]] = []
        self.cards: list[int] = []
        self.close_codes: list[int | None] = []
        self.reconnects = 0
        self.ended = False  # the session ended (4401): no reconnect
        self._ws: ClientConnection | None = None
        self._open = asyncio.Event()
        self._turn: str | None = None
        self._reader: asyncio.Task | None = None

    async def start(self) -> "PageClient":
        await self._connect(resume=False)
        self._reader = asyncio.create_task(self._read())
        return self

    async def _connect(self, *, resume: bool) -> None:
        host = self.base_url.split("//", 1)[1]
        deadline = time.monotonic() + self.reconnect_s
        while True:
            try:
                self._ws = await connect(
                    f"ws://{host}/ws/agent/", origin=self.base_url, additional_headers={"Cookie": self.cookie}
                )
                break
            except (OSError, InvalidStatus, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)
        if resume and (self.conversation_id or self.outstanding):
            frame = {"type": "resume", "conversation_id": self.conversation_id, "client_ids": sorted(self.outstanding)}
            await self._ws.send(json.dumps(frame))
        self._open.set()

    async def _read(self) -> None:
        while True:
            ws = self._ws
            assert ws is not None
            try:
                async for raw in ws:
                    self._frame(json.loads(raw))
            except ConnectionClosed:
                pass
            self.close_codes.append(ws.close_code)
            self._open.clear()
            if ws.close_code == 4401 or self.ended:
                self.ended = True
                return
            self.reconnects += 1
            self._turn = None
            await self._connect(resume=True)

    def _frame(self, frame: dict[str, Any]) -> None:
        self.frames.append(frame)
        event = frame.get("event")
        if event == "conversation":
            self.conversation_id = frame["conversation_id"]
            self._turn = frame.get("client_id")
        elif event == "message" and frame.get("message_id") is not None and self._turn in self.sent:
            self.sent[self._turn].answers.add(frame["message_id"])
        elif event == "confirm_required":
            self.cards.append(frame["confirmation_id"])
        elif event == "error" and frame.get("client_id") in self.sent:
            self.sent[frame["client_id"]].failures.append(frame["code"])
            self.outstanding.discard(frame["client_id"])
        elif event == "turn_state" and frame["client_id"] in self.sent:
            self._turn_state(frame)

    def _turn_state(self, frame: dict[str, Any]) -> None:
        sent = self.sent[frame["client_id"]]
        state = frame["state"]
        if frame.get("conversation_id") and self.conversation_id is None:
            self.conversation_id = frame["conversation_id"]
        if state == "running":
            return
        if state in FAILED_STATES:
            sent.failures.append(state)
        else:  # done (its answer here or in the frame) or awaiting (a card)
            sent.ends += 1
            if frame.get("answer"):
                sent.answers.add(frame["answer"]["message_id"])
        self.outstanding.discard(sent.client_id)
        if self._turn == sent.client_id:
            self._turn = None

    async def send(self, frame: dict[str, Any], wait_s: float = 30.0) -> None:
        """Send ``frame`` once the socket is open (waiting at most ``wait_s`` for a reconnect)."""
        await asyncio.wait_for(self._open.wait(), wait_s)
        assert self._ws is not None
        await self._ws.send(json.dumps(frame, ensure_ascii=False))

    async def message(self, text: str) -> str:
        """Send a user message with a new client id; return the id."""
        client_id = f"m{uuid.uuid4().hex[:16]}"
        await asyncio.wait_for(self._open.wait(), 30)
        self.sent[client_id] = Sent(client_id, text)
        self.outstanding.add(client_id)
        frame = {
            "type": "user_message",
            "conversation_id": self.conversation_id,
            "text": text,
            "context": self.context,
            "client_id": client_id,
        }
        try:
            await self.send(frame)
        except ConnectionClosed:
            pass  # it went nowhere or somewhere: the resume after the reconnect tells which
        return client_id

    async def settled(self, wait_s: float) -> bool:
        """Wait until no message is outstanding (at most ``wait_s``); whether that happened."""
        deadline = time.monotonic() + wait_s
        while self.outstanding and time.monotonic() < deadline:  # noqa: ASYNC110 - bounded poll of plain state
            await asyncio.sleep(0.1)
        return not self.outstanding

    async def until(self, predicate, wait_s: float = 30.0, *, since: int | None = None) -> dict[str, Any]:
        """The first frame for which ``predicate(frame)`` holds, received after this call (or from index ``since``
        of ``frames``); fails after ``wait_s``."""
        start = len(self.frames) if since is None else since
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            for frame in self.frames[start:]:
                if predicate(frame):
                    return frame
            await asyncio.sleep(0.05)
        raise TimeoutError(f"no matching frame within {wait_s} s; last: {self.frames[-5:]}")

    async def close(self) -> None:
        self.ended = True
        if self._reader is not None:
            self._reader.cancel()
        if self._ws is not None:
            await self._ws.close()


async def talk(client: PageClient, name: str, messages: int, every_s: float) -> None:
    """Send ``messages`` messages («<name>: вопрос <n>»), one every ``every_s`` seconds, not waiting for answers
    (a turn runs, the next ones wait behind it: several in flight)."""
    for n in range(messages):
        await client.message(f"{name}: вопрос {n}")
        await asyncio.sleep(every_s)


def ledger(clients: list[PageClient]) -> Ledger:
    """The counts over every message of ``clients``."""
    total = Ledger()
    for client in clients:
        for message in client.sent.values():
            total.add(message)
    return total
