"""Pending confirmations: create, decide exactly once, expire, re-emit (DESIGN §4, §9; seed AGGRD-FR-003/004).

Each service is one unit of work: the status change and its audit row (and, where the call ends, its
ToolMessage) are written in one transaction. A decision is one conditional UPDATE from ``pending``.
"""

import json
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, pgettext

from agentchat.conversations import services as conv
from agentchat.guard.decision import args_sha256
from agentchat.guard.not_offered import not_offered_text
from agentchat.language import in_language, language_name
from agentchat.models import Conversation, Message, PendingConfirmation
from agentchat.runtime.titles import tool_title
from policies import services as policy
from policies.models import AuditEvent

Status = PendingConfirmation.Status
Event = AuditEvent.EventType

# The ``error`` values of the ToolMessage of a call that never ran (``declined_payload``, planner ``DECLINED``).
NOT_RUN_ERRORS = frozenset({"denied", "expired", "cancelled", "permission_denied"})


def refusal_text(
    tool: str,
    refusal: str,
    roles: list[str] | tuple[str, ...],
    language: str | None = None,
    detail: dict[str, Any] | None = None,
) -> str:
    """What the user is told about a call the invocation-level check refused, in ``language`` (None: the active
    one): the operation's title and why (``refusal``: ``unknown_tool``, ``disabled``, ``not_offered`` — then the
    real reason from ``detail``, ``guard.not_offered`` —, else the role, naming ``roles`` as alternatives), then
    «Nothing was run.». Plain text (the card says it in HTML)."""
    with in_language(language):
        title = tool_title(tool)
        if refusal == "unknown_tool":
            text = gettext("There is no such operation (%(tool)s).") % {"tool": tool}
        elif refusal == "disabled":
            text = gettext("%(title)s is switched off by an administrator.") % {"title": title}
        elif refusal == "not_offered":
            text = not_offered_text(tool, detail)
        else:
            names = pgettext("between alternative roles", " or ").join(roles) or pgettext("no roles", "none")
            text = gettext("%(title)s is not available to your role: it needs the role %(roles)s.") % {
                "title": title,
                "roles": names,
            }
        return f"{text[:1].upper()}{text[1:]} {gettext('Nothing was run.')}"


def declined_payload(
    tool: str,
    reason: str,
    refusal: str = "",
    *,
    language: str | None = None,
    roles: list[str] | tuple[str, ...] = (),
    detail: dict[str, Any] | None = None,
) -> str:
    """The ToolMessage JSON for a call that did not run: ``reason`` is ``denied``, ``expired`` or ``refused``
    (then ``refusal`` says why: ``unknown_tool``, ``disabled``, ``role``, ``not_offered``; ``roles``: who may;
    ``detail``: why a tool was not offered, ``toolset.not_offered_detail``).

    A refusal and a denial end with the turn's answer language (``language``, ``ru``/``en``: the language of the
    user's message), a refusal also with what to tell the user in it (``refusal_text``): the tool result is what a
    small model reads last, and an English instruction there made a 1.5B model answer a Russian question in
    English although the system prompt named Russian (issue 16, ``bench/llm_eval.py`` analyst-write). An expiry
    names none: the new user message that expired the card comes after it.
    """
    name = language_name(language) or "the user's language"
    if reason == "refused":
        message = (
            f"Tool call refused ({refusal}): {tool} is not available to this user here. Do not retry it. "
            f"Tell the user in {name}: {refusal_text(tool, refusal, roles, language, detail)}"
        )
    elif reason == "denied":
        message = (
            f"The user declined the call of {tool}. It was not run. Do not retry it; ask the user instead, in {name}."
        )
    else:
        message = (
            f"The confirmation of {tool} expired because the user sent a new message. It was not run. "
            "Do not retry it unless the user asks again."
        )
    payload = {"error": "permission_denied" if reason == "refused" else reason, "message": message}
    if refusal:
        payload["reason"] = refusal
    return conv.tool_payload(payload)


def _audit(confirmation: PendingConfirmation, event_type: str, outcome: str, **extra: Any) -> None:
    policy.audit_record(
        event_type=event_type,
        actor=confirmation.user,
        conversation_id=confirmation.conversation_id,
        tool=confirmation.tool,
        env_id=confirmation.decision.get("env_id"),
        args=confirmation.args,
        outcome=outcome,
        extra={
            "confirmation_id": confirmation.pk,
            "call_id": confirmation.call_id,
            "decision": confirmation.decision,
            **extra,
        },
    )


def confirmation_create(
    *,
    conversation: Conversation,
    user: User,
    assistant_message_id: int | None,
    call_id: str,
    tool: str,
    args: dict[str, Any],
    args_sha256: str,
    decision: dict[str, Any],
    language: str,
) -> PendingConfirmation:
    """Persist a pending confirmation and audit ``confirm_required`` (before the card is sent)."""
    with transaction.atomic():
        confirmation = PendingConfirmation.objects.create(
            conversation=conversation,
            user=user,
            assistant_message_id=assistant_message_id,
            call_id=call_id,
            tool=tool,
            args=args,
            args_sha256=args_sha256,
            decision=decision,
            language=language,
        )
        _audit(confirmation, Event.CONFIRM_REQUIRED, "pending")
    return confirmation


def confirmation_refuse(
    *,
    conversation: Conversation,
    user: User,
    call_id: str,
    tool: str,
    args: dict[str, Any],
    roles: list[str],
    language: str,
    refusal: str,
    detail: dict[str, Any] | None = None,
) -> PendingConfirmation:
    """Record a call refused by the invocation-level permission check (AGTL-FR-005).

    Stores the refusal row (status ``refused``, so the denied card can be dismissed by id; ``detail``, why a tool
    was not offered, in its ``decision["not_offered"]`` for the history's card), the ToolMessage telling the LLM
    not to retry, and the ``permission_denied`` audit row, in one transaction.
    """
    with transaction.atomic():
        confirmation = PendingConfirmation.objects.create(
            conversation=conversation,
            user=user,
            call_id=call_id,
            tool=tool,
            args=args if isinstance(args, dict) else {},
            args_sha256="",
            decision={
                "permitted": False,
                "required_roles": roles,
                "reason": refusal,
                **({"not_offered": detail} if detail else {}),
            },
            language=language,
            status=Status.REFUSED,
            decided_at=timezone.now(),
        )
        conv.message_add(
            conversation=conversation,
            role=Message.Role.TOOL,
            content=declined_payload(tool, "refused", refusal, language=language, roles=roles, detail=detail),
            tool_call_id=call_id,
            tool_name=tool,
            status="error",
        )
        # The actor's roles at the time of the refusal, for the audit report (they may change later).
        actor_roles = policy.user_roles(user=user)
        _audit(
            confirmation,
            Event.PERMISSION_DENIED,
            "denied",
            required_roles=roles,
            reason=refusal,
            actor_roles=actor_roles,
        )
    return confirmation


@dataclass
class Decided:
    """Result of ``confirmation_decide``: ``outcome`` is ``approved``, ``denied``, ``not_found`` (missing or another
    user's: audited), ``already`` (decided before: nothing happens), ``typed_mismatch`` (prod card without the
    typed environment id) or ``bad_option`` (an option the card did not offer: nothing happens)."""

    outcome: str
    confirmation: PendingConfirmation | None = None


def confirmation_decide(
    *,
    user: User,
    confirmation_id: int,
    approve: bool,
    typed_env: str | None = None,
    options: list[str] | None = None,
) -> Decided:
    """Decide a pending confirmation once: a single conditional UPDATE ``pending`` → ``approved|denied``.

    An approval with ``options`` (names of the card's ``decision["options"]``, issue 28 item 2) sets those boolean
    arguments to true in the stored call in the same UPDATE (new ``args_sha256``; ``decision["chosen"]`` names
    them), so what runs is what was confirmed; an option the card did not offer refuses the decision.
    A denial also stores the ToolMessage «declined, do not retry» (the card says «Операция отменена»: no other
    chat line, issue 28 item 6).
    Another user's (or a missing) id is refused and audited as ``forbidden_reference`` without touching the row.
    """
    row = PendingConfirmation.objects.filter(pk=confirmation_id).select_related("user").first()
    if row is None or row.user_id != user.pk:
        conv.reference_refused(user=user, kind="confirmation", ref_id=confirmation_id)
        return Decided("not_found")
    if row.status != Status.PENDING:
        return Decided("already", row)
    if approve and row.decision.get("typed_confirmation") and (typed_env or "").strip() != row.decision.get("env_id"):
        return Decided("typed_mismatch", row)
    offered = {o.get("name") for o in row.decision.get("options") or [] if isinstance(o, dict)}
    chosen = sorted(set(options or [])) if approve else []
    if not offered.issuperset(chosen):
        return Decided("bad_option", row)
    changes: dict[str, Any] = {}
    if chosen:
        args = {**row.args, **dict.fromkeys(chosen, True)}
        changes = {"args": args, "args_sha256": args_sha256(args), "decision": {**row.decision, "chosen": chosen}}
    new_status = Status.APPROVED if approve else Status.DENIED
    with transaction.atomic():
        decided_at = timezone.now()
        won = PendingConfirmation.objects.filter(pk=row.pk, user=user, status=Status.PENDING).update(
            status=new_status, decided_at=decided_at, **changes
        )
        if not won:
            return Decided("already", row)
        row.status, row.decided_at = new_status, decided_at
        for name, value in changes.items():
            setattr(row, name, value)
        if approve:
            _audit(row, Event.CONFIRMED, "approved")
        else:
            conv.message_add(
                conversation=row.conversation,
                role=Message.Role.TOOL,
                content=declined_payload(row.tool, "denied", language=row.language),
                tool_call_id=row.call_id,
                tool_name=row.tool,
                status="error",
            )
            _audit(row, Event.DENIED, "denied")
            _audit(row, Event.CANCELLED, "cancelled")
    return Decided("approved" if approve else "denied", row)


def not_run(content: str) -> bool:
    """True for the ToolMessage content of a call that never ran (denied, expired, refused: ``declined_payload``)."""
    try:
        payload = json.loads(content)
    except ValueError:
        return False
    return isinstance(payload, dict) and payload.get("error") in NOT_RUN_ERRORS


def step_ran_calls(*, row: PendingConfirmation) -> bool:
    """True when another call of the assistant step that asked for ``row`` ran (its ToolMessage is a result, not a
    refusal or a decline): the model then has results to answer after the user denied ``row``; otherwise a denial
    ends the turn with its card as the one cancellation line (issue 28 item 6). A row without its step: True."""
    step = Message.objects.filter(pk=row.assistant_message_id).first() if row.assistant_message_id else None
    if step is None:
        return True
    others = [c.get("id") for c in step.tool_calls or [] if isinstance(c, dict) and c.get("id") != row.call_id]
    results = Message.objects.filter(
        conversation_id=row.conversation_id, role=Message.Role.TOOL, tool_call_id__in=others
    )
    return any(not not_run(m.content) for m in results)


def confirmation_finish(*, confirmation_id: int, status: str) -> None:
    """Set the final status of an approved confirmation: ``executed``, ``failed`` or ``unknown``."""
    PendingConfirmation.objects.filter(pk=confirmation_id, status=Status.APPROVED).update(status=status)


def confirmation_dismiss(*, user: User, confirmation_id: int) -> PendingConfirmation | None:
    """Dismiss a denied card («Недостаточно прав»): audit ``cancelled``; None if it is not the user's refusal (a card
    of another user, or none, is also audited as ``forbidden_reference``)."""
    row = PendingConfirmation.objects.filter(pk=confirmation_id, user=user, status=Status.REFUSED).first()
    if row is not None:
        _audit(row, Event.CANCELLED, "dismissed")
    elif not PendingConfirmation.objects.filter(pk=confirmation_id, user=user).exists():
        conv.reference_refused(user=user, kind="confirmation", ref_id=confirmation_id)  # another user's or none
    return row


def confirmations_expire(*, conversation: Conversation) -> list[PendingConfirmation]:
    """Expire every pending confirmation of ``conversation`` (a new user message arrived).

    Each expired call gets its ToolMessage and an ``expired`` audit row; returns the expired rows.
    """
    expired = []
    with transaction.atomic(savepoint=False):  # part of the turn's opening transaction (turn.preparation.turn_open)
        for row in PendingConfirmation.objects.select_for_update().filter(
            conversation=conversation, status=Status.PENDING
        ):
            if not PendingConfirmation.objects.filter(pk=row.pk, status=Status.PENDING).update(
                status=Status.EXPIRED, decided_at=timezone.now()
            ):
                continue
            row.status = Status.EXPIRED
            conv.message_add(
                conversation=conversation,
                role=Message.Role.TOOL,
                content=declined_payload(row.tool, "expired"),
                tool_call_id=row.call_id,
                tool_name=row.tool,
                status="error",
            )
            _audit(row, Event.EXPIRED, "expired")
            expired.append(row)
    return expired


def confirmations_pending(*, conversation: Conversation) -> list[PendingConfirmation]:
    """Return the still-pending confirmations of ``conversation``, oldest first."""
    return list(PendingConfirmation.objects.filter(conversation=conversation, status=Status.PENDING))


def awaiting_decisions(*, conversation: Conversation) -> bool:
    """True while any confirmation of ``conversation`` is pending or approved but not yet finished."""
    return PendingConfirmation.objects.filter(
        conversation=conversation, status__in=[Status.PENDING, Status.APPROVED]
    ).exists()
