"""Overload without loss (issue 17): a bounded queue of turns per process.

At most ``TURN_MAX_ACTIVE`` turns run at once in a process; a message that finds them all busy waits in a queue
of at most ``TURN_QUEUE_MAX`` for at most ``TURN_QUEUE_WAIT_S`` seconds. A message that cannot start within that
bound is refused at once with the ``busy`` error (stored and audited by ``turn_refuse``), never dropped or left
unanswered; ``/healthz`` reports the queue (``turn_admission.depth``) so a load balancer can route around a
saturated process.

Counters and futures, not an ``asyncio.Semaphore``: the gate is process-wide and outlives event loops (tests run
one per test), and a slot freed by a finishing turn is handed straight to the oldest waiter.
"""

import asyncio
import math
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from django.conf import settings
from django.contrib.auth.models import User
from django.utils.translation import ngettext

from agentchat.language import in_language
from policies import services as policy
from policies.models import AuditEvent


class TurnAdmission:
    """The process's running turns and the messages waiting to start one (limits read from settings on use)."""

    def __init__(self) -> None:
        self.running = 0
        self.refused = 0
        self._waiting: deque[asyncio.Future[bool]] = deque()

    def depth(self) -> dict[str, int | float]:
        """``{"running", "queued", "refused", "max_running", "max_queued", "wait_s"}``: turns running now, messages
        waiting to start, messages refused ``busy`` since the process started, and the limits."""
        return {
            "running": self.running,
            "queued": len(self._waiting),
            "refused": self.refused,
            "max_running": settings.TURN_MAX_ACTIVE,
            "max_queued": settings.TURN_QUEUE_MAX,
            "wait_s": settings.TURN_QUEUE_WAIT_S,
        }

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[bool]:
        """Hold a turn slot for the block; yields False (and counts a refusal) when none was free within
        ``TURN_QUEUE_WAIT_S`` or the queue is full — the caller then answers ``busy``."""
        admitted = await self._enter()
        if not admitted:
            self.refused += 1
        try:
            yield admitted
        finally:
            if admitted:
                self._leave()

    async def _enter(self) -> bool:
        if self.running < settings.TURN_MAX_ACTIVE and not self._waiting:
            self.running += 1
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
            return True  # a finishing turn handed its slot over (``running`` already counts it)
        self._give_up(granted)
        return False

    def _give_up(self, granted: asyncio.Future[bool]) -> None:
        if granted.done() and not granted.cancelled():
            self._leave()  # granted just as the wait ended: pass the slot on
            return
        granted.cancel()
        if granted in self._waiting:
            self._waiting.remove(granted)

    def _leave(self) -> None:
        while self._waiting:
            waiter = self._waiting.popleft()
            if not waiter.done() and not waiter.get_loop().is_closed():
                waiter.set_result(True)  # the slot passes to the oldest waiter
                return
        self.running -= 1


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


def turn_refuse(*, user: User, conversation_id: int | None, text: str, context: dict | None) -> None:
    """Store and audit a message refused ``busy`` (one unit of work): an ``AuditEvent`` ``turn_busy`` holding the
    text, the claimed conversation and the page's object, so no message is lost without a trace."""
    policy.audit_record(
        event_type=AuditEvent.EventType.TURN_BUSY,
        actor=user,
        conversation_id=conversation_id,
        env_id=(context or {}).get("envId"),
        args={"text": text},
        outcome="busy",
        extra={"object_type": (context or {}).get("objectType"), "queue": turn_admission.depth()},
    )
