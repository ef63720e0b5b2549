"""A running turn's lease on its user message (issue 31 item 3): how another process knows the turn is still alive.

A turn runs in the process of the socket that sent its message; killed with that process, it leaves a stored user
message and no answer, and nobody would tell the page. So the message carries ``lease_until``: set when the turn
opens (in the same INSERT, ``turn.preparation.turn_open``), renewed every third of ``TURN_LEASE_S`` while the turn
runs (``lease_kept``: a timer, no database work for the turns that end sooner, nearly all), cleared when the turn
fails with an error the user was sent. A message whose lease ran out without an answer was interrupted: the page
that asks (``resume`` with its message ids, ``turn.recovery``) is told so and offered a resend.
"""

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta

from django.conf import settings
from django.db import Error as DatabaseError
from django.utils import timezone

from agentchat.models import Message
from agentchat.turn.units import unit

log = logging.getLogger(__name__)


def lease_deadline() -> datetime:
    """Now plus ``TURN_LEASE_S``: until when a turn started or renewed now counts as running."""
    return timezone.now() + timedelta(seconds=settings.TURN_LEASE_S)


def lease_renew(*, message_id: int) -> None:
    """Move the lease of the turn of user message ``message_id`` to ``lease_deadline()`` (not one that ended)."""
    Message.objects.filter(pk=message_id, lease_until__isnull=False).update(lease_until=lease_deadline())


def lease_end(*, message_id: int) -> None:
    """The turn of ``message_id`` failed and its user was sent the error: its message is no longer waited for."""
    Message.objects.filter(pk=message_id).update(lease_until=None)


def lease_take(*, conversation_id: int) -> int | None:
    """A turn continues after a decision (``AgentTurn.decide``): lease the conversation's last user message again;
    return its id (None: the conversation has none)."""
    message_id = (
        Message.objects.filter(conversation_id=conversation_id, role=Message.Role.USER)
        .order_by("-id")
        .values_list("pk", flat=True)
        .first()
    )
    if message_id is not None:
        Message.objects.filter(pk=message_id).update(lease_until=lease_deadline())
    return message_id


@asynccontextmanager
async def lease_kept(message_id: int | None) -> AsyncIterator[None]:
    """Renew the lease of ``message_id``'s turn every ``TURN_LEASE_S / 3`` seconds while the block runs; when the
    block raises, end the lease (the caller sends the error) and re-raise. None: nothing to keep.

    A timer, not a task per turn: a turn that ends within a third of the lease costs no renewal."""
    if message_id is None:
        yield
        return
    loop = asyncio.get_running_loop()
    every_s = settings.TURN_LEASE_S / 3
    pending: dict[str, asyncio.TimerHandle | asyncio.Task[None]] = {}

    async def renew() -> None:
        try:
            await unit(lease_renew)(message_id=message_id)
        except DatabaseError:
            log.warning("lease of message %s not renewed (database)", message_id)
        pending["timer"] = loop.call_later(every_s, due)

    def due() -> None:
        pending["task"] = loop.create_task(renew())

    pending["timer"] = loop.call_later(every_s, due)
    try:
        yield
    except Exception:
        try:
            await unit(lease_end)(message_id=message_id)
        except DatabaseError:
            log.warning("lease of message %s not ended (database): it runs out instead", message_id)
        raise
    finally:
        for handle in pending.values():
            handle.cancel()
