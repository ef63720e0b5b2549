"""JSON API (DRF): UIContext validation and conversation history. Thin: validate, call a service, serialise."""

from typing import Any

from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from policies import services as policy
from policies.models import AuditEvent

from . import conversations as conv
from .context import ContextInvalid, validate_ui_context
from .toolset import toolset_explain


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF handler: ``ContextInvalid`` → 422 with field errors; an unparseable body stays 400."""
    if isinstance(exc, ContextInvalid):
        return Response({"errors": exc.errors}, status=status.HTTP_422_UNPROCESSABLE_ENTITY)
    return drf_exception_handler(exc, context)


class ContextView(APIView):
    """``POST /api/agent/context/``: 200 with the normalised UIContext, or 422 with field errors (DESIGN §7)."""

    def post(self, request: Request) -> Response:
        try:
            payload = request.data
        except exceptions.ParseError:
            raise
        active = {e.env_id for e in policy.environments_active()}
        try:
            context = validate_ui_context(payload, active_env_ids=active)
        except ContextInvalid as exc:
            policy.audit_record(
                event_type=AuditEvent.EventType.CONTEXT_REJECTED,
                actor=request.user,
                outcome="rejected",
                extra={
                    "payload": payload if isinstance(payload, dict | list | str) else repr(payload),
                    "errors": exc.errors,
                    "source": "api",
                },
            )
            raise
        return Response(context.as_dict())


class ConversationView(APIView):
    """``GET /api/agent/conversations/<id>/``: the user's conversation with its visible messages."""

    def get(self, request: Request, conversation_id: int) -> Response:
        try:
            conversation = conv.conversation_get(user=request.user, conversation_id=conversation_id)
        except conv.ConversationNotFound:
            raise Http404 from None
        messages = [
            {"id": m.pk, "role": m.role, "content": m.content, "tool_name": m.tool_name, "status": m.status}
            for m in conversation.messages.all()
            if m.role in ("user", "assistant") and m.content
        ]
        return Response(
            {
                "id": conversation.pk,
                "title": conversation.title,
                "ui_context": conversation.ui_context,
                "messages": messages,
            }
        )


TOOLSET_QUERY_PARAMS = ("objectType", "envId", "q")
CONTEXT_QUERY_PARAMS = ("objectType", "envId")
QUESTION_MAX_CHARS = 4000


def _toolset_query_context(params) -> dict:
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


def _score(choice) -> float | None:
    return None if choice.route_score is None else round(choice.route_score, 4)


def _tool_row(choice) -> dict[str, Any]:
    row = {"name": choice.name, "category": choice.category, "env_specific": choice.env_specific}
    if choice.route_score is not None:
        row["score"] = _score(choice)
    return row
