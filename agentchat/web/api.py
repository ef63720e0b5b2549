"""JSON API (DRF): UIContext validation and conversation history. Thin: validate, call a service, serialise."""

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.http import Http404, QueryDict
from django.template.loader import render_to_string
from rest_framework import exceptions, status
from rest_framework.parsers import BaseParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from agentchat.context.intake import context_accept, context_rejection_record
from agentchat.context.strictjson import JSONUnparseable, Skipped, strict_loads
from agentchat.context.uicontext import ContextInvalid, validate_ui_context
from agentchat.conversations.selectors import (
    ConversationNotFound,
    context_label,
    conversation_get,
    conversation_predates_context,
    conversations_of,
)
from agentchat.errors import NOT_APPLICABLE
from agentchat.guard import cards
from agentchat.guard.confirmations import not_run
from agentchat.language import conversation_language
from agentchat.models import Conversation, Message, task_kind_label
from agentchat.runtime.titles import tool_title
from agentchat.tools.tasks import task_status_visible
from agentchat.toolset.selection import ToolChoice, toolset_explain
from agentchat.turn.rendering import message_html
from agentchat.turn.results import result_html
from policies import services as policy

MAX_BODY_BYTES = 64 * 1024  # bodies above this are not parsed at all (same bound as a WebSocket frame)


class AuthenticatedRequest(Request):
    """The request of a view behind ``IsAuthenticated`` (the default permission, ``settings.REST_FRAMEWORK``)."""

    user: User


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF handler: ``ContextInvalid`` → 422 with field errors; an unparseable body stays 400."""
    if isinstance(exc, ContextInvalid):
        return Response({"errors": exc.errors}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
    return drf_exception_handler(exc, context)


@dataclass(frozen=True)
class StrictBody:
    """A body decoded by ``StrictJSONParser``: ``value`` (may hold strictjson markers), ``raw`` text, ``size``."""

    value: Any
    raw: str
    size: int


class UnparseableBody(exceptions.ParseError):
    """400: the body is not UTF-8 JSON; ``raw``/``size`` are kept for the audit."""

    def __init__(self, detail: str, *, raw: str, size: int):
        super().__init__(detail)
        self.raw = raw
        self.size = size


class StrictJSONParser(BaseParser):
    """``application/json`` parser for hostile bodies (``strictjson``): duplicate keys and deep nesting stay
    visible for the validator (→ 422) instead of being merged or crashing; only non-JSON is a 400.

    A body over ``MAX_BODY_BYTES`` is not parsed: it becomes a ``Skipped`` value, i.e. an oversized context.
    """

    media_type = "application/json"

    # DRF keeps whatever ``parse`` returns as ``request.data``; the views read a ``StrictBody`` there, not a mapping.
    def parse(  # type: ignore[override]
        self, stream: IO[bytes], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> StrictBody:
        """Return a ``StrictBody``.

        Raises:
            UnparseableBody: not UTF-8 or not JSON.
        """
        data = stream.read(MAX_BODY_BYTES + 1)
        if len(data) > MAX_BODY_BYTES:  # the rest is never read; its size is the declared one
            declared = _content_length(parser_context["request"]) if parser_context else 0
            size = max(declared, len(data))
            head = data[:4096].decode("utf-8", "replace")
            return StrictBody(Skipped(f"body of {size} bytes is over {MAX_BODY_BYTES}, not parsed"), head, size)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise UnparseableBody("body is not UTF-8", raw=data.decode("utf-8", "replace"), size=len(data)) from None
        try:
            return StrictBody(strict_loads(text), text, len(data))
        except JSONUnparseable as exc:
            raise UnparseableBody(f"body is not JSON: {exc}", raw=text, size=len(data)) from None


def _content_length(request: Request) -> int:
    """The declared body size in bytes (``Content-Length``), 0 when absent or malformed."""
    length = str(request.META.get("CONTENT_LENGTH", ""))
    return int(length) if length.isdigit() else 0


def _audit_unreadable(request: Request, exc: exceptions.APIException | None) -> None:
    """Audit a body that never became a context: not JSON (400), empty (400) or not ``application/json`` (415)."""
    if isinstance(exc, UnparseableBody):
        raw, size, outcome = exc.raw, exc.size, "unparseable"
    else:
        raw, size = "", _content_length(request)
        outcome = "unparseable" if exc is None else "unsupported_media_type"
    detail = str(exc.detail) if exc is not None else "empty body"
    context_rejection_record(
        actor=request.user, source="api", errors={"__all__": [detail]}, raw=raw, raw_bytes=size, outcome=outcome
    )


class ContextView(APIView):
    """``POST /api/agent/context/``: 200 with the normalised UIContext, 422 with field errors (DESIGN §7), 400 for
    a body that is not JSON. Every refusal is audited as ``context_rejected`` with the raw body (size-capped)."""

    parser_classes = [StrictJSONParser]

    def post(self, request: Request) -> Response:
        try:
            body = request.data
        except (UnparseableBody, exceptions.UnsupportedMediaType) as exc:
            _audit_unreadable(request, exc)
            raise
        if not isinstance(body, StrictBody):  # an empty body: DRF does not call the parser
            _audit_unreadable(request, None)
            raise exceptions.ParseError("empty body")
        context = context_accept(
            payload=body.value, actor=request.user, source="api", raw=body.raw, raw_bytes=body.size
        )
        return Response(context)


class ConversationListView(APIView):
    """``GET /api/agent/conversations/?q=…``: the history list's items (``{"html"}``, the same partial the page
    renders), the user's conversations whose title or a question contains ``q``; all recent ones without it."""

    def get(self, request: AuthenticatedRequest) -> Response:
        query = str(request.query_params.get("q", ""))[:200]
        history = conversations_of(user=request.user, query=query)
        return Response({"html": render_to_string("pages/_history_items.html", {"history": history}, request)})


class ConversationView(APIView):
    """``GET /api/agent/conversations/<id>/``: the user's conversation with its visible messages."""

    def get(self, request: AuthenticatedRequest, conversation_id: int) -> Response:
        try:
            conversation = conversation_get(user=request.user, conversation_id=conversation_id)
        except ConversationNotFound:
            raise Http404 from None
        rows = list(conversation.messages.all())
        messages = [
            {"id": m.pk, "role": m.role, "content": m.content, "tool_name": m.tool_name, "status": m.status}
            for m in rows
            if m.role in ("user", "assistant") and m.content
        ]
        return Response(
            {
                "id": conversation.pk,
                "title": conversation.title,
                "ui_context": conversation.ui_context,
                "object": context_label(conversation.ui_context),
                "context_available": not conversation_predates_context(conversation=conversation),
                "messages": messages,
                "timeline": conversation_timeline(conversation, rows),
            }
        )


def conversation_timeline(conversation: Conversation, rows: list[Message]) -> list[dict[str, Any]]:
    """What the chat showed, in order, for a reloaded page: text messages, system lines («Операция отменена»),
    one line per tool that ran, and each decided card as it ended (pending cards come live through ``resume``).

    Args:
        conversation: the user's ``Conversation``.
        rows: its ``Message`` rows in id order.

    Returns:
        ``[{"kind": "message", "id", "role", "content"} (+ ``"html"``, an answer's rendered Markdown) |
        {"kind": "tool", "id", "tool", "title", "ok"} (+ ``"html"``, the result's view: a SQL result's table; a
        failed call's ``"message"`` and Superset's ``"detail"``; ``"moot"`` for a call that found nothing to do) |
        {"kind": "card", "id", "status", "html"}]``.
    """
    language = settings.LANGUAGE_CODE  # each tool line speaks the language of the turn it ran in
    after: dict[int, list[dict[str, Any]]] = {}
    for card in conversation.confirmations.select_related("user").order_by("pk"):
        html = cards.card_decided(card)
        if html:
            key = card.assistant_message_id or 0
            after.setdefault(key, []).append({"kind": "card", "id": card.pk, "status": card.status, "html": html})
    timeline: list[dict[str, Any]] = list(after.pop(0, []))
    said: list[str] = []
    for m in rows:
        if m.role == "user":  # the turn's language (turn.agent): a one-word follow-up keeps the conversation's
            said.append(m.content)
            language = conversation_language(said)
        if m.role in ("user", "assistant", "system") and m.content:
            entry = {"kind": "message", "id": m.pk, "role": m.role, "content": m.content}
            if m.role == "assistant":
                entry["html"] = message_html(text=m.content)  # the same rendered Markdown as the live frame
            timeline.append(entry)
        elif m.role == "tool" and not not_run(m.content):  # a call that never ran has no tool line
            timeline.append(
                {
                    "kind": "tool",
                    "id": m.pk,
                    "tool": m.tool_name,
                    "title": tool_title(m.tool_name, language),
                    "ok": m.status != "error",
                    **_result_view(m),
                }
            )
        timeline.extend(after.pop(m.pk, []))
    for rest in after.values():  # cards whose message is gone
        timeline.extend(rest)
    return timeline


def _result_view(m: Message) -> dict[str, Any]:
    """``{"html": …}`` of a stored tool result that has a view of its own (``turn.results``); for a failed call
    the stored ``{"message", "detail"}`` the live line showed, and ``"moot": True`` for a call that found nothing to
    apply to (nothing to roll back: «–», not a failure, as live); else ``{}``."""
    try:
        payload = json.loads(m.content)
    except ValueError:  # json.JSONDecodeError: a result stored as text
        return {}
    if m.status == "error":
        failed = payload if isinstance(payload, dict) else {}
        view: dict[str, Any] = {key: str(failed[key]) for key in ("message", "detail") if failed.get(key)}
        return {**view, "moot": True} if failed.get("error") == NOT_APPLICABLE else view
    html = result_html(m.tool_name, payload, conversation_id=m.conversation_id, call_id=m.tool_call_id)
    return {"html": html} if html else {}


TOOLSET_QUERY_PARAMS = ("objectType", "envId", "q")
CONTEXT_QUERY_PARAMS = ("objectType", "envId")
QUESTION_MAX_CHARS = 4000


def _toolset_query_context(params: QueryDict) -> dict[str, Any]:
    """Turn the preview query into a validated UIContext dict (the same validator as the chat, DESIGN §7).

    Empty values mean "absent". Any other parameter (``role``, ``tools``, …) or a repeated one is a field error:
    the role comes only from the server-side user.

    Raises:
        ContextInvalid: unknown objectType, inactive or malformed envId, unknown or repeated parameters.
    """
    errors = {key: ["unknown parameter"] for key in params if key not in TOOLSET_QUERY_PARAMS}
    errors |= {key: ["given more than once"] for key in TOOLSET_QUERY_PARAMS if len(params.getlist(key)) > 1}
    if len(params.get("q") or "") > QUESTION_MAX_CHARS:
        errors["q"] = [f"at most {QUESTION_MAX_CHARS} characters"]
    if errors:
        raise ContextInvalid(errors)
    payload = {"contextVersion": 1, **{key: params.get(key) or None for key in CONTEXT_QUERY_PARAMS}}
    active = {e.env_id for e in policy.environments_active()}
    return validate_ui_context(payload, active_env_ids=active).as_dict()


class ToolsetView(APIView):
    """``GET /api/agent/tools/?objectType=&envId=&q=``: the tools the calling user would be offered there.

    Same assembly as the chat turn (``toolset.toolset_explain``). With a question ``q`` and the router on
    (``EMBEDDINGS`` ≠ off), the set is the one the LLM would be offered for that question (top ``ROUTER_TOP_K``
    plus show_capabilities), and ``routed_out`` lists the tools the policy allows but the router left out, with
    their scores, so an admin sees why a tool is missing (DESIGN §12).

    200 ``{"objectType", "envId", "roles", "question", "routed", "tools": [{"name", "category", "env_specific"}],
    "routed_out": [{"name", "score"}]}`` ordered by name (``score`` also on routed tools); 422
    ``{"errors": {field: [...]}}`` for an unknown objectType, an unknown or inactive envId, a ``q`` over 4000
    characters, or any other parameter.
    """

    def get(self, request: Request) -> Response:
        context = _toolset_query_context(request.query_params)
        question = (request.query_params.get("q") or "").strip() or None
        roles = policy.user_roles(user=request.user)
        choices = toolset_explain(roles=roles, context=context, question=question)
        routed = any(c.route_score is not None for c in choices)
        return Response(
            {
                "objectType": context["objectType"],
                "envId": context["envId"],
                "roles": roles,
                "question": question,
                "routed": routed,
                "tools": [_tool_row(c) for c in choices if c.offered],
                "routed_out": [{"name": c.name, "score": _score(c)} for c in choices if c.routed_out],
            }
        )


class TaskView(APIView):
    """``GET /api/agent/tasks/<id>/``: state, progress, message and result of the user's background job.

    404 for a job that does not exist or belongs to someone else (admins see every job). Polled by
    ``frontend/js/tasks.js`` to draw the progress bar in the chat; ``kind_label`` is the kind in the request's
    language (the page's).
    """

    def get(self, request: Request, task_id: int) -> Response:
        status_ = task_status_visible(user=request.user, record_id=task_id)
        if status_ is None:
            raise Http404
        return Response({**status_, "kind_label": task_kind_label(status_["kind"])})


def _score(choice: ToolChoice) -> float | None:
    return None if choice.route_score is None else round(choice.route_score, 4)


def _tool_row(choice: ToolChoice) -> dict[str, Any]:
    row: dict[str, Any] = {"name": choice.name, "category": choice.category, "env_specific": choice.env_specific}
    if choice.route_score is not None:
        row["score"] = _score(choice)
    return row
