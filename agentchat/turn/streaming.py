"""One streamed LLM step (DESIGN §5 step 5, §11): stream the reply as coalesced ``token`` events, store it, and
hand its tool calls to the loop; a model that cannot be reached ends the turn cleanly.

``turn.reply`` parses what was streamed (strict tool-call arguments, the failure text).
"""

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import openai
from channels.db import database_sync_to_async
from django.db import transaction
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import Runnable

from agentchat.chat.events import Emit, ErrorEvent, TokenEvent
from agentchat.conversations import services as conv
from agentchat.conversations.selectors import unique_call_ids
from agentchat.errors import LLMUnavailable
from agentchat.llm.offline.state import ASK_WITHOUT_PAGE
from agentchat.llm.streams import ReplyStream
from agentchat.models import Conversation, Message
from agentchat.turn.rendering import message_event
from agentchat.turn.reply import (
    StreamIncomplete,
    llm_failure_text,
    stream_incomplete,
    stream_tool_calls,
    text_written_call,
)
from agentchat.turn.steps import Final
from agentchat.turn.truth import Failure, failures_told
from agentchat.turn.units import unit

log = logging.getLogger(__name__)
TOKEN_FLUSH_S = 0.05
TOKEN_FLUSH_CHARS = 400


class TokenStream:
    """Coalesces streamed text into few ``token`` events: at most one per ``TOKEN_FLUSH_S`` (50 ms) or
    ``TOKEN_FLUSH_CHARS`` (400 characters), so a busy process sends a handful of frames per answer. Text is never
    held longer than 50 ms: when the model pauses, a timer sends what is buffered without waiting for its next chunk.

    Args:
        emit: sends each ``TokenEvent`` (in the order the text came; one at a time).
        message_id: the assistant message the text belongs to.
    """

    def __init__(self, emit: Emit, message_id: int):
        self._emit = emit
        self._message_id = message_id
        self._buffer: list[str] = []
        self._size = 0
        self._last = time.monotonic()
        self._timer: asyncio.TimerHandle | None = None
        self._sending = asyncio.Lock()
        self._pending: set[asyncio.Task[None]] = set()
        self.sent = False  # a ``token`` event of this message went out

    async def add(self, text: str) -> None:
        """Buffer ``text``; send the buffer once it is 400 characters or 50 ms old (by a timer when no more text
        comes)."""
        self._buffer.append(text)
        self._size += len(text)
        age = time.monotonic() - self._last
        if self._size >= TOKEN_FLUSH_CHARS or age >= TOKEN_FLUSH_S:
            await self.flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(TOKEN_FLUSH_S - age, self._flush_later)

    def _flush_later(self) -> None:
        """Timer callback: flush in a task of its own (kept referenced until it ends)."""
        self._timer = None
        task = asyncio.ensure_future(self.flush())
        self._pending.add(task)
        task.add_done_callback(self._flushed)

    def _flushed(self, task: asyncio.Task[None]) -> None:
        """A timer's flush ended: forget it; a failed send is logged (the stream's own next send fails too)."""
        self._pending.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("token flush failed", exc_info=task.exception())

    async def discard(self) -> None:
        """Drop what is buffered and any pending timer: the ``message`` event that follows carries the whole text
        (an answer that came faster than one flush interval is one frame, not a ``token`` and a ``message``). A
        flush already sending is waited for, so no ``token`` can follow the ``message`` and ``sent`` is final."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        async with self._sending:
            self._buffer, self._size = [], 0

    async def flush(self) -> None:
        """Send what is buffered (nothing when empty); a pending timer is cancelled."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        async with self._sending:  # a timer's flush and the stream's own never reorder frames
            if self._buffer:
                text = "".join(self._buffer)
                self._buffer, self._size, self._last = [], 0, time.monotonic()
                await self._emit(TokenEvent(message_id=self._message_id, text=text))
                self.sent = True


@dataclass(frozen=True)
class Reply:
    """A streamed reply that asks for tool calls.

    Attributes:
        ai: the reply for the history (text and the calls' ``id``/``name``/``args``).
        row_id: its stored assistant message.
        calls: ``{"id", "name", "args"}`` per call, ids unique in the conversation, plus ``"invalid"`` (the
            reason) for a call that must not run (``reply.stream_tool_calls``).
    """

    ai: AIMessage
    row_id: int
    calls: list[dict[str, Any]]


async def reply_stream(
    *,
    model: BaseChatModel | Runnable,
    messages: list[BaseMessage],
    conversation: Conversation,
    emit: Emit,
    language: str,
    row_id: int | None = None,
    failures: Sequence[Failure] = (),
    checked: Callable[[str], str] | None = None,
    ask_without_page: bool = False,
    instead: str | None = None,
) -> Reply | Final:
    """Stream one LLM reply and store it.

    Args:
        model: the chat model, tools bound.
        messages: the system prompt and the history so far.
        row_id: the assistant message to stream into; a new one when None.
        failures: the turn's failed calls (``turn.truth.turn_failures``): a text answer that does not carry
            their reasons gets a line for each (issue 32 item 4).
        checked: applied to a text answer last (``turn.truth.problems_checked``: problems claimed that no result
            names are replaced by what the tools returned).
        ask_without_page: the question asks for another page's tool (``toolset.selection.page_refused_request``):
            a text answer after no successful call of the turn carries the one-click to send the question again
            without the page's context (``MessageEvent.ask_without_page``; issue 29 item 2). The offline planner
            sets it on its own answer (``llm.offline.state.ASK_WITHOUT_PAGE``).
        instead: the step is an answer with no tool to call (``turn.guided``): a call the model writes anyway,
            structured or as text, never runs, and this text (the offline planner's answer) is the reply.

    Returns:
        ``Reply`` when the model asks for tool calls; ``Final`` when it answered with text (its ``message`` event
        sent) or could not be reached (``error`` event ``llm_unavailable`` sent; see ``_llm_failed``).
    """
    if row_id is None:
        row = await database_sync_to_async(conv.message_add)(conversation=conversation, role=Message.Role.ASSISTANT)
        row_id = row.pk
    tokens = TokenStream(emit, row_id)
    stream = ReplyStream(model, messages)  # the stream parsed once (llm.streams)
    try:
        async for text in stream:
            await tokens.add(text)
    except openai.APIError as exc:
        await tokens.flush()
        return await _llm_failed(emit, row_id, stream.partial_text(), exc, language)
    acc = stream.reply()
    text = str(acc.content) if acc is not None else ""
    if stream_incomplete(acc):
        await tokens.flush()
        return await _llm_failed(emit, row_id, text, StreamIncomplete(), language)
    # Strict parse: a call cut off by the token limit or with broken JSON runs nowhere (turn.reply).
    calls = stream_tool_calls(acc)
    written = None if calls else text_written_call(text)
    if instead is not None and (calls or written is not None):  # the planner's answer; what streamed is dropped below
        calls, written, text, failures, checked = [], None, instead, (), None
    if written is not None:  # a call written as text runs as a call (its checks and card), not shown as JSON
        calls, text = [written], ""
        await tokens.discard()
        if tokens.sent:
            await emit(message_event(message_id=row_id, text=""))  # clears what streamed of it
    elif calls:
        await tokens.flush()  # the text before the calls, shown while they run
    else:
        await tokens.discard()  # the ``message`` below carries the buffered tail (issue 17: one frame less per turn)
    if not calls:
        text = failures_told(text, failures, language)
        text = checked(text) if checked is not None else text
    calls = await unit(reply_store)(conversation=conversation, message_id=row_id, content=text, calls=calls)
    if not calls:
        flagged = acc is not None and bool(acc.response_metadata.get(ASK_WITHOUT_PAGE))
        again = _question(messages) if flagged or (ask_without_page and not _served(messages)) else None
        await emit(message_event(message_id=row_id, text=text, ask_without_page=again))
        return Final(message_id=row_id)
    ai = AIMessage(content=text, tool_calls=[{k: c[k] for k in ("id", "name", "args")} for c in calls])
    return Reply(ai=ai, row_id=row_id, calls=calls)


def _question(messages: list[BaseMessage]) -> str | None:
    """The turn's question: the last user message."""
    return next((str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)), None)


def _served(messages: list[BaseMessage]) -> bool:
    """A tool call of this turn (after the last user message) succeeded: the answer is not a page refusal."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return False
        if isinstance(message, ToolMessage) and message.status != "error":
            return True
    return False


def reply_store(
    *, conversation: Conversation, message_id: int, content: str, calls: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Store a streamed reply in one unit of work: its calls get ids unique in the conversation
    (``unique_call_ids``), then the text and the calls are written; returns the calls as stored. A reply without
    calls is one statement (no transaction block: one round trip)."""
    if not calls:
        conv.message_update(message_id=message_id, content=content, tool_calls=[])
        return []
    with transaction.atomic():
        calls = unique_call_ids(conversation=conversation, calls=calls)
        conv.message_update(message_id=message_id, content=content, tool_calls=calls)
    return calls


async def _llm_failed(emit: Emit, row_id: int, partial: str, exc: BaseException, language: str) -> Final:
    """The model could not be reached or its stream broke off: end the turn cleanly (DESIGN §6, §11).

    A partly streamed answer is kept as a finished text message (marked as cut off) so the page and the
    history show what the user saw; an empty one is removed. Calls of a broken reply are never run.
    """
    log.warning("LLM call failed: %s: %s", type(exc).__name__, exc)
    kept: int | None = None
    if partial.strip():
        text = partial.rstrip() + " …"
        await database_sync_to_async(conv.message_update)(message_id=row_id, content=text, tool_calls=[])
        await emit(message_event(message_id=row_id, text=text))
        kept = row_id
    else:
        await database_sync_to_async(Message.objects.filter(pk=row_id).delete)()
    await emit(ErrorEvent(code=LLMUnavailable.code, message=llm_failure_text(exc, language)))
    return Final(message_id=kept)
