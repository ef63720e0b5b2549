"""Server → client WebSocket events (DESIGN §6): one pydantic model per event, serialised in one place.

A leaf module: it imports nothing of agentchat (``.importlinter`` puts it in the bottom layer), so the turn, which
sits below ``chat``, builds these events and the consumer sends them. ``OutboundEvent.wire()`` is the only
serialisation: the JSON object the page receives is ``{"event": <name>, <fields in declaration order>}``, and a
field named in ``omitted_when_none`` is left out while it is None (``tool_finished.task_id``, ``error.call_id``,
``error.errors``, ``message.ask_without_page``); every other field is always sent, None included
(``message.message_id`` of a system line).

``handed_over`` (a property of the event type): when the socket of a turn has closed, events of that type still
reach the conversation's other tabs (a reloaded page) — what the user must not lose (answers, cards and their
states) and the finished tool's line. Streamed tokens and «⏳ …» lines are not handed over.
"""

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict


class OutboundEvent(BaseModel):
    """One server → client frame (DESIGN §6); subclasses name the ``event`` and declare its fields.

    Class attributes:
        event: the frame's ``event`` member.
        handed_over: still sent to the conversation's other tabs after the turn's own socket closed.
        omitted_when_none: fields left out of the frame while None.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    event: ClassVar[str]
    handed_over: ClassVar[bool] = False
    omitted_when_none: ClassVar[frozenset[str]] = frozenset()

    def wire(self) -> dict[str, Any]:
        """Return the frame as the page receives it: ``{"event": …, **fields}``, JSON types only."""
        omitted = {name for name in self.omitted_when_none if getattr(self, name) is None}
        return {"event": self.event, **self.model_dump(mode="json", exclude=omitted)}


Emit = Callable[[OutboundEvent], Awaitable[None]]
"""Sends one event to the client of the turn (the consumer's ``emit``; a collector in tests)."""
Broadcast = Callable[[int, OutboundEvent], Awaitable[None]]
"""Sends one event to every open tab of a conversation: ``(conversation_id, event)``."""


class ConversationEvent(OutboundEvent):
    """A turn started: its conversation, how its UIContext was taken (DESIGN §7) and the answering provider."""

    event: ClassVar[str] = "conversation"

    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"client_id"})

    conversation_id: int
    context_status: Literal["ok", "none", "unavailable"]
    provider: str  # «Офлайн-планировщик» or ``<model> @ <base URL>`` (``llm.provider_label``)
    client_id: str | None = None  # the page's id of the message this turn answers, when it sent one


class TokenEvent(OutboundEvent):
    """Streamed answer text (coalesced: at most one per 50 ms or 400 characters, ``turn.streaming``)."""

    event: ClassVar[str] = "token"

    message_id: int
    text: str


class MessageEvent(OutboundEvent):
    """A finished message: the assistant's answer, or a system line (``message_id`` None, «Операция отменена»).

    ``html`` is rendered on the server (Markdown sanitised by an allow-list, SQL rows as a table).
    """

    event: ClassVar[str] = "message"
    handed_over: ClassVar[bool] = True
    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"ask_without_page", "ask_without_page_label"})

    message_id: int | None
    text: str
    html: str
    # The question to send again without the page's context (the one-click under an answer that another page's
    # tool would serve, issue 29 item 2), and the button's label in the answer's language; None: no such button.
    ask_without_page: str | None = None
    ask_without_page_label: str | None = None


class ToolStartedEvent(OutboundEvent):
    """A tool call starts (DESIGN §5 step 7); ``title`` is the tool's human name in the turn's language."""

    event: ClassVar[str] = "tool_started"

    call_id: str
    tool: str
    title: str


class ToolFinishedEvent(OutboundEvent):
    """A tool call ended; ``duration_ms`` in milliseconds; ``summarised``: the LLM got a summary, not the result
    (DESIGN §10); ``task_id``: the background task a backup/migration started (the page polls it), else omitted;
    ``html``: the result as the page shows it under the tool's line (SQL rows as a table, ``turn.results``), else
    omitted; ``moot``: true for a call that found nothing to apply to (nothing to roll back: ``ok`` false, and no
    failure — the reason is in the answer), else omitted."""

    event: ClassVar[str] = "tool_finished"
    handed_over: ClassVar[bool] = True
    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"task_id", "html", "moot"})

    call_id: str
    tool: str
    title: str
    ok: bool
    duration_ms: int
    summarised: bool
    task_id: int | None = None
    html: str | None = None
    moot: bool | None = None


class CardDecision(BaseModel):
    """The guardrail decision a confirmation card shows (DESIGN §9): the ``decision`` member of
    ``confirm_required``; a member the stored decision lacks is sent as None."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    risk_level: str | None = None  # safe | guarded | dangerous
    tone: str | None = None  # success | info | warning | destructive
    env_id: str | None = None
    tier: str | None = None
    operation: str | None = None  # read | write
    impact: dict[str, Any] | None = None
    typed_confirmation: bool | None = None
    prompt: str | None = None
    acts_as: str | None = None  # user | service: whom the call acts as in Superset (DESIGN §15)


class ConfirmRequiredEvent(OutboundEvent):
    """A tool call waits for the user's approval on a card (DESIGN §5 step 6, §9)."""

    event: ClassVar[str] = "confirm_required"
    handed_over: ClassVar[bool] = True

    confirmation_id: int
    tool: str
    call_id: str
    decision: CardDecision
    html: str


class PermissionDeniedEvent(OutboundEvent):
    """A tool call refused by the invocation-level check (DESIGN §6, §9); the card has a dismiss button only."""

    event: ClassVar[str] = "permission_denied"
    handed_over: ClassVar[bool] = True

    call_id: str
    tool: str
    required_roles: list[str]
    html: str


class CancelledEvent(OutboundEvent):
    """A card is closed without running its call: denied, dismissed (a refused call) or expired (a new message
    came first); ``html`` is the closed card («Операция отменена»)."""

    event: ClassVar[str] = "cancelled"
    handed_over: ClassVar[bool] = True

    confirmation_id: int
    reason: Literal["denied", "dismissed", "expired"]
    html: str


class CardStateEvent(OutboundEvent):
    """A card's new state (``approved`` while its call runs, then ``executed``/``failed``/``unknown``…)."""

    event: ClassVar[str] = "card_state"
    handed_over: ClassVar[bool] = True

    confirmation_id: int
    status: str
    html: str


class ErrorEvent(OutboundEvent):
    """Something failed (DESIGN §6 codes: ``invalid_context``, ``timeout``, ``status_unknown``, ``bad_frame``…).

    ``message`` is the user's text in the turn's language; ``detail`` Superset's own text about it (the page shows
    it in an expandable «Ответ Superset», issue 30; omitted when none); ``call_id`` names the failed tool call
    (omitted for other errors); ``errors`` maps a UIContext field to its messages (``invalid_context`` only, else
    omitted);
    ``text`` and ``retry_after_s`` (``busy`` only, else omitted): the refused message, for the page to offer
    sending it again, and the seconds after which that is worth it.
    """

    event: ClassVar[str] = "error"
    omitted_when_none: ClassVar[frozenset[str]] = frozenset(
        {"call_id", "errors", "text", "retry_after_s", "client_id", "detail"}
    )

    code: str
    message: str
    detail: str | None = None
    call_id: str | None = None
    errors: dict[str, list[str]] | None = None
    text: str | None = None
    retry_after_s: int | None = None
    client_id: str | None = None


class TurnAnswer(BaseModel):
    """The final answer of a turn, as ``message`` carries it: ``turn_state.answer``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message_id: int
    text: str
    html: str


class TurnStateEvent(OutboundEvent):
    """What became of a message the page sent (``client_id``, issue 31 item 3).

    Sent when its turn ended on this socket (``done``: its answer, card or error came before), and for each message
    a ``resume`` asks about: ``done`` with the stored ``answer`` (the page missed it), ``awaiting`` (a card waits:
    it comes back with the conversation's cards), ``running`` (another process still answers it; a later
    ``turn_state`` tells how it ended), ``interrupted`` (the process answering it stopped), ``failed`` (it ended in
    an error) or ``not_received`` (no process stored it). For the last three ``message`` says so in the user's
    language and the page offers to send ``text`` (the message, when stored) again.
    """

    event: ClassVar[str] = "turn_state"
    omitted_when_none: ClassVar[frozenset[str]] = frozenset({"conversation_id", "message", "text", "answer"})

    client_id: str
    state: Literal["done", "awaiting", "running", "interrupted", "failed", "not_received"]
    conversation_id: int | None = None
    message: str | None = None
    text: str | None = None
    answer: TurnAnswer | None = None
