"""One agent turn (DESIGN §5): context → tool set → LLM stream → checked tool calls → answer.

``AgentTurn`` is independent of the socket: it receives an ``emit`` coroutine for outgoing frames, so tests
drive it directly. All state lives in the database (conversation, messages, audit).
"""

import time
from collections.abc import Awaitable, Callable
from datetime import date
from typing import Any

import httpx
import openai
from channels.db import database_sync_to_async
from django.conf import settings
from django.db import transaction
from django.template.loader import render_to_string
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, SystemMessage, ToolMessage

from policies import services as policy
from policies.models import AuditEvent

from . import conversations as conv
from .context import UIContext, context_prompt_block
from .errors import LLMUnavailable
from .executor import ToolOutcome, tool_execute
from .language import detect_language
from .llm import chat_model, provider_label
from .models import Message
from .summarise import summarise, to_json
from .tools.registry import ToolSpec, tool_spec
from .toolset import toolset_for

Emit = Callable[[dict[str, Any]], Awaitable[None]]
TOKEN_FLUSH_S = 0.05
TOKEN_FLUSH_CHARS = 400

SYSTEM_INSTRUCTIONS = """You are agentchat, the assistant of BI engineers and analysts who run Apache Superset.
Answer in the language of the user's last message (Russian or English). Use the offered tools to get real data;
never invent ids, names or results. When the user says "this dashboard/dataset", they mean the object in the
page context below. If a tool needs an environment and none is given, ask the user to pick one. A refused or
cancelled tool call must not be retried; explain it instead. Today is {today}."""

Event = AuditEvent.EventType


def _system_prompt(context: dict | None, *, unavailable: bool) -> str:
    parsed = UIContext.model_validate(context) if context else None
    block = context_prompt_block(parsed, unavailable=unavailable)
    return SYSTEM_INSTRUCTIONS.format(today=date.today().isoformat()) + "\n\n" + block  # noqa: DTZ011


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


class AgentTurn:
    """Runs user turns of one user; ``emit`` sends frames to the client.

    Args:
        user: the authenticated Django user (roles come only from here).
        emit: coroutine taking a frame dict.
        model: a LangChain chat model; the configured provider (``LLM_PROVIDER``) when None.
    """

    def __init__(self, *, user, emit: Emit, model=None):
        self.user = user
        self.emit = emit
        self.model = model

    async def run(self, *, conversation_id: int | None, text: str, context: dict | None) -> int:
        """Handle one ``user_message``; return the conversation id.

        Args:
            conversation_id: continue this conversation of the user, or None to start one.
            text: the user's message.
            context: the validated UIContext dict of the page, or None.

        Raises:
            conversations.ConversationNotFound: the id is not the user's.
        """
        conversation, context, status = await database_sync_to_async(self._open)(conversation_id, text, context)
        await self.emit(
            {
                "event": "conversation",
                "conversation_id": conversation.pk,
                "context_status": status,
                "provider": provider_label(),
            }
        )
        language = detect_language(text)
        offered = await database_sync_to_async(self._offer)(conversation, text, context)
        system = SystemMessage(content=_system_prompt(context, unavailable=status == "unavailable"))
        history = await database_sync_to_async(conv.history_messages)(conversation=conversation)
        await self._loop(conversation, [system, *history], offered, context, language)
        return conversation.pk

    def _open(self, conversation_id: int | None, text: str, context: dict | None):
        if conversation_id is None:
            conversation = conv.conversation_start(user=self.user, text=text, context=context)
            status = "ok" if context else "none"
        else:
            conversation = conv.conversation_get(user=self.user, conversation_id=conversation_id)
            context, status = conv.conversation_turn_context(conversation=conversation, sent=context)
        conv.message_add(conversation=conversation, role=Message.Role.USER, content=text, ui_context=context)
        return conversation, context, status

    def _offer(self, conversation, text: str, context: dict | None) -> list[ToolSpec]:
        specs = toolset_for(user=self.user, context=context)
        policy.audit_record(
            event_type=Event.TOOL_OFFERED,
            actor=self.user,
            conversation_id=conversation.pk,
            env_id=(context or {}).get("envId"),
            extra={"tools": [s.name for s in specs], "object_type": (context or {}).get("objectType")},
        )
        return specs

    async def _loop(self, conversation, messages: list[BaseMessage], offered: list[ToolSpec], context, language):
        schemas = [spec.openai_schema() for spec in offered]
        model = self.model or chat_model()
        bound = model.bind_tools(schemas) if schemas else model
        for _ in range(settings.AGENT_MAX_STEPS):
            ai = await self._stream_step(conversation, bound, messages)
            if ai is None:
                return
            messages.append(ai)
            if not ai.tool_calls:
                return
            for call in ai.tool_calls:
                messages.append(await self._handle_call(conversation, call, offered, context, language))
        text = "Достигнут предел шагов агента." if language == "ru" else "The agent reached its step limit."
        await self._final_message(conversation, text)

    async def _stream_step(self, conversation, bound, messages: list[BaseMessage]) -> AIMessage | None:
        row = await database_sync_to_async(conv.message_add)(conversation=conversation, role=Message.Role.ASSISTANT)
        tokens = _TokenStream(self.emit, row.pk)
        acc: AIMessageChunk | None = None
        try:
            async for chunk in bound.astream(messages):
                acc = chunk if acc is None else acc + chunk
                if chunk.content:
                    await tokens.add(str(chunk.content))
        except (openai.APIError, httpx.TransportError) as exc:
            error = LLMUnavailable(type(exc).__name__)
            await self.emit({"event": "error", "code": error.code, "message": error.text(detect_language(""))})
            await database_sync_to_async(conv.message_update)(message_id=row.pk, content="", tool_calls=[])
            return None
        await tokens.flush()
        text = str(acc.content) if acc is not None else ""
        calls = [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in (acc.tool_calls if acc else [])]
        calls += [
            {"id": c.get("id") or f"invalid_{i}", "name": c.get("name") or "?", "args": {}, "invalid": c.get("error")}
            for i, c in enumerate(acc.invalid_tool_calls if acc else [])
        ]
        await database_sync_to_async(conv.message_update)(message_id=row.pk, content=text, tool_calls=calls)
        if not calls:
            await self.emit(
                {"event": "message", "message_id": row.pk, "text": text, "html": _message_html(text, "assistant")}
            )
        return AIMessage(content=text, tool_calls=[{k: c[k] for k in ("id", "name", "args")} for c in calls])

    async def _final_message(self, conversation, text: str) -> None:
        row = await database_sync_to_async(conv.message_add)(
            conversation=conversation, role=Message.Role.ASSISTANT, content=text
        )
        await self.emit(
            {"event": "message", "message_id": row.pk, "text": text, "html": _message_html(text, "assistant")}
        )

    async def _handle_call(self, conversation, call: dict, offered: list[ToolSpec], context, language) -> ToolMessage:
        """Check, run and record one tool call; always returns the one ToolMessage for ``call['id']``."""
        name, call_id = call["name"], call["id"]
        spec = tool_spec(name)
        offered_names = {s.name for s in offered}
        permitted = await database_sync_to_async(policy.tool_permitted)(user=self.user, tool_name=name)
        if spec is None or name not in offered_names or not (permitted or name == "show_capabilities"):
            return await self._deny(conversation, call, language)
        args = dict(call.get("args") or {})
        if "env_id" in spec.args_schema.model_fields and not args.get("env_id") and (context or {}).get("envId"):
            args["env_id"] = context["envId"]
        await self.emit({"event": "tool_started", "call_id": call_id, "tool": name})
        outcome = await tool_execute(
            spec=spec,
            args=args,
            user=self.user,
            conversation_id=conversation.pk,
            ui_context=context,
            language=language,
        )
        return await self._finish(conversation, spec, call_id, args, outcome)

    async def _finish(self, conversation, spec: ToolSpec, call_id: str, args: dict, outcome: ToolOutcome):
        if outcome.ok:
            raw = to_json(outcome.result)
            sent_value, was_summarised = summarise(outcome.result, settings.TOOL_RESPONSE_MAX_CHARS)
            content, status = to_json(sent_value), "success"
        else:
            raw, was_summarised = "", False
            content = to_json({"error": outcome.error_code, "message": outcome.error_message})
            status = "error"
        await database_sync_to_async(_record_tool_result)(
            user=self.user,
            conversation=conversation,
            spec=spec,
            call_id=call_id,
            args=args,
            outcome=outcome,
            content=content,
            status=status,
            raw_chars=len(raw),
            summarised=was_summarised,
        )
        await self.emit(
            {
                "event": "tool_finished",
                "call_id": call_id,
                "tool": spec.name,
                "ok": outcome.ok,
                "duration_ms": outcome.duration_ms,
                "summarised": was_summarised,
            }
        )
        if not outcome.ok:
            await self.emit({"event": "error", "code": outcome.error_code, "message": outcome.error_message})
        return ToolMessage(content=content, tool_call_id=call_id, status=status)

    async def _deny(self, conversation, call: dict, language: str) -> ToolMessage:
        name = call["name"]
        roles = await database_sync_to_async(policy.tool_required_roles)(tool_name=name)
        content = to_json(
            {
                "error": "permission_denied",
                "message": f"Tool call refused: {name} is not available to this user here. Do not retry it.",
            }
        )
        await database_sync_to_async(_record_denial)(
            user=self.user, conversation=conversation, call=call, roles=roles, content=content
        )
        html = render_to_string("chat/card_denied.html", {"tool": name, "roles": roles, "language": language})
        await self.emit(
            {"event": "permission_denied", "call_id": call["id"], "tool": name, "required_roles": roles, "html": html}
        )
        return ToolMessage(content=content, tool_call_id=call["id"], status="error")


def _message_html(text: str, role: str) -> str:
    return render_to_string("chat/message.html", {"text": text, "role": role})


def _record_tool_result(*, user, conversation, spec, call_id, args, outcome, content, status, raw_chars, summarised):
    """Store the ToolMessage and its audit rows in one transaction."""
    with transaction.atomic():
        conv.message_add(
            conversation=conversation,
            role=Message.Role.TOOL,
            content=content,
            tool_call_id=call_id,
            tool_name=spec.name,
            status=status,
        )
        common = {"actor": user, "conversation_id": conversation.pk, "tool": spec.name, "env_id": args.get("env_id")}
        for event in outcome.retry_events:
            policy.audit_record(event_type=Event.RETRY, outcome="retry", extra=event, **common)
        if summarised:
            policy.audit_record(event_type=Event.SUMMARISED, raw_chars=raw_chars, sent_chars=len(content), **common)
        policy.audit_record(
            event_type=Event.TOOL_RESULT if outcome.ok else _error_event(outcome.error_code),
            args=args,
            raw_chars=raw_chars if outcome.ok else None,
            sent_chars=len(content),
            duration_ms=outcome.duration_ms,
            outcome="ok" if outcome.ok else outcome.error_code or "error",
            extra={
                "call_id": call_id,
                "requests": outcome.requests,
                "retries": outcome.retries,
                "category": spec.category,
                "message": outcome.error_message,
            },
            **common,
        )


def _error_event(code: str | None) -> str:
    return {"timeout": Event.TIMEOUT, "session_expired": Event.SESSION_EXPIRED}.get(code or "", Event.TOOL_ERROR)


def _record_denial(*, user, conversation, call, roles, content):
    with transaction.atomic():
        conv.message_add(
            conversation=conversation,
            role=Message.Role.TOOL,
            content=content,
            tool_call_id=call["id"],
            tool_name=call["name"],
            status="error",
        )
        policy.audit_record(
            event_type=Event.PERMISSION_DENIED,
            actor=user,
            conversation_id=conversation.pk,
            tool=call["name"],
            args=call.get("args"),
            outcome="denied",
            extra={"call_id": call["id"], "required_roles": roles},
        )
