"""What became of the messages a page sent before it lost its socket (issue 31 item 3: a web process killed).

The page keeps the ids of the messages it heard nothing final about and sends them with ``resume`` when it
reconnects (through the load balancer, to any process). Each gets a ``turn_state`` (``chat.events``): its answer if
the turn finished (the page missed it), ``awaiting`` if a card waits, ``running`` while the turn's lease is alive
(another process still answers it), ``interrupted`` once the lease ran out without an answer (``turn.lease``: the
process died), ``failed`` if it ended in an error, ``not_received`` if no process stored it. The last three say so
in the user's language, and the page offers a resend — so every message sent is answered or explicitly failed, and
none is answered twice (nothing here runs a turn again).
"""

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import timezone, translation
from django.utils.translation import gettext

from agentchat.chat.events import Emit, TurnAnswer, TurnStateEvent
from agentchat.conversations.selectors import SentMessage, conversation_get, sent_messages
from agentchat.guard import confirmations as confirm
from agentchat.language import conversation_language, in_language
from agentchat.turn.rendering import card_required_event, message_html
from agentchat.turn.units import unit

WATCH_S = 1.0  # how often a resumed socket asks about a message another process still answers, seconds


def watch_bound_s() -> float:
    """How long a resumed socket watches a running message at most: a live turn renews its lease, so it ends (or its
    lease runs out) within the turn's own bounds; ten minutes, or four leases if that is longer (seconds)."""
    return max(600.0, 4 * settings.TURN_LEASE_S)


def _state(sent: SentMessage) -> str:
    if sent.answer is not None:
        return "done"
    if sent.awaiting:
        return "awaiting"
    if sent.lease_until is None:
        return "failed"
    return "running" if sent.lease_until > timezone.now() else "interrupted"


def _explained(state: str, language: str) -> str | None:
    with in_language(language):
        if state == "interrupted":
            return gettext("No answer came: the server process answering this message stopped. Send it again.")
        if state == "failed":
            return gettext("This message could not be answered. Send it again.")
        if state == "not_received":
            return gettext("The message did not reach the server: the connection broke. Send it again.")
    return None


def turn_states(*, user: User, client_ids: list[str], language: str) -> list[TurnStateEvent]:
    """One ``turn_state`` per id of ``client_ids`` (in their order; ``sent_messages`` reads them): sync, one unit
    of database work. Texts in the message's language (``conversation_language``; ``language``, the page's, for
    an id no process stored)."""
    found = {sent.client_id: sent for sent in sent_messages(user=user, client_ids=client_ids)}
    events = []
    for client_id in dict.fromkeys(client_ids):
        sent = found.get(client_id)
        if sent is None:
            events.append(
                TurnStateEvent(client_id=client_id, state="not_received", message=_explained("not_received", language))
            )
            continue
        state = _state(sent)
        spoken = conversation_language([sent.text], default=language)
        answer = None
        if sent.answer is not None:
            with in_language(spoken):
                answer = TurnAnswer(
                    message_id=sent.answer[0], text=sent.answer[1], html=message_html(text=sent.answer[1])
                )
        events.append(
            TurnStateEvent(
                client_id=client_id,
                state=state,
                conversation_id=sent.conversation_id,
                message=_explained(state, spoken),
                text=sent.text if state in ("interrupted", "failed") else None,
                answer=answer,
            )
        )
    return events


@dataclass(frozen=True)
class Tab:
    """The page that resumes: its user, where its events go (``emit``) and its language."""

    user: User
    emit: Emit
    language: str


class Resumed(NamedTuple):
    """What ``resume`` found: the conversations whose tabs the socket joins, the message ids still running."""

    conversations: list[int]
    running: list[str]


async def cards_again(*, user: User, emit: Emit, conversation_id: int) -> None:
    """Re-emit every still-pending card of the user's conversation once, with the same ids (each in its language).

    Raises:
        conversations.ConversationNotFound: the id is not the user's.
    """
    conversation = await database_sync_to_async(conversation_get)(user=user, conversation_id=conversation_id)
    for row in await database_sync_to_async(confirm.confirmations_pending)(conversation=conversation):
        with translation.override(row.language):
            await emit(card_required_event(row))


async def resume(tab: Tab, *, conversation_id: int | None, client_ids: Sequence[str]) -> Resumed:
    """The pending cards of ``conversation_id``, then a ``turn_state`` per id of ``client_ids`` (the cards of
    another conversation one of them waits in come back too).

    Raises:
        conversations.ConversationNotFound: ``conversation_id`` is not the user's.
    """
    joined = [] if conversation_id is None else [conversation_id]
    if conversation_id is not None:
        await cards_again(user=tab.user, emit=tab.emit, conversation_id=conversation_id)
    if not client_ids:
        return Resumed(joined, [])
    states = await unit(turn_states)(user=tab.user, client_ids=list(client_ids), language=tab.language)
    for state in states:
        if state.conversation_id is not None and state.conversation_id not in joined:
            joined.append(state.conversation_id)
            if state.state == "awaiting":
                await cards_again(user=tab.user, emit=tab.emit, conversation_id=state.conversation_id)
        await tab.emit(state)
    return Resumed(joined, [state.client_id for state in states if state.state == "running"])


async def watched(tab: Tab, *, client_ids: Sequence[str], watching: Callable[[], bool]) -> None:
    """Tell how each of ``client_ids`` (running in another process when the page resumed) ends: one ``turn_state``
    each, once it is answered, waits on a card, failed, or its lease ran out (``turn.lease``). Asks every
    ``WATCH_S``; bounded by ``watch_bound_s()`` and by ``watching()`` (False: the socket closed)."""
    remaining = list(client_ids)
    deadline = asyncio.get_running_loop().time() + watch_bound_s()
    while remaining and watching() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(WATCH_S)
        for state in await unit(turn_states)(user=tab.user, client_ids=remaining, language=tab.language):
            if state.state != "running":
                remaining.remove(state.client_id)
                await tab.emit(state)
