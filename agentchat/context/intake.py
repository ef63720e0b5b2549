"""Intake of UIContext payloads at the two edges (DESIGN §5 step 2, §7; seed AGCTX-FR-004, SC-006).

``POST /api/agent/context/`` and the chat consumer both call ``context_accept``: one validator, one audit
shape. A rejected payload is recorded as an ``AuditEvent`` ``context_rejected`` holding the raw payload,
size-capped and made printable, and never reaches a prompt. Sync functions (call them through
``database_sync_to_async`` from async code).
"""

import json
from typing import Any, Literal

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from agentchat.context.uicontext import ContextInvalid, printable, validate_ui_context
from policies import services as policy
from policies.models import AuditEvent

AUDIT_PAYLOAD_MAX_CHARS = 2048
Source = Literal["api", "websocket"]


def payload_text(payload: Any) -> str:
    """Serialise a decoded payload for the audit log: compact JSON, markers as ``"<skipped: …>"``.

    Never raises: values that JSON cannot hold fall back to ``repr``.
    """
    try:
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), default=repr)
    except (ValueError, RecursionError):
        return repr(payload) if not isinstance(payload, dict | list) else f"<{type(payload).__name__}>"


def context_rejection_record(
    *,
    actor: AbstractBaseUser | AnonymousUser | None,
    source: Source,
    errors: dict[str, list[str]],
    raw: str,
    raw_bytes: int | None = None,
    conversation_id: int | None = None,
    outcome: str = "rejected",
) -> AuditEvent:
    """Append the ``context_rejected`` audit row of one refused payload.

    Args:
        actor: the requesting user.
        source: ``api`` or ``websocket``.
        errors: the field errors sent back to the client.
        raw: the payload as received (API: the body text; WebSocket: the ``context`` member re-serialised);
            at most ``AUDIT_PAYLOAD_MAX_CHARS`` characters are kept, unsafe characters escaped.
        raw_bytes: the full payload size in bytes when known (defaults to the UTF-8 size of ``raw``).
        conversation_id: the conversation the message named, if any.
        outcome: ``rejected`` (422 / ``invalid_context``) or ``unparseable`` (400).

    Returns:
        The saved event; ``raw_chars`` = characters of the payload, ``sent_chars`` = 0 (nothing reached the LLM).
    """
    if raw_bytes is None:
        raw_bytes = len(raw.encode("utf-8", "surrogatepass"))
    return policy.audit_record(
        event_type=AuditEvent.EventType.CONTEXT_REJECTED,
        actor=actor,
        conversation_id=conversation_id,
        raw_chars=len(raw),
        sent_chars=0,
        outcome=outcome,
        extra={
            "source": source,
            "errors": {printable(k, 64): [printable(m, 300) for m in v] for k, v in errors.items()},
            "payload": printable(raw, AUDIT_PAYLOAD_MAX_CHARS),
            "payload_bytes": raw_bytes,
            "payload_truncated": len(raw) > AUDIT_PAYLOAD_MAX_CHARS,
        },
    )


def context_accept(
    *,
    payload: Any,
    actor: AbstractBaseUser | AnonymousUser | None,
    source: Source,
    raw: str | None = None,
    raw_bytes: int | None = None,
    conversation_id: int | None = None,
) -> dict[str, Any]:
    """Validate a decoded UIContext against DESIGN §7 and the active environments; audit a refusal.

    Args:
        payload: the decoded JSON value (``strictjson.strict_loads`` output).
        actor: the requesting user.
        source: ``api`` or ``websocket``.
        raw: the payload text as received, for the audit (re-serialised from ``payload`` when None).
        raw_bytes: its size in bytes when ``raw`` is only a head of it.
        conversation_id: the conversation the message named, if any.

    Returns:
        The normalised context dict (every UIContext key present).

    Raises:
        ContextInvalid: field errors; the ``context_rejected`` row is already written.
    """
    active = {env_id for env_id, _ in policy.environment_tiers()}
    try:
        return validate_ui_context(payload, active_env_ids=active).as_dict()
    except ContextInvalid as exc:
        context_rejection_record(
            actor=actor,
            source=source,
            errors=exc.errors,
            raw=raw if raw is not None else payload_text(payload),
            raw_bytes=raw_bytes,
            conversation_id=conversation_id,
        )
        raise
