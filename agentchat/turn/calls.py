"""One tool call of a turn (DESIGN §5 steps 6–7, §9, §10): the invocation check, argument validation, the
guardrail decision → a card or a run, and the finish (ToolMessage stored and audited, ``tool_finished`` sent).

Every call id gets exactly one ToolMessage: run, refused, invalid, failed or, later, decided on its card.
"""

from dataclasses import replace
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from langchain_core.messages import ToolMessage
from pydantic import ValidationError

from agentchat.chat.events import Emit, ErrorEvent, ToolFinishedEvent, ToolStartedEvent
from agentchat.conversations.selectors import conversation_get, latest_context
from agentchat.errors import NOT_APPLICABLE, error_text
from agentchat.guard import confirmations as confirm
from agentchat.guard.decision import args_sha256, guardrail_decide
from agentchat.language import language_name
from agentchat.models import Conversation, PendingConfirmation
from agentchat.runtime.binding import LearntIds, bind_call, object_used, unknown_arguments
from agentchat.runtime.executor import ToolOutcome, beyond_id_range, tool_execute, tool_message_payload
from agentchat.runtime.plans import plan_arguments
from agentchat.runtime.provenance import Known, call_provenance
from agentchat.runtime.registry import tool_spec
from agentchat.runtime.repair import missing_question, unknown_arguments_text, validation_summary
from agentchat.runtime.spec import ToolSpec
from agentchat.runtime.titles import tool_title
from agentchat.toolset.selection import Offer, not_offered_detail, tool_call_refusal, toolset_offer
from agentchat.turn.pointing import points_at_page
from agentchat.turn.recording import call_started_record, tool_result_record
from agentchat.turn.rendering import card_refused_event, card_required_event
from agentchat.turn.results import result_html, result_note
from agentchat.turn.steps import AwaitingDecision
from agentchat.turn.truth import REPAIRABLE
from policies import services as policy

TOOL_NAME_MAX_CHARS = 64  # Message.tool_name / AuditEvent.tool


class CallRunner:
    """Handles the tool calls of one user's turns; ``emit`` sends their events to the client.

    Args:
        user: the authenticated Django user (roles come only from here).
        emit: sends one ``OutboundEvent``.
    """

    def __init__(self, *, user: User, emit: Emit):
        self.user = user
        self.emit = emit
        self.repairing: set[str] = set()  # tools whose arguments were refused once this turn (issue 32 item 3)

    async def handle(
        self,
        conversation: Conversation,
        row_id: int,
        call: dict[str, Any],
        offer: Offer,
        context: dict[str, Any] | None,
        language: str,
        question: str = "",
        learnt: LearntIds | None = None,
        known: Known | None = None,
    ) -> ToolMessage | AwaitingDecision:
        """Check one tool call and run it, refuse it, or put it on a card.

        The invocation-level check (``toolset.tool_call_refusal``) runs first, against the database and this
        turn's offered set, before anything else touches the call: a refused call makes no upstream request.

        Args:
            row_id: the assistant message that made the call; call: ``{"id", "name", "args"}`` (+ ``"invalid"``).
            question: the user's message of the turn: when it points at the page's object ("this dashboard") and
                does not name the id the model gave, that id, contradicting the page, is replaced by the page's
                (``runtime.binding.bind_call``; ``turn.pointing.points_at_page``).
            learnt: the ids by object type and environment this turn's tool results gave the model
                (``turn.pointing.learnt_ids``): never replaced by the page's in that environment.
            known: the ids and texts the conversation gave the model (``runtime.provenance.known_from``): a call
                with another id, an environment that does not exist or SQL the user did not give is refused
                before anything reads Superset (``invented_argument``, issue 32 item 1). None: not checked (a
                call the server itself made).

        Returns:
            The call's ToolMessage, or ``AwaitingDecision`` with the card's id when it waits for the user's
            confirmation (DESIGN §5 steps 6–7).
        """
        name, call_id = call["name"], call["id"]
        refusal = await database_sync_to_async(tool_call_refusal)(
            user=self.user, name=name, offered=[s.name for s in offer.offered]
        )
        spec = tool_spec(name)
        if refusal is not None or spec is None:  # a name the registry lacks is refused (``unknown_tool``) above
            refused = str(refusal or "unknown_tool")
            why = not_offered_detail(offer=offer, name=name, context=context) if refused == "not_offered" else None
            return await self._deny(conversation, call, language, refused, why)
        if call.get("invalid"):
            return await self._reject_args(conversation, spec, call_id, {}, str(call["invalid"]), language)
        sent = dict(call.get("args") or {})
        unknown = unknown_arguments(spec, sent)
        if unknown:  # never bound nor run: a name the tool lacks may mean another object than the page's
            detail = unknown_arguments_text(spec, unknown, language)
            return await self._reject_args(conversation, spec, call_id, sent, detail, language)
        args, replaced = bind_call(
            spec,
            sent,
            context,
            points_at_page=lambda given: points_at_page(question, given),
            learnt=learnt,
        )
        args = await database_sync_to_async(plan_arguments)(  # a migration page's saved plan (issue 15)
            fields=spec.args_schema.model_fields, args=args, context=context, tool=spec.name
        )
        if known is not None:
            invented, question = await database_sync_to_async(call_provenance)(spec, args, known, language)
            if invented:
                return await self._reject_args(
                    conversation, spec, call_id, args, invented, language, code="invented_argument", ask=("", question)
                )
        if beyond_id_range(args, context) is not None:  # names no object: Superset's "not found", asked nothing
            return await self._execute(
                conversation, spec, call_id, args, context, language, toolset=offer.allowed, replaced=replaced
            )
        try:
            parsed = spec.args_schema.model_validate(args)
        except ValidationError as exc:  # a missing argument only the person gives is asked for (issue 29 item 5)
            ask = missing_question(exc, language)
            detail = ask[1] if ask else validation_summary(exc, language)
            return await self._reject_args(conversation, spec, call_id, args, detail, language, ask=ask)
        decision = await guardrail_decide(
            spec=spec,
            args=args,
            parsed=parsed,
            user=self.user,
            conversation_id=conversation.pk,
            context=context,
            language=language,
        )
        if decision.impact and decision.impact.get("invalid"):  # the tool would refuse them: said, no card
            code = str(decision.impact.get("error_code") or "invalid_args")
            ask = ("", str(decision.impact["ask_user"])) if decision.impact.get("ask_user") else None
            return await self._reject_args(
                conversation, spec, call_id, args, decision.impact["error"], language, code=code, ask=ask
            )
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
            await self.emit(card_required_event(row))
            return AwaitingDecision(confirmation_ids=(row.pk,))
        return await self._execute(
            conversation, spec, call_id, args, context, language, toolset=offer.allowed, replaced=replaced
        )

    async def run_approved(self, row: PendingConfirmation) -> None:
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
            category = spec.category if spec else "write"
            await self.finish(
                conversation,
                row.tool,
                category,
                row.call_id,
                row.args,
                outcome,
                confirmation_id=row.pk,
                announce=False,
                language=row.language,
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

    async def finish(
        self,
        conversation: Conversation,
        tool: str,
        category: str,
        call_id: str,
        args: dict[str, Any],
        outcome: ToolOutcome,
        confirmation_id: int | None = None,
        announce: bool = True,
        language: str = "ru",
    ) -> ToolMessage:
        """Summarise the result for the LLM, store the ToolMessage + audit, and send ``tool_finished``.

        Args:
            category: the tool's category (``read``/``write``/``dangerous``), audited with the result.
            confirmation_id: the approved card the call ran from; its final status is stored too.
            announce: send ``tool_finished`` (False for a call that never started: no ``tool_started`` either).
            language: the turn's (``ru``/``en``): the titles shown, and the ``answer_in`` of the ToolMessage.

        Returns:
            The ToolMessage (at most ``TOOL_RESPONSE_MAX_CHARS`` characters of result JSON, DESIGN §10). A failed
            call also sends ``error`` (code, call id) but for a moot call and the first refused arguments of a tool
            in a turn not run from a card (``REPAIRABLE``: the model repairs them, issue 32 item 3)."""
        payload = tool_message_payload(
            outcome,
            max_chars=settings.TOOL_RESPONSE_MAX_CHARS,
            answer_in=language_name(language),
            shown_to_user=result_note(tool),
        )
        await database_sync_to_async(tool_result_record)(
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
        # Background tools (backups, migrations) return a task id: the page polls it to draw progress.
        task_id = outcome.result.get("task_id") if outcome.ok and isinstance(outcome.result, dict) else None
        if announce:
            await self.emit(
                ToolFinishedEvent(
                    call_id=call_id,
                    tool=tool,
                    title=tool_title(tool, language),
                    ok=outcome.ok,
                    duration_ms=outcome.duration_ms,
                    summarised=payload.summarised,
                    task_id=task_id or None,
                    html=result_html(tool, outcome.result, conversation_id=conversation.pk, call_id=call_id),
                    moot=outcome.error_code == NOT_APPLICABLE or None,
                )
            )
        repair = outcome.error_code in REPAIRABLE and confirmation_id is None and tool not in self.repairing
        if repair:
            self.repairing.add(tool)
        elif not outcome.ok and outcome.error_code != NOT_APPLICABLE:  # a reason, said in the answer
            # the person's question where there is one (an invented id, a plan's contradiction): no argument names
            code, message = outcome.error_code or "internal", outcome.ask_user or outcome.error_message or ""
            await self.emit(ErrorEvent(code=code, message=message, detail=outcome.error_detail, call_id=call_id))
        return ToolMessage(content=payload.content, tool_call_id=call_id, status=payload.status)

    async def _execute(
        self,
        conversation: Conversation,
        spec: ToolSpec,
        call_id: str,
        args: dict[str, Any],
        context: dict[str, Any] | None,
        language: str,
        confirmation_id: int | None = None,
        toolset: tuple[ToolSpec, ...] = (),
        replaced: dict[str, Any] | None = None,
    ) -> ToolMessage:
        await database_sync_to_async(call_started_record)(
            user=self.user,
            conversation_id=conversation.pk,
            spec=spec,
            call_id=call_id,
            args=args,
            confirmation_id=confirmation_id,
        )
        title = tool_title(spec.name, language)  # «сводка о состоянии дашборда», not get_health_summary
        await self.emit(ToolStartedEvent(call_id=call_id, tool=spec.name, title=title))
        outcome = await tool_execute(
            spec=spec,
            args=args,
            user=self.user,
            conversation_id=conversation.pk,
            ui_context=context,
            language=language,
            toolset=toolset,
        )
        used = object_used(spec, args, context)
        if outcome.ok and isinstance(outcome.result, dict) and used is not None:
            # The result names the object the call acted on, and a replaced id is said, never silent (SC-001).
            note = {**used, **({"replaced_id_given_by_model": replaced["given"]} if replaced else {})}
            outcome = replace(outcome, result={"object_used": note, **outcome.result})
        return await self.finish(
            conversation,
            spec.name,
            spec.category,
            call_id,
            args,
            outcome,
            confirmation_id=confirmation_id,
            language=language,
        )

    async def skip_ended(self, conversation: Conversation, call: dict[str, Any], language: str) -> ToolMessage:
        """A call of a turn whose session ended before it ran (issue 13 item 5): no check, no request; its
        ToolMessage and audit row say ``session_expired`` (the history stays valid: one ToolMessage per call)."""
        spec = tool_spec(call["name"])
        outcome = ToolOutcome(
            ok=False, error_code="session_expired", error_message=error_text("session_expired", language)
        )
        name = spec.name if spec else str(call["name"])[:TOOL_NAME_MAX_CHARS]
        args = dict(call.get("args") or {}) if isinstance(call.get("args"), dict) else {}
        category = spec.category if spec else "read"
        return await self.finish(
            conversation, name, category, call["id"], args, outcome, announce=False, language=language
        )

    async def _reject_args(
        self,
        conversation: Conversation,
        spec: ToolSpec,
        call_id: str,
        args: dict[str, Any],
        detail: str,
        language: str,
        code: str = "invalid_args",
        ask: tuple[str, str] | None = None,
    ) -> ToolMessage:
        """Arguments not valid JSON, not matching the schema (``invalid_args``), not from the conversation
        (``invented_argument``), or a call the impact look-up found moot (``not_applicable``: nothing to roll back;
        ``detail`` is the reason the user reads; the step is shown, ``tool_started`` and ``tool_finished`` ok false):
        no card, no execution, an error ToolMessage audited with ``code``. ``ask``: the missing argument only the
        person can give and the question for them (``missing``, ``ask_user``: the question is the message, never a
        validator's text, issue 29 item 5; with no argument name, the model reads ``detail``)."""
        missing, asked = ask or ("", None)
        # the question is the message (no validator's text), or the model reads what to do and the person the question
        message = asked if missing else detail if code == NOT_APPLICABLE else error_text(code, language, detail=detail)
        outcome = ToolOutcome(ok=False, error_code=code, error_message=message, ask_user=asked, missing=missing or None)
        moot = code == NOT_APPLICABLE  # made and answered: shown as a step, with the reason in the answer
        if moot:
            await self.emit(ToolStartedEvent(call_id=call_id, tool=spec.name, title=tool_title(spec.name, language)))
        return await self.finish(
            conversation, spec.name, spec.category, call_id, args, outcome, announce=moot, language=language
        )

    async def _deny(
        self,
        conversation: Conversation,
        call: dict[str, Any],
        language: str,
        refusal: str,
        detail: dict[str, Any] | None = None,
    ) -> ToolMessage:
        """Refuse ``call``: audit it, store and return its ToolMessage, send the ``permission_denied`` card.

        DESIGN §6/§9: the event is ``{call_id, tool, required_roles, html}``; the card has a dismiss button only.
        The ToolMessage tells the LLM the call was refused and must not be retried. ``detail``: why a permitted
        tool was not offered (``toolset.not_offered_detail``), said on the card and to the LLM instead of roles.
        """
        # A hallucinated name may be any string: bound it to the column size before storing or showing it.
        name = str(call["name"])[:TOOL_NAME_MAX_CHARS]
        roles = await database_sync_to_async(policy.tool_required_roles)(tool_name=name)
        row = await database_sync_to_async(confirm.confirmation_refuse)(
            conversation=conversation,
            user=self.user,
            call_id=call["id"],
            tool=name,
            args=call.get("args") or {},
            roles=roles,
            language=language,
            refusal=refusal,
            detail=detail,
        )
        await self.emit(
            card_refused_event(
                call_id=call["id"],
                tool=name,
                roles=roles,
                language=language,
                refusal=refusal,
                card_id=row.pk,
                detail=detail,
            )
        )
        content = confirm.declined_payload(name, "refused", refusal, language=language, roles=roles, detail=detail)
        return ToolMessage(content=content, tool_call_id=call["id"], status="error")
