"""The audit of messages refused ``busy`` (issue 17), written after the refusal was sent and off the turn's path.

A saturated process must answer a message it cannot start at once (``turn.admission``), so the ``busy`` frame goes
first and its ``turn_busy`` row is written afterwards: rows are buffered in the process and inserted together
(one statement per ``FLUSH_DELAY_S``) by a thread of their own, never through the database thread the turns
queue on. Nothing is dropped silently: a failed write keeps its rows for the next flush (at most ``BUFFER_MAX``;
beyond it the oldest are logged and dropped, so an outage cannot grow the process without bound).
"""

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.contrib.auth.models import User
from django.db import close_old_connections, connections

from agentchat.context.uicontext import printable
from policies import services as policy
from policies.models import AuditEvent

log = logging.getLogger(__name__)
FLUSH_DELAY_S = 0.2
BUFFER_MAX = 10_000
RETRY_S = 2.0
RETRIES = 30
# One thread, so one kept database connection (DB_CONN_MAX_AGE) for every refusal's row.
_WRITER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="agentchat-busy-audit")


def _page_value(context: Any, key: str) -> str:
    """A page value of the (not yet validated) frame context, made printable and at most 64 characters."""
    value = context.get(key) if isinstance(context, dict) else None
    return printable(value, 64) if isinstance(value, str) else ""


def busy_event(
    *, user: User, conversation_id: int | None, text: str, context: Any, queue: dict[str, int | float]
) -> AuditEvent:
    """The unsaved ``turn_busy`` row of one refused message: its text, the claimed conversation, the page's
    environment and object type as the frame sent them (refused before validation: printable, 64 characters),
    and the process's queue at the refusal (``TurnAdmission.depth``)."""
    claimed = conversation_id if isinstance(conversation_id, int) else None
    return policy.audit_build(
        event_type=AuditEvent.EventType.TURN_BUSY,
        actor=user,
        conversation_id=claimed,
        env_id=_page_value(context, "envId"),
        args={"text": text},
        outcome="busy",
        extra={"object_type": _page_value(context, "objectType") or None, "queue": queue},
    )


def _write(rows: list[AuditEvent]) -> None:
    close_old_connections()  # what a unit of work of the database thread does first (health check, age)
    try:
        policy.audit_record_many(rows)
    finally:
        close_old_connections()


class BusyAudit:
    """The buffer of ``turn_busy`` rows not written yet, and its flush (one per event loop at a time)."""

    def __init__(self) -> None:
        self._rows: list[AuditEvent] = []
        self._task: asyncio.Task[None] | None = None

    def add(self, row: AuditEvent) -> None:
        """Buffer ``row``; a flush follows within ``FLUSH_DELAY_S`` (call from the event loop)."""
        self._rows.append(row)
        if len(self._rows) > BUFFER_MAX:
            dropped = self._rows[: len(self._rows) - BUFFER_MAX]
            del self._rows[: len(dropped)]
            log.error("busy audit buffer full: %d rows not written: %r", len(dropped), [r.args for r in dropped])
        loop = asyncio.get_running_loop()
        if self._task is None or self._task.done() or self._task.get_loop() is not loop:
            self._task = loop.create_task(self._flush_later())

    async def _flush_later(self) -> None:
        """Flush every ``FLUSH_DELAY_S`` while rows keep coming; after a failed write retry every ``RETRY_S``, at
        most ``RETRIES`` times (the next refusal starts a new flush)."""
        failures = 0
        while self._rows and failures < RETRIES:
            await asyncio.sleep(FLUSH_DELAY_S if not failures else RETRY_S)
            if self._rows and not await self.flush():
                failures += 1

    async def flush(self) -> int:
        """Write every buffered row now; return how many were written (0 when the write failed: kept)."""
        rows, self._rows = self._rows, []
        if not rows:
            return 0
        try:
            await asyncio.get_running_loop().run_in_executor(_WRITER, _write, rows)
        except Exception:  # the database is away: keep the rows for the next refusal's flush
            log.exception("busy audit write failed; %d rows kept", len(rows))
            self._rows[:0] = rows
            return 0
        return len(rows)

    async def close_connection(self) -> None:
        """Close the writer thread's database connection (tests: the test database is dropped afterwards)."""
        await asyncio.get_running_loop().run_in_executor(_WRITER, connections.close_all)


busy_audit = BusyAudit()
