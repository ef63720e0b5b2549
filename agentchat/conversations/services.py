"""Writing conversations and their messages (DESIGN §4, §5 step 4).

Sync services (called through ``database_sync_to_async``), each one unit of work; the reads are in
``conversations.selectors``.
"""

import json
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from agentchat.models import Conversation, Message

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
        conversation.save(update_fields=["updated_at"])
    return message


def message_update(*, message_id: int, content: str, tool_calls: list[dict[str, Any]]) -> None:
    """Set the final text and tool calls of a streamed assistant message."""
    Message.objects.filter(pk=message_id).update(content=content, tool_calls=tool_calls)


def tool_payload(data: Any) -> str:
    """Serialise a ToolMessage payload as compact JSON with non-ASCII kept."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"), default=str)
