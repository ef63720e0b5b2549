"""Reading conversations and their messages, and their LangChain form (DESIGN §4, §5 step 4).

Sync selectors (called through ``database_sync_to_async``); the writes are in ``conversations.services``.
"""

import functools
from datetime import datetime
from typing import Any, NamedTuple, cast

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import JSONField, Model, Q
from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agentchat.models import Conversation, Message, PendingConfirmation
from policies.statements import Columns


class ConversationNotFound(Exception):
    """No conversation with that id belongs to the user."""


def conversation_get(*, user: User, conversation_id: int) -> Conversation:
    """Return the user's conversation ``conversation_id``.

    Raises:
        ConversationNotFound: missing or owned by someone else.
    """
    conversation = Conversation.objects.filter(pk=conversation_id, user=user).first()
    if conversation is None:
        raise ConversationNotFound(conversation_id)
    return conversation


def conversation_predates_context(*, conversation: Conversation) -> bool:
    """True for a conversation recorded before contexts were stored (DESIGN §4: «контекст недоступен»).

    That is: no contract version, no conversation context and no user message with a context snapshot.
    """
    if conversation.context_version is not None or conversation.ui_context is not None:
        return False
    return not conversation.messages.filter(role=Message.Role.USER, ui_context__isnull=False).exists()


def conversation_turn_context(*, conversation: Conversation, sent: dict | None) -> tuple[dict | None, str]:
    """Decide the context of a turn in an existing conversation (DESIGN §4, §7; seed AGCTX-FR-003).

    The page sends the context it was opened with (for a conversation opened from history: the stored one,
    with the envId of the selector). Without one, the conversation's stored context applies. A conversation
    whose messages predate stored contexts and that gets no object context now is ``unavailable``: the agent
    says «контекст недоступен» and works in general mode (with the envId the page sends, if any).

    Args:
        conversation: the user's conversation.
        sent: the validated context of this message, or None.

    Returns:
        ``(context, status)``: the context dict or None, and ``ok|none|unavailable``.
    """
    context = sent if sent is not None else conversation.ui_context
    legacy = conversation_predates_context(conversation=conversation) and conversation.messages.exists()
    if legacy and not (context or {}).get("objectType"):
        return context, "unavailable"
    return context, ("ok" if context else "none")


def unique_call_ids(*, conversation: Conversation, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return ``calls`` with ids unique in the conversation, renaming the ones already used or repeated.

    OpenAI issues unique ids, but some OpenAI-compatible servers number calls per reply (``call_0`` in every
    message) or leave them empty; tool messages are matched to calls by id, so ids must not repeat. A renamed
    call keeps its id as a prefix (``call_0-2``); the history sent back to the model uses the new ids.
    """
    used = {
        call.get("id")
        for stored in Message.objects.filter(conversation=conversation, role=Message.Role.ASSISTANT).values_list(
            "tool_calls", flat=True
        )
        for call in stored or []
    }
    out = []
    for call in calls:
        call_id = str(call.get("id") or "call")
        if call_id in used:
            suffix = 2
            while f"{call_id}-{suffix}" in used:
                suffix += 1
            call_id = f"{call_id}-{suffix}"
        used.add(call_id)
        out.append({**call, "id": call_id})
    return out


class HistoryRow(NamedTuple):
    """The fields of one stored message the history is built from (``history_from_rows``)."""

    role: str
    content: str
    tool_calls: list[dict[str, Any]]
    tool_call_id: str
    status: str


def history_messages(*, conversation: Conversation) -> list[BaseMessage]:
    """Return the conversation as LangChain messages (without the system prompt), oldest first
    (``history_from_rows`` of its stored messages)."""
    # Plain tuples of the fields used (issue 17: whole rows decoded every message's UIContext JSON, every turn).
    fields = ("role", "content", "tool_calls", "tool_call_id", "status")
    rows = [
        HistoryRow(*values)
        for values in conversation.messages.exclude(role=Message.Role.SYSTEM).order_by("id").values_list(*fields)
    ]
    return history_from_rows(rows)


def history_from_rows(rows: list[HistoryRow]) -> list[BaseMessage]:
    """The LangChain messages of stored ``rows`` (oldest first, no ``system`` rows).

    Always valid for OpenAI-compatible APIs whatever the storage order: each assistant message is followed by
    exactly one ToolMessage per tool call, placed right after it; calls without an answer yet (a pending
    confirmation) are left out of the assistant message; orphan or duplicate tool messages are dropped; an
    assistant row without text or calls (an answer still streaming) is left out.
    """
    answers: dict[str, HistoryRow] = {}
    for row in rows:
        if row.role == Message.Role.TOOL:
            answers.setdefault(row.tool_call_id, row)
    out: list[BaseMessage] = []
    for row in rows:
        if row.role == Message.Role.USER:
            out.append(HumanMessage(content=row.content))
        elif row.role == Message.Role.ASSISTANT:
            calls = [
                {"id": c["id"], "name": c["name"], "args": c.get("args") or {}}
                for c in row.tool_calls
                if c["id"] in answers
            ]
            if row.content or calls:
                out.append(AIMessage(content=row.content, tool_calls=calls))
            for call in calls:
                answer = answers.pop(call["id"])
                out.append(
                    ToolMessage(
                        content=answer.content, tool_call_id=answer.tool_call_id, status=answer.status or "success"
                    )
                )
    return out


class TurnConversation(NamedTuple):
    """A conversation as a follow-up turn opens it (``conversation_with_history``).

    Attributes:
        conversation: the row (``title`` and the timestamps deferred: read on first access).
        pending: whether it has pending cards.
        rows: its stored messages but the ``system`` ones, oldest first.
    """

    conversation: Conversation
    pending: bool
    rows: list[HistoryRow]


def _json_field(model: type[Model], name: str) -> JSONField:
    """The JSON field ``name`` of ``model`` (its ``from_db_value`` decodes a column read by hand, as the ORM does;
    no expression: None)."""
    return cast("JSONField", model._meta.get_field(name))


@functools.cache
def _conversation_with_history_sql(vendor: str) -> str:
    """The statement of ``conversation_with_history``, written once per database backend (``vendor``)."""
    c, m, p = (Columns(model) for model in (Conversation, Message, PendingConfirmation))
    return (
        f"SELECT c.{c.ui_context}, c.{c.context_version}, EXISTS(SELECT 1 FROM {p.table} p "  # noqa: S608 - quoted identifiers from the models' meta; values are parameters
        f"WHERE p.{p.conversation} = c.{c.id} AND p.{p.status} = %s), "
        f"m.{m.role}, m.{m.content}, m.{m.tool_calls}, m.{m.tool_call_id}, m.{m.status} "
        f"FROM {c.table} c LEFT JOIN {m.table} m ON m.{m.conversation} = c.{c.id} AND m.{m.role} <> %s "
        f"WHERE c.{c.id} = %s AND c.{c.user} = %s ORDER BY m.{m.id}"
    )


def conversation_with_history(*, user: User, conversation_id: int) -> TurnConversation:
    """The user's conversation ``conversation_id``, whether it has pending cards, and its messages, in one
    statement (issue 17: the ORM compiled a turn's two selects for more CPU than the database spent on them).

    One fixed ``SELECT`` (the conversation ``LEFT JOIN`` its messages, the ``EXISTS`` of its pending cards), the
    identifiers from the models' meta, the values parameters, the JSON decoded by the fields themselves: the same
    text runs on PostgreSQL and SQLite.

    Raises:
        ConversationNotFound: missing or owned by someone else.
    """
    sql = _conversation_with_history_sql(connection.vendor)
    params: list[Any] = [PendingConfirmation.Status.PENDING, Message.Role.SYSTEM, conversation_id, user.pk]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    if not found:
        raise ConversationNotFound(conversation_id)
    ui_context, version, pending = found[0][:3]
    context = _json_field(Conversation, "ui_context").from_db_value(ui_context, None, connection)  # type: ignore[arg-type]
    conversation = Conversation.from_db(
        connection.alias,
        ["id", "user_id", "ui_context", "context_version"],
        [conversation_id, user.pk, context, version],
    )
    calls = _json_field(Message, "tool_calls")
    rows = [
        HistoryRow(role, content, calls.from_db_value(tool_calls, None, connection), call_id, status)  # type: ignore[arg-type]
        for *_, role, content, tool_calls, call_id, status in found
        if role is not None  # the LEFT JOIN's row of a conversation without messages
    ]
    return TurnConversation(conversation, bool(pending), rows)


def latest_context(*, conversation: Conversation) -> dict | None:
    """Return the UIContext of the conversation's latest user message, else the conversation's own (or None)."""
    row = conversation.messages.filter(role=Message.Role.USER, ui_context__isnull=False).order_by("-id").first()
    return row.ui_context if row else conversation.ui_context


OBJECT_LABELS: dict[str, Promise] = {
    "dashboard": pgettext_lazy("object type", "Dashboard"),
    "dataset": pgettext_lazy("object type", "Dataset"),
    "migration": pgettext_lazy("object type", "Migration"),
}


def context_label(context: dict | None) -> str:
    """Short label of a stored context for lists, in the active language: ``Дашборд #1 · ss-dev``; empty without
    an object or env.

    Built from the validated ``objectType``/``objectId``/``envId`` only: ``objectName`` is an untrusted label
    from a URL (DESIGN §7) and is not shown as a fact.
    """
    ctx = context or {}
    parts = []
    if ctx.get("objectType") in OBJECT_LABELS:
        parts.append(f"{OBJECT_LABELS[ctx['objectType']]} #{ctx.get('objectId') or '?'}")
    if ctx.get("envId"):
        parts.append(str(ctx["envId"]))
    return " · ".join(parts)


def conversations_of(*, user: User, limit: int = 50, query: str = "") -> list[dict[str, Any]]:
    """Return the user's recent conversations, newest first (the history list of /agent), or those whose title
    or one of whose questions contains ``query`` (case-insensitive; the history's search box, issue 30).

    Returns:
        ``[{"id", "title" (the first words of its first question), "object" (``context_label``: «Дашборд #1 ·
        ss-dev», what tells two conversations with the same question apart), "updated_at" (aware datetime)}]``.
    """
    rows = Conversation.objects.filter(user=user)
    words = " ".join(query.split())
    if words:
        asked = Message.objects.filter(role=Message.Role.USER, content__icontains=words).values("conversation_id")
        rows = rows.filter(Q(title__icontains=words) | Q(pk__in=asked))
    return [
        {"id": c.pk, "title": first_words(c.title), "object": context_label(c.ui_context), "updated_at": c.updated_at}
        for c in rows[:limit]
    ]


def first_words(text: str, max_chars: int = 60) -> str:
    """``text`` cut at the last whole word within ``max_chars`` characters, «…» when cut."""
    if len(text) <= max_chars:
        return text
    cut = text[:max_chars].rsplit(" ", 1)[0] or text[:max_chars]
    return cut.rstrip(" ,.;:") + "…"


def tool_call_args(*, user: User, conversation_id: int, call_id: str, tool: str) -> dict[str, Any] | None:
    """The arguments the model gave the call ``call_id`` of ``tool`` in the user's conversation (as stored on the
    assistant message), or None when there is no such call there or the conversation is not the user's."""
    rows = Message.objects.filter(
        conversation_id=conversation_id, conversation__user=user, role=Message.Role.ASSISTANT
    ).exclude(tool_calls=[])
    for row in rows.order_by("pk"):
        for call in row.tool_calls or []:
            if isinstance(call, dict) and call.get("id") == call_id and call.get("name") == tool:
                args = call.get("args")
                return dict(args) if isinstance(args, dict) else None
    return None


class SentMessage(NamedTuple):
    """A user message the page sent with ``client_id`` and what became of its turn (``sent_messages``).

    ``answer``: ``(message id, text)`` of the turn's final answer, or None; ``awaiting``: a card of the
    conversation waits for a decision; ``lease_until``: the turn's lease (``turn.lease``; None once it failed).
    """

    client_id: str
    message_id: int
    conversation_id: int
    text: str
    lease_until: datetime | None
    answer: tuple[int, str] | None
    awaiting: bool


def sent_messages(*, user: User, client_ids: list[str]) -> list[SentMessage]:
    """The user's messages stored with these page ids (issue 31: a page that lost its socket asks about them), each
    with its turn's final answer (the last assistant message with text and no calls after it, before the next user
    message), whether a card of its conversation waits, and its lease. Ids nobody stored are simply absent."""
    rows = Message.objects.filter(
        conversation__user=user, role=Message.Role.USER, client_id__in=client_ids
    ).values_list("id", "conversation_id", "client_id", "content", "lease_until")
    found = []
    for message_id, conversation_id, client_id, text, lease_until in rows:
        answer = None
        later = (
            Message.objects.filter(conversation_id=conversation_id, id__gt=message_id)
            .order_by("id")
            .values_list("id", "role", "content", "tool_calls")
        )
        for later_id, role, content, tool_calls in later.iterator():
            if role == Message.Role.USER:
                break
            if role == Message.Role.ASSISTANT and content and not tool_calls:
                answer = (later_id, content)
        awaiting = PendingConfirmation.objects.filter(
            conversation_id=conversation_id, status=PendingConfirmation.Status.PENDING
        ).exists()
        found.append(SentMessage(client_id, message_id, conversation_id, text, lease_until, answer, awaiting))
    return found
