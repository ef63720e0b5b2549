"""One agent turn (DESIGN §5): context → tool set → LLM stream → checked tool calls → answer.

``AgentTurn`` is independent of the socket: it receives an ``emit`` coroutine for outgoing frames, so tests
drive it directly. All state lives in the database (conversation, messages, confirmations, audit), so a turn
suspended on a confirmation card continues in whichever process receives the decision (DESIGN §14).
"""

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import httpx
import openai
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, SystemMessage, ToolMessage
from langchain_core.messages.ai import add_ai_message_chunks
from pydantic import ValidationError

from agentchat.context.uicontext import UIContext, context_prompt_block, validation_text
from agentchat.conversations import services as conv
from agentchat.conversations.selectors import (
    conversation_get,
    conversation_turn_context,
    history_messages,
    latest_context,
    unique_call_ids,
)
from agentchat.errors import LLMUnavailable, error_text
from agentchat.guard import cards
from agentchat.guard import confirmations as confirm
from agentchat.guard.decision import args_sha256, guardrail_decide
from agentchat.language import detect_language
from agentchat.llm import chat_model, model_for_turn, provider_label
from agentchat.models import Message, PendingConfirmation
from agentchat.runtime.executor import ToolOutcome, tool_execute, tool_message_payload
from agentchat.runtime.registry import tool_spec
from agentchat.runtime.spec import ToolSpec
from agentchat.runtime.titles import tool_title
from agentchat.toolset.selection import Offer, tool_call_refusal, toolset_offer
from agentchat.turn.reply import StreamIncomplete, llm_failure_text, stream_incomplete, stream_tool_calls
from policies import services as policy
from policies.models import AuditEvent

log = logging.getLogger(__name__)
Emit = Callable[[dict[str, Any]], Awaitable[None]]
Broadcast = Callable[[int, dict[str, Any]], Awaitable[None]]
TOKEN_FLUSH_S = 0.05
TOKEN_FLUSH_CHARS = 400
Event = AuditEvent.EventType
TOOL_NAME_MAX_CHARS = 64  # Message.tool_name / AuditEvent.tool

SYSTEM_INSTRUCTIONS = """You are agentchat, the assistant of BI engineers and analysts who run Apache Superset.
Answer in the language of the user's last message (Russian or English). Use the offered tools to get real data;
never invent ids, names or results. When the user says "this dashboard/dataset", they mean the object in the
page context below. If a tool needs an environment and none is given, ask the user to pick one. A refused or
cancelled tool call must not be retried; explain it instead. Today is {today}."""


def _system_prompt(context: dict | None, *, unavailable: bool) -> str:
    parsed = UIContext.model_validate(context) if context else None
    block = context_prompt_block(parsed, unavailable=unavailable)
    return SYSTEM_INSTRUCTIONS.format(today=date.today().isoformat()) + "\n\n" + block  # noqa: DTZ011


def _message_html(text: str, role: str) -> str:
    return render_to_string("chat/message.html", {"text": text, "role": role})


class _TokenStream:
    """Coalesces streamed text into few ``token`` frames (at most one per 50 ms or 400 characters)."""

    def __init__(self, emit: Emit, message_id: int):
        self._emit = emit
        self._message_id = message_id
        self._buffer: list[str] = []
        self._size = 0
        self._last = time.monotonic()

    async def add(self, text: str) -> None:
        self._buffer.append(text)
        self._size += len(text)
        if self._size >= TOKEN_FLUSH_CHARS or time.monotonic() - self._last >= TOKEN_FLUSH_S:
            await self.flush()

    async def flush(self) -> None:
        if self._buffer:
            text = "".join(self._buffer)
            self._buffer, self._size, self._last = [], 0, time.monotonic()
            await self._emit({"event": "token", "message_id": self._message_id, "text": text})


@dataclass
class _Prepared:
    """What a step needs from the database: the turn's tools, the active environments ``[(env_id, tier)]``, the
    stored history, the answer's message row."""

    offer: Offer
    environments: list[tuple[str, str]]
    history: list[BaseMessage]
    row_id: int


class AgentTurn:
    """Runs the turns of one user; ``emit`` sends frames to the client.

    Args:
        user: the authenticated Django user (roles come only from here).
        emit: coroutine taking a frame dict.
        model: a LangChain chat model; the configured provider (``LLM_PROVIDER``) when None.
        broadcast: coroutine ``(conversation_id, frame)`` reaching every open tab of that conversation (the
            consumer's channel-layer group); card state changes go there so other tabs see them. None: ``emit``.
    """

    def __init__(self, *, user, emit: Emit, model=None, broadcast: Broadcast | None = None):
        self.user = user
        self.emit = emit
        self.model = model
        self.broadcast = broadcast

    # --- entry points -------------------------------------------------------------------------------------

    async def run(self, *, conversation_id: int | None, text: str, context: dict | None) -> int:
        """Handle one ``user_message``; return the conversation id.

        Pending cards of the conversation expire first (their calls get ToolMessages, the cards are replaced).

        Raises:
            conversations.ConversationNotFound: the id is not the user's.
        """
        language = detect_language(text)
        # One unit of database work opens the turn: conversation, expiries, the user message, the offered tools,
        # the history and the answer's row (each hop to the database thread costs more than its queries).
        conversation, context, status, expired, prepared = await database_sync_to_async(self._open)(
            conversation_id, text, context
        )
        await self.emit(
            {
                "event": "conversation",
                "conversation_id": conversation.pk,
                "context_status": status,
                "provider": provider_label(),
            }
        )
        for row in expired:  # every open tab of the conversation shows the card as expired, not only this one
            html = cards.card_expired(confirmation_id=row.pk, tool=row.tool, language=language)
            frame = {"event": "cancelled", "confirmation_id": row.pk, "reason": "expired", "html": html}
            await self._to_tabs(conversation.pk, frame)
        await self._answer(conversation, context, language, prepared, unavailable=status == "unavailable")
        return conversation.pk

    async def decide(self, *, confirmation_id: int, approve: bool, typed_env: str | None = None) -> None:
        """Apply the user's decision on a card; run the stored call once if approved; then continue the turn."""
        decided = await database_sync_to_async(confirm.confirmation_decide)(
            user=self.user, confirmation_id=confirmation_id, approve=approve, typed_env=typed_env
        )
        if decided.outcome == "not_found":
            await self._error("card_not_found", "ru", card_id=confirmation_id)
            return
        row = decided.confirmation
        if decided.outcome == "typed_mismatch":
            await self._error("typed_mismatch", row.language, env=row.decision.get("env_id"))
            return
        if decided.outcome == "already":
            await self._card_state(row, to_all=False)  # decided elsewhere (another tab): show how
            return
        if decided.outcome == "denied":
            await self._card_state(row)
            await self._cancelled_line(row)
        else:
            await self._card_state(row)  # «подтверждено — выполняется» in every tab
            await self._run_approved(row)
            await row.arefresh_from_db(fields=["status"])
            await self._card_state(row)
        await self._continue(row.conversation_id, row.language)

    async def _card_state(self, row: PendingConfirmation, *, to_all: bool = True) -> None:
        """Send the card's current state (``card_state`` frame; ``cancelled`` for a denied card) to every tab of
        the conversation, or only to this one."""
        html = cards.card_decided(row)
        if row.status == PendingConfirmation.Status.DENIED:
            frame = {"event": "cancelled", "confirmation_id": row.pk, "reason": "denied", "html": html}
        else:
            frame = {"event": "card_state", "confirmation_id": row.pk, "status": row.status, "html": html}
        if to_all:
            await self._to_tabs(row.conversation_id, frame)
        else:
            await self.emit(frame)

    async def _to_tabs(self, conversation_id: int, frame: dict) -> None:
        """Send ``frame`` to every open tab of the conversation (``broadcast``), or to this one without it."""
        if self.broadcast is not None:
            await self.broadcast(conversation_id, frame)
        else:
            await self.emit(frame)

    async def dismiss(self, *, confirmation_id: int) -> None:
        """Dismiss a denied card: ``cancelled`` frame and «Операция отменена» (the call was refused already)."""
        row = await database_sync_to_async(confirm.confirmation_dismiss)(
            user=self.user, confirmation_id=confirmation_id
        )
        if row is None:
            await self._error("card_not_found", "ru", card_id=confirmation_id)
            return
        html = cards.card_cancelled(confirmation_id=row.pk, tool=row.tool, language=row.language)
        await self.emit({"event": "cancelled", "confirmation_id": row.pk, "reason": "dismissed", "html": html})
        await self._cancelled_line(row)

    async def resume(self, *, conversation_id: int) -> None:
        """Re-emit every still-pending card of the user's conversation once, with the same ids (reconnect)."""
        conversation = await database_sync_to_async(conversation_get)(user=self.user, conversation_id=conversation_id)
        for row in await database_sync_to_async(confirm.confirmations_pending)(conversation=conversation):
            await self._emit_card(row)

    # --- turn internals -----------------------------------------------------------------------------------

    @transaction.atomic
    def _open(self, conversation_id: int | None, text: str, context: dict | None):
        # One transaction: one commit (one WAL flush) instead of one per row written.
        expired: list[PendingConfirmation] = []
        if conversation_id is None:
            conversation = conv.conversation_start(user=self.user, text=text, context=context)
            status = "ok" if context else "none"
        else:
            conversation = conversation_get(user=self.user, conversation_id=conversation_id)
            context, status = conversation_turn_context(conversation=conversation, sent=context)
            expired = confirm.confirmations_expire(conversation=conversation)
        conv.message_add(conversation=conversation, role=Message.Role.USER, content=text, ui_context=context)
        return conversation, context, status, expired, self._prepare(conversation, context, question=text)

    @transaction.atomic(savepoint=False)
    def _prepare(self, conversation, context: dict | None, question: str | None = None) -> "_Prepared":
        """The offered tools (audited), the history and the first answer row of a step, in one unit of work."""
        offer = self._offer(conversation, context, question)
        environments = [(e.env_id, e.tier) for e in policy.environments_active()]
        history = history_messages(conversation=conversation)
        row = conv.message_add(conversation=conversation, role=Message.Role.ASSISTANT)
        return _Prepared(offer, environments, history, row.pk)

    def _offer(self, conversation, context: dict | None, question: str | None = None) -> Offer:
        # The router narrows the set for the turn's question (DESIGN §12); a turn resumed after a card routes
        # the same question again, so the offered set of the turn stays the same.
        if question is None:
            question = (
                conversation.messages.filter(role=Message.Role.USER)
                .order_by("-id")
                .values_list("content", flat=True)
                .first()
            )
        offer = toolset_offer(user=self.user, context=context, question=question)
        policy.audit_record(
            event_type=Event.TOOL_OFFERED,
            actor=self.user,
            conversation_id=conversation.pk,
            env_id=(context or {}).get("envId"),
            extra={"tools": [s.name for s in offer.offered], "object_type": (context or {}).get("objectType")},
        )
        return offer

    async def _respond(self, conversation, context: dict | None, language: str):
        prepared = await database_sync_to_async(self._prepare)(conversation, context)
        await self._answer(conversation, context, language, prepared)

    async def _answer(self, conversation, context, language: str, prepared: "_Prepared", *, unavailable=False):
        system = SystemMessage(content=_system_prompt(context, unavailable=unavailable))
        messages = [system, *prepared.history]
        await self._loop(conversation, messages, prepared, context, language, first_row_id=prepared.row_id)

    async def _continue(self, conversation_id: int, language: str) -> None:
        """After the last open card of a step is decided, let the LLM continue from the stored history."""
        conversation = await database_sync_to_async(conversation_get)(user=self.user, conversation_id=conversation_id)
        if await database_sync_to_async(confirm.awaiting_decisions)(conversation=conversation):
            return
        context = await database_sync_to_async(latest_context)(conversation=conversation)
        await self._respond(conversation, context, language)

    async def _loop(
        self,
        conversation,
        messages: list[BaseMessage],
        prepared: _Prepared,
        context,
        language,
        first_row_id: int | None = None,
    ):
        offer = prepared.offer
        schemas = [spec.openai_schema() for spec in offer.offered]
        # The offline planner gets the turn's policy facts instead of reading the policy tables itself.
        model = model_for_turn(self.model or chat_model(), choices=offer.choices, environments=prepared.environments)
        bound = model.bind_tools(schemas) if schemas else model
        for _ in range(settings.AGENT_MAX_STEPS):
            step = await self._stream_step(conversation, bound, messages, language, row_id=first_row_id)
            first_row_id = None
            if step is None:
                return
            ai, row_id, calls = step
            messages.append(ai)
            if not calls:
                return
            waiting = False
            for call in calls:
                answer = await self._handle_call(conversation, row_id, call, offer, context, language)
                if answer is None:
                    waiting = True
                else:
                    messages.append(answer)
            if waiting:
                return  # the turn continues when the user decides (``decide``)
        text = "Достигнут предел шагов агента." if language == "ru" else "The agent reached its step limit."
        await self._final_message(conversation, text)

    async def _stream_step(self, conversation, bound, messages: list[BaseMessage], language: str = "ru", row_id=None):
        if row_id is None:
            row = await database_sync_to_async(conv.message_add)(conversation=conversation, role=Message.Role.ASSISTANT)
            row_id = row.pk
        tokens = _TokenStream(self.emit, row_id)
        chunks: list[AIMessageChunk] = []
        try:
            async for chunk in bound.astream(messages):
                chunks.append(chunk)
                if chunk.content:
                    await tokens.add(str(chunk.content))
        except (openai.APIError, httpx.TransportError) as exc:
            await tokens.flush()
            await self._llm_failed(row_id, "".join(str(c.content) for c in chunks), exc, language)
            return None
        await tokens.flush()
        # One merge at the end: adding chunks one by one re-merges the growing message each time (O(n²)).
        acc = add_ai_message_chunks(chunks[0], *chunks[1:]) if chunks else None
        text = str(acc.content) if acc is not None else ""
        if stream_incomplete(acc):
            await self._llm_failed(row_id, text, StreamIncomplete(), language)
            return None
        # Strict parse: a call cut off by the token limit or with broken JSON runs nowhere (llm.stream).
        calls = stream_tool_calls(acc)
        if calls:
            calls = await database_sync_to_async(unique_call_ids)(conversation=conversation, calls=calls)
        await database_sync_to_async(conv.message_update)(message_id=row_id, content=text, tool_calls=calls)
        if not calls:
            await self.emit(
                {"event": "message", "message_id": row_id, "text": text, "html": _message_html(text, "assistant")}
            )
        ai = AIMessage(content=text, tool_calls=[{k: c[k] for k in ("id", "name", "args")} for c in calls])
        return ai, row_id, calls

    async def _llm_failed(self, row_id: int, partial: str, exc: BaseException, language: str) -> None:
        """The model could not be reached or its stream broke off: end the turn cleanly (DESIGN §6, §11).

        A partly streamed answer is kept as a finished text message (marked as cut off) so the page and the
        history show what the user saw; an empty one is removed. Calls of a broken reply are never run.
        """
        log.warning("LLM call failed: %s: %s", type(exc).__name__, exc)
        if partial.strip():
            text = partial.rstrip() + " …"
            await database_sync_to_async(conv.message_update)(message_id=row_id, content=text, tool_calls=[])
            html = _message_html(text, "assistant")
            await self.emit({"event": "message", "message_id": row_id, "text": text, "html": html})
        else:
            await database_sync_to_async(Message.objects.filter(pk=row_id).delete)()
        await self.emit({"event": "error", "code": LLMUnavailable.code, "message": llm_failure_text(exc, language)})

    async def _final_message(self, conversation, text: str) -> None:
        row = await database_sync_to_async(conv.message_add)(
            conversation=conversation, role=Message.Role.ASSISTANT, content=text
        )
        await self.emit(
            {"event": "message", "message_id": row.pk, "text": text, "html": _message_html(text, "assistant")}
        )

    async def _error(self, code: str, language: str, **params) -> None:
        await self.emit({"event": "error", "code": code, "message": error_text(code, language, **params)})

    async def _cancelled_line(self, row: PendingConfirmation) -> None:
        text = confirm.cancelled_line(row)
        await self.emit({"event": "message", "message_id": None, "text": text, "html": _message_html(text, "system")})

    # --- one tool call --------------------------------------------------------------------------------------

    async def _handle_call(self, conversation, row_id: int, call: dict, offer: Offer, context, language):
        """Check one tool call and run it, refuse it, or put it on a card.

        The invocation-level check (``toolset.tool_call_refusal``) runs first, against the database and this
        turn's offered set, before anything else touches the call: a refused call makes no upstream request.

        Returns:
            The call's ToolMessage, or None when it waits for the user's confirmation (DESIGN §5 steps 6–7).
        """
        name, call_id = call["name"], call["id"]
        refusal = await database_sync_to_async(tool_call_refusal)(
            user=self.user, name=name, offered=[s.name for s in offer.offered]
        )
        if refusal is not None:
            return await self._deny(conversation, call, language, refusal)
        spec = tool_spec(name)
        if call.get("invalid"):
            return await self._reject_args(conversation, spec, call_id, {}, str(call["invalid"]), language)
        args = dict(call.get("args") or {})
        if "env_id" in spec.args_schema.model_fields and not args.get("env_id") and (context or {}).get("envId"):
            args["env_id"] = context["envId"]
        try:
            parsed = spec.args_schema.model_validate(args)
        except ValidationError as exc:
            detail = _validation_summary(exc, language)
            return await self._reject_args(conversation, spec, call_id, args, detail, language)
        decision = await guardrail_decide(
            spec=spec,
            args=args,
            parsed=parsed,
            user=self.user,
            conversation_id=conversation.pk,
            context=context,
            language=language,
        )
        if decision.impact and decision.impact.get("invalid"):
            # The impact look-up found arguments the tool would refuse: explain instead of offering a card.
            return await self._reject_args(conversation, spec, call_id, args, decision.impact["error"], language)
        if decision.requires_confirmation:
            row = await database_sync_to_async(confirm.confirmation_create)(
                conversation=conversation,
                user=self.user,
                assistant_message_id=row_id,
                call_id=call_id,
                tool=name,
                args=args,
                args_sha256=args_sha256(args),
                decision=decision.as_dict(),
                language=language,
            )
            await self._emit_card(row)
            return None
        return await self._execute(conversation, spec, call_id, args, context, language, toolset=offer.allowed)

    async def _emit_card(self, row: PendingConfirmation) -> None:
        html = cards.card_confirm(
            confirmation_id=row.pk, tool=row.tool, args=row.args, decision=row.decision, language=row.language
        )
        decision = {
            k: row.decision.get(k)
            for k in ("risk_level", "tone", "env_id", "tier", "operation", "impact", "typed_confirmation", "prompt")
        }
        await self.emit(
            {
                "event": "confirm_required",
                "confirmation_id": row.pk,
                "tool": row.tool,
                "call_id": row.call_id,
                "decision": decision,
                "html": html,
            }
        )

    async def _run_approved(self, row: PendingConfirmation) -> None:
        """Execute an approved card's stored call once, for its user and conversation (hash checked)."""
        spec = tool_spec(row.tool)
        permitted = await database_sync_to_async(policy.tool_permitted)(user=self.user, tool_name=row.tool)
        intact = args_sha256(row.args) == row.args_sha256
        conversation = await database_sync_to_async(conversation_get)(
            user=self.user, conversation_id=row.conversation_id
        )
        if spec is None or not permitted or not intact:
            # Rights changed (or the stored call was tampered with) between the card and the approval.
            outcome = ToolOutcome(
                ok=False,
                error_code="permission_denied" if intact else "internal",
                error_message=error_text("permission_denied", row.language, tool=row.tool),
            )
            await self._finish(
                conversation,
                row.tool,
                spec.category if spec else "write",
                row.call_id,
                row.args,
                outcome,
                confirmation_id=row.pk,
                announce=False,
            )
            return
        context = await database_sync_to_async(latest_context)(conversation=conversation)
        offer = await database_sync_to_async(toolset_offer)(user=self.user, context=context)
        await self._execute(
            conversation,
            spec,
            row.call_id,
            row.args,
            context,
            row.language,
            confirmation_id=row.pk,
            toolset=offer.allowed,
        )

    async def _execute(
        self,
        conversation,
        spec: ToolSpec,
        call_id: str,
        args: dict,
        context,
        language,
        confirmation_id: int | None = None,
        toolset: tuple[ToolSpec, ...] = (),
    ) -> ToolMessage:
        # DESIGN §4: the call is audited when it starts, so a call that never finishes (crash, kill) still shows.
        await database_sync_to_async(policy.audit_record)(
            event_type=Event.TOOL_CALL,
            actor=self.user,
            conversation_id=conversation.pk,
            tool=spec.name,
            env_id=args.get("env_id") or args.get("target_env_id"),
            args=args,
            outcome="started",
            extra={"call_id": call_id, "category": spec.category, "confirmation_id": confirmation_id},
        )
        title = tool_title(spec.name, language)  # «сводка о состоянии дашборда», not get_health_summary
        await self.emit({"event": "tool_started", "call_id": call_id, "tool": spec.name, "title": title})
        outcome = await tool_execute(
            spec=spec,
            args=args,
            user=self.user,
            conversation_id=conversation.pk,
            ui_context=context,
            language=language,
            toolset=toolset,
        )
        return await self._finish(
            conversation,
            spec.name,
            spec.category,
            call_id,
            args,
            outcome,
            confirmation_id=confirmation_id,
            language=language,
        )

    async def _reject_args(self, conversation, spec: ToolSpec, call_id: str, args: dict, detail: str, language):
        """Arguments not valid JSON or not matching the schema: no card, no execution, an error ToolMessage."""
        outcome = ToolOutcome(
            ok=False, error_code="invalid_args", error_message=error_text("invalid_args", language, detail=detail)
        )
        return await self._finish(conversation, spec.name, spec.category, call_id, args, outcome, announce=False)

    async def _finish(
        self,
        conversation,
        tool: str,
        category: str,
        call_id: str,
        args: dict,
        outcome: ToolOutcome,
        confirmation_id: int | None = None,
        announce: bool = True,
        language: str = "ru",
    ) -> ToolMessage:
        """Summarise the result for the LLM, store the ToolMessage + audit, and send ``tool_finished``."""
        payload = tool_message_payload(outcome, max_chars=settings.TOOL_RESPONSE_MAX_CHARS)
        await database_sync_to_async(_record_tool_result)(
            user=self.user,
            conversation=conversation,
            tool=tool,
            category=category,
            call_id=call_id,
            args=args,
            outcome=outcome,
            payload=payload,
            confirmation_id=confirmation_id,
        )
        finished = {
            "event": "tool_finished",
            "call_id": call_id,
            "tool": tool,
            "title": tool_title(tool, language),
            "ok": outcome.ok,
            "duration_ms": outcome.duration_ms,
            "summarised": payload.summarised,
        }
        # Background tools (backups, migrations) return a task id: the page polls it to draw progress.
        if outcome.ok and isinstance(outcome.result, dict) and outcome.result.get("task_id"):
            finished["task_id"] = outcome.result["task_id"]
        if announce:
            await self.emit(finished)
        if not outcome.ok:
            await self.emit(
                {"event": "error", "code": outcome.error_code, "message": outcome.error_message, "call_id": call_id}
            )
        return ToolMessage(content=payload.content, tool_call_id=call_id, status=payload.status)

    async def _deny(self, conversation, call: dict, language: str, refusal: str) -> ToolMessage:
        """Refuse ``call``: audit it, store and return its ToolMessage, send the ``permission_denied`` card.

        DESIGN §6/§9: the frame is ``{call_id, tool, required_roles, html}``; the card has a dismiss button only.
        The ToolMessage tells the LLM the call was refused and must not be retried.
        """
        # A hallucinated name may be any string: bound it to the column size before storing or showing it.
        name = str(call["name"])[:TOOL_NAME_MAX_CHARS]
        call = {**call, "name": name}
        roles = await database_sync_to_async(policy.tool_required_roles)(tool_name=name)
        row = await database_sync_to_async(confirm.confirmation_refuse)(
            conversation=conversation,
            user=self.user,
            call_id=call["id"],
            tool=name,
            args=call.get("args") or {},
            roles=roles,
            language=language,
            refusal=str(refusal),
        )
        html = cards.card_denied(tool=name, roles=roles, language=language, reason=str(refusal), card_id=row.pk)
        await self.emit(
            {
                "event": "permission_denied",
                "call_id": call["id"],
                "tool": name,
                "required_roles": roles,
                "html": html,
            }
        )
        content = confirm.declined_payload(name, "refused", str(refusal))
        return ToolMessage(content=content, tool_call_id=call["id"], status="error")


def _validation_summary(exc: ValidationError, language: str = "en") -> str:
    """``field: message; …`` of the first five errors (``validation_text``)."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'args'}: {validation_text(e['msg'], language)}"
        for e in exc.errors()[:5]
    )


def _final_status(outcome: ToolOutcome) -> str:
    if outcome.ok:
        return PendingConfirmation.Status.EXECUTED
    if outcome.error_code == "status_unknown":
        return PendingConfirmation.Status.UNKNOWN
    return PendingConfirmation.Status.FAILED


def _record_tool_result(
    *, user, conversation, tool, category, call_id, args, outcome: ToolOutcome, payload, confirmation_id=None
):
    """Store the ToolMessage, the confirmation's final status and the audit rows in one transaction.

    Rows (DESIGN §4 audit, §10 sizes): one ``retry`` per retry; ``summarised`` (raw/sent characters) when the
    result was summarised; then the call's own row: ``tool_result`` (ok), ``timeout`` (deadline),
    ``session_expired`` or ``tool_error`` (``outcome`` = the error code, e.g. ``status_unknown``, ``rate_limited``).
    """
    with transaction.atomic():
        conv.message_add(
            conversation=conversation,
            role=Message.Role.TOOL,
            content=payload.content,
            tool_call_id=call_id,
            tool_name=tool,
            status=payload.status,
        )
        if confirmation_id is not None:
            confirm.confirmation_finish(confirmation_id=confirmation_id, status=_final_status(outcome))
        env_id = args.get("env_id") or args.get("target_env_id")
        common = {"actor": user, "conversation_id": conversation.pk, "tool": tool, "env_id": env_id}
        for event in outcome.retry_events:
            policy.audit_record(event_type=Event.RETRY, outcome="retry", extra={"call_id": call_id, **event}, **common)
        if payload.summarised:
            policy.audit_record(
                event_type=Event.SUMMARISED,
                raw_chars=payload.raw_chars,
                sent_chars=payload.sent_chars,
                outcome="summarised",
                extra={"call_id": call_id, "max_chars": settings.TOOL_RESPONSE_MAX_CHARS},
                **common,
            )
        policy.audit_record(
            event_type=Event.TOOL_RESULT if outcome.ok else _error_event(outcome),
            args=args,
            raw_chars=payload.raw_chars,
            sent_chars=payload.sent_chars,
            duration_ms=outcome.duration_ms,
            outcome="ok" if outcome.ok else outcome.error_code or "error",
            extra={
                "call_id": call_id,
                "trace_id": outcome.trace_id,
                "requests": outcome.requests,
                "logins": outcome.logins,
                "retries": outcome.retries,
                "category": category,
                "summarised": payload.summarised,
                "message": outcome.error_message,
                "confirmation_id": confirmation_id,
            },
            **common,
        )


def _error_event(outcome: ToolOutcome) -> str:
    if outcome.timed_out:
        return Event.TIMEOUT
    return Event.SESSION_EXPIRED if outcome.error_code == "session_expired" else Event.TOOL_ERROR
