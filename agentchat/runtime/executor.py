"""Tool execution (DESIGN §10): one path through which every tool call runs.

``tool_execute`` validates the arguments against the tool's schema, runs the tool under a whole-call deadline
(``Tool.timeout_s`` or ``TOOL_TIMEOUT_S``; the deadline covers logins, every request and the retry pause), lets
the Superset client retry one transient failure of a read tool once, and turns every failure into a
``ToolOutcome`` with an error code instead of raising. ``tool_message_payload`` turns an outcome into what the
LLM receives: the summarised result, or the error with an instruction not to repeat the call (the LLM must not
become a second retry layer).
"""

import asyncio
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from pydantic import ValidationError

from agentchat.context.ids import MAX_ID
from agentchat.errors import (
    ID_ARGUMENTS,
    NOT_FOUND_TEXTS,
    ApplicationError,
    InvalidArguments,
    StatusUnknown,
    ToolCrashed,
    ToolError,
    ToolTimeout,
    UpstreamError,
    UpstreamUnavailable,
)
from agentchat.language import in_language
from agentchat.runtime.context import ToolContext
from agentchat.runtime.repair import validation_summary
from agentchat.runtime.spec import ToolSpec
from agentchat.runtime.summarise import summarise, to_json
from agentchat.superset.call import CallState
from policies import services as policy

log = logging.getLogger(__name__)

# What the LLM is told after a failure, so that it explains instead of calling again (DESIGN §10: one retry layer).
LLM_ERROR_INSTRUCTIONS = {
    "timeout": "The tool did not answer in time. Do not call it again in this turn; tell the user.",
    "status_unknown": (
        "The change may or may not have been applied. Never repeat it; ask the user to check its status."
    ),
    "upstream_unavailable": "Superset is unavailable (already retried). Do not call tools again in this turn.",
    "session_expired": (
        "The Superset session of that environment expired. Do not call tools again in this turn; tell the user "
        "what the message says to do (sign in again or reload the page)."
    ),
    "no_identity": (
        "The user has no Superset access in that environment. Do not call tools there again; tell the user what "
        "the message says to do."
    ),
    "superset_denied": (
        "Superset's own permissions refused this for the user. Never retry or work around it; tell the user "
        "Superset's reason."
    ),
    "rate_limited": "Superset is rate limiting. Do not call tools again now; tell the user when to retry.",
    "invalid_args": (
        "Nothing ran: the arguments were refused. Correct them and call again; when a value only the user knows is "
        "missing, ask the user the question in ask_user, in their language, and call no tool."
    ),
}
LLM_ERROR_DEFAULT = "The tool call failed. Do not repeat the same call; explain the error to the user."


@dataclass
class ToolOutcome:
    """Result of one tool call.

    Attributes:
        ok: the tool returned a result.
        result: the tool's full JSON-able result (None on failure).
        error_code: a DESIGN §6 error code on failure (``timeout``, ``status_unknown``, …).
        error_message: user-facing text of the failure in the call's language.
        error_detail: Superset's own text about the failure (its SIP-40 message), shown to the user in an
            expandable detail beside ``error_message`` and sent to the model; None when Superset said nothing.
        duration_ms: wall time of the call in milliseconds.
        requests: upstream HTTP requests made (logins included); logins: of which logins; retries: retries.
        retry_events: ``{"path", "method", "error", "attempt", "after_ms", "delay_s", "trace_id"}`` per retry.
        trace_id: the ``X-Agentchat-Call`` header value sent with every request of the call.
        timed_out: the whole-call deadline ended the call (``timeout`` for reads, ``status_unknown`` otherwise).
        upstream_status: the HTTP status of a Superset answer that failed the call (e.g. 404), else None.
        acting: ``{env_id: {"kind", "superset_username"}}``: whom Superset saw in each environment (DESIGN §15).
        ask_user: for arguments refused because one only the person can give is missing (``missing``: its name),
            the question to ask them, in the turn's language (``runtime.questions``; issue 29 item 5), else None.
    """

    ok: bool
    result: Any = None
    error_code: str | None = None
    error_message: str | None = None
    error_detail: str | None = None
    duration_ms: int = 0
    requests: int = 0
    logins: int = 0
    retries: int = 0
    retry_events: list[dict[str, Any]] = field(default_factory=list)
    trace_id: str = ""
    timed_out: bool = False
    upstream_status: int | None = None
    acting: dict[str, dict[str, str]] = field(default_factory=dict)
    ask_user: str | None = None
    missing: str | None = None


@dataclass(frozen=True)
class ToolMessagePayload:
    """What enters the LLM context for one outcome (DESIGN §10, seed AGTL-FR-003).

    Attributes:
        content: compact JSON text of the ToolMessage, at most ``max_chars`` characters for results.
        status: ``success`` or ``error`` (the ToolMessage status).
        raw_chars: characters of the full result as compact JSON (None for failures).
        sent_chars: ``len(content)``.
        summarised: the result was over the budget and was summarised.
    """

    content: str
    status: str
    raw_chars: int | None
    sent_chars: int
    summarised: bool


def tool_message_payload(
    outcome: ToolOutcome, *, max_chars: int, answer_in: str | None = None, shown_to_user: str | None = None
) -> ToolMessagePayload:
    """Return the ToolMessage content for ``outcome``: the (summarised) result, or the error and an instruction.

    Args:
        outcome: the call's outcome.
        max_chars: ``TOOL_RESPONSE_MAX_CHARS``; results above it are summarised, never cut (``summarise``).
        answer_in: the turn's answer language by name («Russian»: ``agentchat.language.language_name``), added as
            the object's last key ``answer_in`` (a result that is not an object is sent as it is). Issue 16: a
            1.5B model answered a Russian question in English after an English tool result although the system
            prompt named Russian; with the language in the result, read last, it answered in Russian.
        shown_to_user: what the page already shows of a successful result (a SQL result's table, issue 30: the
            model repeated every row as a Markdown table), added as the key ``shown_to_user`` before ``answer_in``.
    """
    told = {"answer_in": answer_in} if answer_in else {}
    if shown_to_user and outcome.ok:
        told = {"shown_to_user": shown_to_user, **told}
    if outcome.ok:
        raw = to_json(outcome.result)
        value, was_summarised = summarise(outcome.result, max_chars, size=len(raw))
        if told and isinstance(value, dict):
            content = to_json({**value, **told})
        else:
            content = to_json(value) if was_summarised else raw
        return ToolMessagePayload(content, "success", len(raw), len(content), was_summarised)
    error: dict[str, Any] = {
        "error": outcome.error_code,
        "message": outcome.error_message,
        "instruction": LLM_ERROR_INSTRUCTIONS.get(outcome.error_code or "", LLM_ERROR_DEFAULT),
    }
    if outcome.upstream_status is not None:
        error["status"] = outcome.upstream_status  # e.g. 404: the object asked for does not exist there
    if outcome.error_detail:
        error["detail"] = outcome.error_detail  # Superset's own words, for a model that reads English
    if outcome.ask_user:
        error.update(missing=outcome.missing, ask_user=outcome.ask_user)
    content = to_json({**error, **told})
    return ToolMessagePayload(content, "error", None, len(content), False)


def tool_timeout_s(spec: ToolSpec) -> float:
    """Return the deadline of ``spec`` in seconds: the admin's ``Tool.timeout_s`` or ``TOOL_TIMEOUT_S``."""
    row = policy.tool_get(name=spec.name)
    if row is not None and row.timeout_s:
        return float(row.timeout_s)
    return float(settings.TOOL_TIMEOUT_S)


async def tool_execute(
    *,
    spec: ToolSpec,
    args: dict[str, Any],
    user: User | None,
    conversation_id: int | None,
    ui_context: dict[str, Any] | None,
    language: str,
    toolset: Sequence[ToolSpec] = (),
) -> ToolOutcome:
    """Run ``spec`` with ``args`` under DESIGN §10 and return its outcome (never raises for tool failures).

    Args:
        spec: the registered tool.
        args: raw arguments (validated here against ``spec.args_schema``).
        user / conversation_id / ui_context / language: the turn the call belongs to.
        toolset: the policy set of the turn (``ToolContext.toolset``).

    Returns:
        ``ToolOutcome``; a timeout of a read is ``timeout``, of a write or dangerous tool ``status_unknown``;
        a 5xx/reset of a write after its change was sent is ``status_unknown``; an unexpected exception of the
        tool is ``internal`` (logged). Cancellation of the turn propagates.
    """
    started = time.monotonic()
    timeout_s = await sync_to_async(tool_timeout_s)(spec)
    call = CallState(retry_transient=spec.category == "read")
    ctx = ToolContext(
        user=user,
        conversation_id=conversation_id,
        ui_context=ui_context,
        language=language,
        call=call,
        timeout_s=timeout_s,
        toolset=tuple(toolset),
    )
    outcome = ToolOutcome(ok=False)
    try:
        beyond = beyond_id_range(args, ui_context)
        if beyond is not None:
            raise beyond
        try:
            parsed = spec.args_schema.model_validate(args)
        except ValidationError as exc:
            raise InvalidArguments(validation_summary(exc, language)) from None
        async with asyncio.timeout(timeout_s):
            with in_language(language):  # the tool's texts speak the call's language, in a turn or on a page
                outcome.result = await spec.func(ctx, parsed)
        outcome.ok = True
    except Exception as exc:  # every failure becomes an outcome; cancellation (BaseException) propagates
        outcome.timed_out = isinstance(exc, TimeoutError)
        error = _failure(exc, spec=spec, call=call, timeout_s=timeout_s)
        outcome.error_code, outcome.error_message = error.code, error.text(language)
        outcome.upstream_status = error.params.get("status")
        outcome.error_detail = error.params.get("upstream") or None
        outcome.ask_user = error.ask_user  # the person's words apart (tools.plan_contradiction)
    finally:
        await ctx.aclose()
        outcome.duration_ms = int((time.monotonic() - started) * 1000)
        outcome.requests, outcome.logins, outcome.retries = call.requests, call.logins, call.retries
        outcome.retry_events, outcome.trace_id = call.events, call.trace_id
        outcome.acting = dict(ctx.acting)
    return outcome


def beyond_id_range(args: Any, ui_context: Any = None) -> UpstreamError | None:
    """The "not found" of an object id argument (``dashboard_id``, ``dataset_id``, ``database_id``, ``chart_id``)
    below 1 or above ``MAX_ID`` (2^63 - 1), else None.

    No object has such an id (Superset's keys are 64-bit), so the call gets the answer Superset gives for a missing
    object (status 404, «Дашборд #… не найден в ss-dev.») without a request, instead of the schema's bound as a
    validator's text (a fresh user's «покажи дашборд 99999999999999999999», issue 32 review). ``args``: the call's
    raw arguments (an int or a string of digits); ``ui_context``: the page's (for its environment when the call
    names none: ``env_id``, else a deploy's ``source_env_id``, else the page's).
    """
    if not isinstance(args, dict):
        return None
    for key, object_type in ID_ARGUMENTS.items():
        value = args.get(key)
        number = int(value) if isinstance(value, str) and value.isdigit() else value
        if isinstance(number, int) and not isinstance(number, bool) and not 1 <= number <= MAX_ID:
            page_env = ui_context.get("envId") if isinstance(ui_context, dict) else getattr(ui_context, "env_id", None)
            env_id = args.get("env_id") or args.get("source_env_id") or page_env or "?"
            error = UpstreamError(f"{key} {number} is beyond the id range", status=404, env=env_id, id=number)
            error.message = NOT_FOUND_TEXTS[object_type]
            return error
    return None


def _failure(exc: Exception, *, spec: ToolSpec, call: CallState, timeout_s: float) -> ApplicationError:
    """Map what a tool raised to the user-facing error (DESIGN §10).

    A deadline is ``timeout`` for reads and ``status_unknown`` for writes (never retried); a write whose change
    may have reached Superset (``call.mutation_sent``) and then failed in any way is ``status_unknown``.
    """
    writes = spec.category != "read"
    if isinstance(exc, TimeoutError):
        return StatusUnknown(tool=spec.name) if writes else ToolTimeout(tool=spec.name, timeout_s=timeout_s)
    if isinstance(exc, ToolError):
        exc.params.setdefault("tool", spec.name)
        if writes and call.mutation_sent and isinstance(exc, UpstreamUnavailable):
            return StatusUnknown(exc.detail, tool=spec.name)
        return exc
    log.error("tool %s crashed", spec.name, exc_info=exc)
    return StatusUnknown(tool=spec.name) if writes and call.mutation_sent else ToolCrashed(tool=spec.name)
