"""Writing conversations and their messages (DESIGN §4, §5 step 4).

Sync services (called through ``database_sync_to_async``), each one unit of work; the reads are in
``conversations.selectors``.
"""

import json
from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from agentchat.models import Conversation, Message, PendingConfirmation
from policies import services as policy
from policies.models import AuditEvent
from policies.statements import row_update, rows_insert

TITLE_CHARS = 80


def conversation_start(*, user: User, text: str, context: dict | None) -> Conversation:
    """Create a conversation titled after its first message, fixed to ``context`` (validated dict or None).

    ``context_version`` records the UIContext contract in force (1) even without a context, which tells a
    context-less conversation of today from one that predates stored contexts (``conversation_predates_context``).
    """
    title = " ".join(text.split())[:TITLE_CHARS]
    return Conversation.objects.create(
        user=user, title=title, ui_context=context, context_version=(context or {}).get("contextVersion", 1)
    )


def message_add(
    *,
    conversation: Conversation,
    role: str,
    content: str = "",
    tool_calls: list[dict[str, Any]] | None = None,
    tool_call_id: str = "",
    tool_name: str = "",
    status: str = "",
    ui_context: dict | None = None,
) -> Message:
    """Append one message and touch the conversation's ``updated_at``."""
    with transaction.atomic(savepoint=False):  # inside a caller's transaction: no savepoint round trips
        message = Message.objects.create(
            conversation=conversation,
            role=role,
            content=content,
            tool_calls=tool_calls or [],
            tool_call_id=tool_call_id,
            tool_name=tool_name,
            status=status,
            ui_context=ui_context,
        )
        conversation_touch(conversation=conversation)
    return message


def turn_messages_add(
    *,
    conversation: Conversation,
    text: str,
    ui_context: dict | None,
    touch: bool = True,
    client_id: str = "",
    lease_until: datetime | None = None,
) -> tuple[Message, Message]:
    """Append a turn's user message and its (empty) assistant answer row in one INSERT, and touch the
    conversation once (issue 17: a statement less per turn). Returns ``(user message, answer row)``; the answer row
    is invisible to the history until it has text or calls (``selectors.history_from_rows``).

    Args:
        touch: set the conversation's ``updated_at`` (``conversation_touch``); False for a conversation created in
            the same transaction (its ``updated_at`` is that moment already: a statement less).
        client_id: the page's id of the message (``Message.client_id``; empty: none was sent).
        lease_until: the turn's lease (``turn.lease``), written with the message.
    """
    rows = [
        Message(
            conversation=conversation,
            role=Message.Role.USER,
            content=text,
            tool_calls=[],
            ui_context=ui_context,
            client_id=client_id,
            lease_until=lease_until,
        ),
        Message(conversation=conversation, role=Message.Role.ASSISTANT, tool_calls=[]),
    ]
    with transaction.atomic(savepoint=False):  # inside a caller's transaction: no savepoint round trips
        rows_insert(rows)  # one fixed INSERT, ids in list order (policies.statements)
        if touch:
            conversation_touch(conversation=conversation)
    return rows[0], rows[1]


def conversation_touch(*, conversation: Conversation) -> None:
    """Set the conversation's ``updated_at`` to now (its place in the history list), in the row and on
    ``conversation``: one fixed ``UPDATE`` (issue 17: ``save(update_fields=…)`` spent ten times the statement's
    own CPU building it), the value adapted by the field (PostgreSQL and SQLite)."""
    field = Conversation._meta.get_field("updated_at")
    now = timezone.now()
    row_update(Conversation, [(field, now)], conversation.pk)
    conversation.updated_at = now


def message_update(*, message_id: int, content: str, tool_calls: list[dict[str, Any]]) -> None:
    """Set the final text and tool calls of a streamed assistant message (one fixed ``UPDATE``, as
    ``conversation_touch``)."""
    meta = Message._meta
    row_update(Message, [(meta.get_field("content"), content), (meta.get_field("tool_calls"), tool_calls)], message_id)


def tool_payload(data: Any) -> str:
    """Serialise a ToolMessage payload as compact JSON with non-ASCII kept."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)


def reference_refused(*, user: User, kind: str, ref_id: int, source: str = "websocket") -> None:
    """Audit a frame that named a conversation or card the user may not touch (``forbidden_reference``; issue 13).

    The frame is refused as before (``bad_frame`` «conversation not found», ``card_not_found``); this records who
    tried, what was named and whose it is, so probing another user's ids shows in the audit log.

    Args:
        user: the socket's user.
        kind: ``conversation`` or ``confirmation``.
        ref_id: the id the frame named.
        source: where the frame came from (``websocket``).

    The audit row: ``event_type`` and ``outcome`` ``forbidden_reference``; ``conversation_id`` the named
    conversation's (None when it does not exist); ``extra`` {``source``, ``kind``, ``id``, ``owner_id``} (None
    when it does not exist).
    """
    if kind == "confirmation":
        row = PendingConfirmation.objects.filter(pk=ref_id).values("user_id", "conversation_id", "tool").first()
        owner_id, conversation_id, tool = (row["user_id"], row["conversation_id"], row["tool"]) if row else (None,) * 3
    else:
        owner_id = Conversation.objects.filter(pk=ref_id).values_list("user_id", flat=True).first()
        conversation_id, tool = (ref_id if owner_id is not None else None), ""
    policy.audit_record(
        event_type=AuditEvent.EventType.FORBIDDEN_REFERENCE,
        actor=user,
        conversation_id=conversation_id,
        tool=tool or "",
        outcome="forbidden_reference",
        extra={"source": source, "kind": kind, "id": ref_id, "owner_id": owner_id},
    )
