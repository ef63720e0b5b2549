"""The database work before a step of the loop (DESIGN §5 steps 1–4): open the turn, offer the tools, load the
history. Each function is one unit of work called once through ``database_sync_to_async`` (each hop to the
database thread costs more than its queries)."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from langchain_core.messages import BaseMessage

from agentchat.chat.events import ErrorEvent
from agentchat.context.intake import context_accept
from agentchat.context.uicontext import ContextInvalid
from agentchat.conversations import services as conv
from agentchat.conversations.selectors import (
    HistoryRow,
    conversation_turn_context,
    conversation_with_history,
    history_from_rows,
    history_messages,
)
from agentchat.errors import error_text
from agentchat.guard import confirmations as confirm
from agentchat.language import conversation_language
from agentchat.llm.offline.environments import source_environment_named
from agentchat.llm.offline.followup import routing_question
from agentchat.models import Conversation, Message, PendingConfirmation
from agentchat.toolset.selection import Offer, toolset_offer
from agentchat.turn.lease import lease_deadline
from agentchat.turn.recording import offer_record
from policies import services as policy
from policies.models import AuditEvent
from policies.snapshot import policy_cache


@dataclass(frozen=True)
class Prepared:
    """What a step needs from the database.

    Attributes:
        offer: the tools of the step (DESIGN §5 step 3), audited as ``tool_offered``.
        environments: the active environments, ``[(env_id, tier)]`` (for the offline planner).
        history: the stored conversation as LangChain messages, oldest first (no system prompt).
        row_id: the id of the (empty) assistant message the step's answer streams into.
    """

    offer: Offer
    environments: list[tuple[str, str]]
    history: list[BaseMessage]
    row_id: int


@dataclass(frozen=True)
class Opened:
    """A turn opened by a ``user_message``.

    Attributes:
        conversation: the user's conversation (new, or the one named by the frame).
        context: the UIContext the turn uses (sent, or stored with the conversation; DESIGN §7), or None.
        status: the ``context_status`` of the ``conversation`` event: ``ok``, ``none`` or ``unavailable``.
        expired: the cards that were pending and expired now (each call got its ToolMessage).
        prepared: the first step's tools, history and answer row.
        message_id: the stored user message (its lease: ``turn.lease``).
        client_id: the page's id of it ('' when none was sent).
    """

    conversation: Conversation
    context: dict[str, Any] | None
    status: str
    expired: list[PendingConfirmation]
    prepared: Prepared
    message_id: int
    client_id: str = ""


# The caller's checks before a turn opens (the consumer's: the session, the frame's UIContext), run in the turn's
# opening transaction: the validated context to use, or the error event that refuses the message (its audit row
# written, and kept: the refusal is returned, not raised).
Precheck = Callable[[], "dict[str, Any] | None | ErrorEvent"]


@dataclass
class MessagePrecheck:
    """The consumer's ``Precheck`` of a ``user_message`` (sync: inside the turn's opening unit of work).

    A dead session (``session_alive()`` false, the socket's ``SessionCheck``): audited ``session_expired`` with
    what the frame asked for, its ``session_expired`` event returned and ``session_ended`` set — nothing of the frame
    runs (DESIGN §10). An invalid UIContext (DESIGN §5 step 2): audited ``context_rejected`` (``context_accept``) and
    ``invalid_context`` returned. Otherwise the validated context (None: the frame sent none). Texts in the
    message's language (``conversation_language``, the page's ``language`` as its default).
    """

    user: User
    session_alive: Callable[[], bool]
    text: str
    context: Any
    conversation_id: int | None
    language: str
    session_ended: bool = False

    def __call__(self) -> "dict[str, Any] | None | ErrorEvent":
        language = conversation_language([self.text], default=self.language)
        if not self.session_alive():
            self.session_ended = True
            extra = {"source": "websocket", "frame": "user_message", "claimed_conversation_id": self.conversation_id}
            policy.audit_record(
                event_type=AuditEvent.EventType.SESSION_EXPIRED, actor=self.user, outcome="session_expired", extra=extra
            )
            return ErrorEvent(code="session_expired", message=error_text("session_expired", language))
        if self.context is None:
            return None
        try:
            return context_accept(
                payload=self.context, actor=self.user, source="websocket", conversation_id=self.conversation_id
            )
        except ContextInvalid as exc:
            message = error_text("invalid_context", language, detail=exc.summary(language))
            return ErrorEvent(code="invalid_context", message=message, errors=exc.errors)


@transaction.atomic
@policy_cache.pinned()
def turn_open(
    *,
    user: User,
    conversation_id: int | None,
    text: str,
    context: dict[str, Any] | None,
    precheck: Precheck | None = None,
    client_id: str = "",
) -> Opened | ErrorEvent:
    """Open a turn in one transaction (one commit, one WAL flush, instead of one per row written; issue 17: one
    unit of database work per phase).

    Runs ``precheck`` first (its ``ErrorEvent`` is returned as it is: nothing else happens), then starts or loads
    the conversation with its messages (one statement, ``conversation_with_history``), expires its pending cards
    (looked for only when it has some), stores the user message (with ``client_id``, the page's id of it, and the
    turn's lease: ``turn.lease``), then ``step_prepare`` with the history as loaded
    plus the new message (read again only after cards expired: their calls got ToolMessages). A new conversation
    is inserted, its messages too, and nothing is read back.

    Raises:
        conversations.ConversationNotFound: ``conversation_id`` is not the user's.
    """
    if precheck is not None:
        checked = precheck()
        if isinstance(checked, ErrorEvent):
            return checked
        context = checked
    expired: list[PendingConfirmation] = []
    rows: list[HistoryRow] | None = []
    if conversation_id is None:
        conversation = conv.conversation_start(user=user, text=text, context=context)
        status = "ok" if context else "none"
    else:
        conversation, pending, rows = conversation_with_history(user=user, conversation_id=conversation_id)
        context, status = conversation_turn_context(conversation=conversation, sent=context)
        if pending:
            expired = confirm.confirmations_expire(conversation=conversation)
            rows = None  # the expired calls' ToolMessages were added: read the history after the new message
    new = conversation_id is None
    message, answer = conv.turn_messages_add(
        conversation=conversation,
        text=text,
        ui_context=context,
        touch=not new,
        client_id=client_id,
        lease_until=lease_deadline(),
    )
    if rows is not None:
        rows = [*rows, HistoryRow(Message.Role.USER, text, [], "", "")]
    prepared = step_prepare(
        user=user, conversation=conversation, context=context, question=text, row_id=answer.pk, history=rows
    )
    return Opened(conversation, context, status, expired, prepared, message.pk, client_id)


def tools_context(
    context: dict[str, Any] | None, question: str | None, environments: list[tuple[str, str]]
) -> dict[str, Any] | None:
    """The context the tools of a step are judged in (DESIGN §5 step 3): the page's, with the environment the
    question names (``llm.offline.environments.source_environment_named``) where the page picked none — «сделай
    бэкап ss-dev» from the settings page offers the environment's tools there instead of asking to pick it (issue 29
    item 3); where it names several, the one it starts from («чем отличается … в ss-dev и в prod»: ss-dev; the other
    is an argument). The page's own environment always wins; the prompt and the bound arguments keep the page's
    context as sent."""
    if (context or {}).get("envId") or not question:
        return context
    named = source_environment_named(question, environments)
    if named is None:
        return context
    base = context or {"contextVersion": 1, "objectType": None, "objectId": None, "objectName": None, "route": None}
    return {**base, "envId": named}


@transaction.atomic(savepoint=False)
@policy_cache.pinned()
def step_prepare(
    *,
    user: User,
    conversation: Conversation,
    context: dict[str, Any] | None,
    question: str | None = None,
    row_id: int | None = None,
    history: list[HistoryRow] | None = None,
) -> Prepared:
    """The offered tools (audited), the history and the answer row of a step, in one unit of work.

    Args:
        question: the turn's user message; None for a turn resumed after a card: the last stored one is routed
            again, so the offered set of the turn stays the same (DESIGN §12).
        row_id: the answer's row, inserted by the caller with the user message (``turn_open``: one statement,
            the conversation touched); None: a new row is added here.
        history: the conversation's stored messages as the caller read them (``turn_open``); None: read here.
    """
    if question is None:
        question = (
            conversation.messages.filter(role=Message.Role.USER)
            .order_by("-id")
            .values_list("content", flat=True)
            .first()
        )
    environments = list(policy.environment_tiers())
    messages = history_messages(conversation=conversation) if history is None else history_from_rows(history)
    routed = routing_question(question, messages, environments) if question else question
    offer = toolset_offer(user=user, context=tools_context(context, routed, environments), question=routed)
    offer_record(user=user, conversation_id=conversation.pk, context=context, offer=offer)
    if row_id is None:
        row_id = conv.message_add(conversation=conversation, role=Message.Role.ASSISTANT).pk
    return Prepared(offer, environments, messages, row_id)
