"""Every audit write of a turn (DESIGN §4) and the stored result of each tool call.

Each function is one sync unit of database work, called once through ``database_sync_to_async`` (STYLE: change
+ audit in one transaction). Audit rows written by the guard (confirmations: created, refused, decided, expired)
stay with the confirmation they record, in ``guard.confirmations``.
"""

from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from agentchat.conversations import services as conv
from agentchat.guard import confirmations as confirm
from agentchat.models import Conversation, Message, PendingConfirmation
from agentchat.runtime.executor import ToolMessagePayload, ToolOutcome
from agentchat.runtime.spec import ToolSpec
from agentchat.toolset.selection import Offer
from policies import services as policy
from policies.models import AuditEvent

Event = AuditEvent.EventType


def offer_record(*, user: User, conversation_id: int, context: dict[str, Any] | None, offer: Offer) -> None:
    """Audit ``tool_offered``: the names the LLM is offered this step and the page's object type (DESIGN §5 step 3)."""
    policy.audit_record(
        event_type=Event.TOOL_OFFERED,
        actor=user,
        conversation_id=conversation_id,
        env_id=(context or {}).get("envId"),
        extra={"tools": [s.name for s in offer.offered], "object_type": (context or {}).get("objectType")},
    )


def call_started_record(
    *,
    user: User,
    conversation_id: int,
    spec: ToolSpec,
    call_id: str,
    args: dict[str, Any],
    confirmation_id: int | None,
) -> None:
    """Audit ``tool_call`` (outcome ``started``) before the call runs, so a call that never finishes (crash, kill)
    still shows (DESIGN §4)."""
    policy.audit_record(
        event_type=Event.TOOL_CALL,
        actor=user,
        conversation_id=conversation_id,
        tool=spec.name,
        env_id=args.get("env_id") or args.get("target_env_id"),
        args=args,
        outcome="started",
        extra={"call_id": call_id, "category": spec.category, "confirmation_id": confirmation_id},
    )


def tool_result_record(
    *,
    user: User,
    conversation: Conversation,
    tool: str,
    category: str,
    call_id: str,
    args: dict[str, Any],
    outcome: ToolOutcome,
    payload: ToolMessagePayload,
    confirmation_id: int | None = None,
) -> None:
    """Store the ToolMessage, the confirmation's final status and the audit rows in one transaction.

    Rows (DESIGN §4 audit, §10 sizes): one ``retry`` per retry; ``summarised`` (raw/sent characters) when the
    result was summarised; then the call's own row: ``tool_result`` (ok), ``timeout`` (deadline),
    ``session_expired``, ``permission_denied`` (Superset refused it: ``extra.source`` = ``superset``) or
    ``tool_error`` (``outcome`` = the error code, e.g. ``status_unknown``, ``rate_limited``, ``no_identity``).
    ``extra.acting`` names whom Superset saw per environment (kind ``password``/``api_key``/``service``, username).
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
        common: dict[str, Any] = {"actor": user, "conversation_id": conversation.pk, "tool": tool, "env_id": env_id}
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
                **({"upstream": outcome.error_detail} if outcome.error_detail else {}),
                "confirmation_id": confirmation_id,
                "acting": outcome.acting,
                **({"source": "superset"} if outcome.error_code == "superset_denied" else {}),
                **_change_links(outcome.result),
            },
            **common,
        )


def _change_links(result: Any) -> dict[str, Any]:
    """What the audit row of a deploy keeps for the deploy history (issue 28 items 3, 5): ``{"backup_id": n}`` of
    the copy saved before overwriting, ``{"deploy": {"source_env_id", "target_env_id", "source_dashboard_ids",
    "dashboards": [title], "target_dashboard_ids"}}`` of what was deployed (or queued, for a migration: no target
    ids yet)."""
    if not isinstance(result, dict):
        return {}
    copy = result.get("copy")
    out = {"backup_id": copy["backup_id"]} if isinstance(copy, dict) and copy.get("backup_id") else {}
    if result.get("target_env_id") and result.get("source_dashboard_ids") is not None:
        titles = [d.get("title") if isinstance(d, dict) else d for d in result.get("dashboards") or []]
        keys = ("source_env_id", "target_env_id", "source_dashboard_ids")
        target_ids = [d["id"] for d in result.get("dashboards") or [] if isinstance(d, dict) and d.get("id")]
        out["deploy"] = {
            **{key: result.get(key) for key in keys},
            "dashboards": titles,
            "target_dashboard_ids": target_ids,
        }
    return out


def _final_status(outcome: ToolOutcome) -> str:
    if outcome.ok:
        return PendingConfirmation.Status.EXECUTED
    if outcome.error_code == "status_unknown":
        return PendingConfirmation.Status.UNKNOWN
    return PendingConfirmation.Status.FAILED


def _error_event(outcome: ToolOutcome) -> str:
    if outcome.timed_out:
        return Event.TIMEOUT
    if outcome.error_code == "superset_denied":
        return Event.PERMISSION_DENIED  # Superset's own permissions refused it (extra source: superset)
    return Event.SESSION_EXPIRED if outcome.error_code == "session_expired" else Event.TOOL_ERROR


def session_stop_record(*, user: User, conversation_id: int) -> None:
    """Audit ``session_expired`` (``extra.source`` = ``turn``): the turn stopped before its next LLM step because its
    session ended (logout, expiry, password change, deactivation; issue 13 item 5)."""
    policy.audit_record(
        event_type=Event.SESSION_EXPIRED,
        actor=user,
        conversation_id=conversation_id,
        outcome="session_expired",
        extra={"source": "turn", "stopped": "step"},
    )
