"""Overload without loss (issue 17): a bounded queue of turns per process.

At most ``TURN_MAX_ACTIVE`` turns run at once in a process; a message that finds them all busy waits in a queue
of at most ``TURN_QUEUE_MAX`` for at most ``TURN_QUEUE_WAIT_S`` seconds. A message that cannot start within that
bound is refused at once with the ``busy`` error (audited afterwards, off the turn's path: ``turn.refusals``),
never dropped or left unanswered. Admission is decided in the event loop before any database work of the
message; ``/healthz`` reports the queue (``turn_admission.depth``) so a load balancer can route around a saturated
process.

Counters and futures, not an ``asyncio.Semaphore``: the gate is process-wide and outlives event loops (tests run
one per test), and a slot freed by a finishing turn is handed straight to the oldest waiter.
"""

import asyncio
import math
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.translation import ngettext

from agentchat.language import in_language


@dataclass
class Slot:
    """A message's place in the process (``TurnAdmission.slot``): truthy when the turn may run.

    ``started()`` ends the turn's start (its first unit of database work is done, the LLM is called next): the
    start's share of the slot passes to the next message; the running share is held to the end of the block.
    """

    admitted: bool
    _gate: "TurnAdmission | None" = field(default=None, repr=False)
    _starting: bool = field(default=False, repr=False)

    def __bool__(self) -> bool:
        return self.admitted

    def started(self) -> None:
        """End the start (idempotent; a refused slot has none)."""
        if self._starting and self._gate is not None:
            self._starting = False
            self._gate.start_done()


class TurnAdmission:
    """The process's running turns and the messages waiting to start one (limits read from settings on use).

    Two bounds, both decided in the event loop before any database work of the message: at most
    ``TURN_MAX_ACTIVE`` turns running (a real LLM's wait counts) and at most ``TURN_MAX_STARTING`` of them still
    starting (session, context and the turn's first unit of database work: the process's own CPU and its one
    database thread). The second keeps an admitted message's wait for the CPU bounded when the process is
    saturated, so that every message is answered or refused ``busy`` within about a second (issue 17).
    """

    def __init__(self) -> None:
        self.running = 0
        self.starting = 0
        self.refused = 0
        self._waiting: deque[asyncio.Future[bool]] = deque()

    def depth(self) -> dict[str, int | float]:
        """``{"running", "starting", "queued", "refused", "max_running", "max_starting", "max_queued", "wait_s"}``:
        turns running now (of them starting), messages waiting to start, messages refused ``busy`` since the
        process started, and the limits."""
        return {
            "running": self.running,
            "starting": self.starting,
            "queued": len(self._waiting),
            "refused": self.refused,
            "max_running": settings.TURN_MAX_ACTIVE,
            "max_starting": settings.TURN_MAX_STARTING,
            "max_queued": settings.TURN_QUEUE_MAX,
            "wait_s": settings.TURN_QUEUE_WAIT_S,
        }

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        """Hold a turn slot for the block; yields a false ``Slot`` (and counts a refusal) when none was free within
        ``TURN_QUEUE_WAIT_S`` or the queue is full — the caller then answers ``busy``. No database work."""
        admitted = await self._enter()
        if not admitted:
            self.refused += 1
        held = Slot(admitted, self, admitted)
        try:
            yield held
        finally:
            if admitted:
                held.started()
                self._leave()

    def _free(self) -> bool:
        return self.running < settings.TURN_MAX_ACTIVE and self.starting < settings.TURN_MAX_STARTING

    async def _enter(self) -> bool:
        if self._free() and not self._waiting:
            self.running += 1
            self.starting += 1
            return True
        if len(self._waiting) >= settings.TURN_QUEUE_MAX:
            return False
        granted: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._waiting.append(granted)
        try:
            await asyncio.wait({granted}, timeout=settings.TURN_QUEUE_WAIT_S)
        except asyncio.CancelledError:
            self._give_up(granted)
            raise
        if granted.done() and not granted.cancelled():
            return True  # a finishing turn handed its slot over (``running``/``starting`` already count it)
        self._give_up(granted)
        return False

    def _give_up(self, granted: asyncio.Future[bool]) -> None:
        if granted.done() and not granted.cancelled():
            self.start_done()  # granted just as the wait ended: pass the slot on
            self._leave()
            return
        granted.cancel()
        if granted in self._waiting:
            self._waiting.remove(granted)

    def start_done(self) -> None:
        """One admitted turn finished starting (``Slot.started``)."""
        self.starting -= 1
        self._hand_over()

    def _leave(self) -> None:
        self.running -= 1
        self._hand_over()

    def _hand_over(self) -> None:
        """Give free slots to the oldest waiters."""
        while self._waiting and self._free():
            waiter = self._waiting.popleft()
            if not waiter.done() and not waiter.get_loop().is_closed():
                self.running += 1
                self.starting += 1
                waiter.set_result(True)


turn_admission = TurnAdmission()


def busy_retry_s() -> int:
    """Seconds after which a refused message is worth sending again: the queue's wait bound, at least
    ``TURN_BUSY_RETRY_S``, whole seconds."""
    return max(settings.TURN_BUSY_RETRY_S, math.ceil(settings.TURN_QUEUE_WAIT_S))


def busy_text(retry_s: int, language: str | None = None) -> str:
    """«Сервер перегружен, повторите через 5 секунд.» in ``language`` (None: the active one)."""
    with in_language(language):
        return ngettext(
            "The server is overloaded, retry in %(seconds)d second.",
            "The server is overloaded, retry in %(seconds)d seconds.",
            retry_s,
        ) % {"seconds": retry_s}
