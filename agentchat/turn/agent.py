"""One agent turn (DESIGN §5): context → tool set → LLM stream → checked tool calls → answer.

``AgentTurn`` orchestrates; each phase lives in its own module: ``preparation`` (open the turn, offer the tools,
load the history), ``prompt`` (the system prompt), ``streaming`` (one streamed LLM reply), ``calls`` (one tool
call: check, card or run, finish), ``recording`` (the audit writes), ``rendering`` (events carrying HTML). A step
of the loop ends in a ``steps`` result: ``RunAgain``, ``Final`` or ``AwaitingDecision``.

The turn is independent of the socket: it receives an ``emit`` coroutine for outgoing events (``chat.events``),
so tests drive it directly. All state lives in the database (conversation, messages, confirmations, audit), so a
turn suspended on a confirmation card continues in whichever process receives the decision (DESIGN §14).
"""

from collections.abc import Awaitable, Callable
from typing import Any

from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import translation
from django.utils.translation import gettext
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from agentchat.chat.events import Broadcast, ConversationEvent, Emit, ErrorEvent, OutboundEvent
from agentchat.conversations import services as conv
from agentchat.conversations.selectors import conversation_get, latest_context
from agentchat.errors import error_text
from agentchat.guard import confirmations as confirm
from agentchat.language import conversation_language
from agentchat.llm import chat_model, provider_label
from agentchat.models import Conversation, Message, PendingConfirmation
from agentchat.runtime.binding import page_bound
from agentchat.runtime.provenance import known_from
from agentchat.toolset.router import query_vector_prefetch, routing_hints
from agentchat.toolset.selection import Offer
from agentchat.turn import recovery
from agentchat.turn.admission import busy_retry_s, busy_text, turn_admission
from agentchat.turn.calls import CallRunner
from agentchat.turn.facts import model_inputs
from agentchat.turn.guided import StepModel, StepModels
from agentchat.turn.lease import lease_kept, lease_take
from agentchat.turn.pointing import learnt_ids
from agentchat.turn.preparation import Opened, Precheck, Prepared, step_prepare, turn_open
from agentchat.turn.prompt import turn_prompt
from agentchat.turn.recording import session_stop_record
from agentchat.turn.refusals import busy_audit, busy_event
from agentchat.turn.rendering import (
    card_decided_event,
    card_dismissed_event,
    card_expired_event,
    message_event,
)
from agentchat.turn.steps import AwaitingDecision, Final, RunAgain, Step
from agentchat.turn.streaming import reply_stream
from agentchat.turn.units import unit


class AgentTurn:
    """Runs the turns of one user; ``emit`` sends their events to the client.

    Args:
        user: the authenticated Django user (roles come only from here).
        emit: coroutine taking an ``OutboundEvent`` (``chat.events``).
        model: a LangChain chat model; the configured provider (``LLM_PROVIDER``) when None.
        broadcast: coroutine ``(conversation_id, event)`` reaching every open tab of that conversation (the
            consumer's channel-layer group); card state changes go there so other tabs see them. None: ``emit``.
        language: the language of what is not tied to a message or a card (``ru``/``en``; the page's, from the
            socket's handshake): an unknown card id. None: ``LANGUAGE_CODE``.
        alive: coroutine telling whether the session the turn runs for is still valid (the consumer's; issue 13
            item 5). Asked before every LLM step after the first and before every tool call: once it says no,
            nothing further runs — each remaining call gets a ``session_expired`` ToolMessage and audit row, no
            request, and the turn ends. None: always alive (tests, jobs).

    Each entry point makes one language decision and runs under ``translation.override`` of it (DESIGN §5):
    ``run`` the language of the user's message (``conversation_language``: a message that says nothing of its
    writer's language, such as «prod», keeps the conversation's once it is loaded, else the page's), ``decide`` and
    ``dismiss`` the card's stored language (the turn it was put up in); ``resume`` renders each card in its own.
    """

    def __init__(
        self,
        *,
        user: User,
        emit: Emit,
        model: BaseChatModel | None = None,
        broadcast: Broadcast | None = None,
        language: str | None = None,
        alive: Callable[[], Awaitable[bool]] | None = None,
    ):
        self.user = user
        self.emit = emit
        self.model = model
        self.broadcast = broadcast
        self.language = language or settings.LANGUAGE_CODE
        self.alive = alive
        self.calls = CallRunner(user=user, emit=emit)

    # --- entry points -------------------------------------------------------------------------------------

    async def run(
        self,
        *,
        conversation_id: int | None,
        text: str,
        context: dict[str, Any] | None,
        opened: Callable[[], None] | None = None,
        precheck: Precheck | None = None,
        page: Any = None,
        client_id: str = "",
    ) -> int | None:
        """Handle one ``user_message``; return the conversation id (None: ``precheck`` refused the message and its
        error event was sent). ``client_id``: the page's id of the message, stored with it (``resume`` asks by it).

        ``page``: the frame's UIContext as sent, before the precheck validates it, when ``context`` is None (the
        consumer's): only its ``objectType`` and ``envId`` are read, for ``toolset.router.RoutingHints``.

        Pending cards of the conversation expire first (their calls get ToolMessages, the cards are replaced).
        ``opened`` is called once the turn's first unit of database work is done (``turn.admission.Slot.started``);
        ``precheck`` runs inside that unit first (``turn.preparation.Precheck``: the consumer's session and context
        checks), so a turn makes two units of database work when it calls no tool: open, and store the answer.

        Raises:
            conversations.ConversationNotFound: the id is not the user's.
        """
        with translation.override(conversation_language([text], default=self.language)):
            return await self._run(conversation_id, text, context, opened, precheck, page, client_id)

    async def _run(
        self,
        conversation_id: int | None,
        text: str,
        context: dict[str, Any] | None,
        opened: Callable[[], None] | None,
        precheck: Precheck | None,
        page: Any,
        client_id: str,
    ) -> int | None:
        sent = next((c for c in (context, page) if isinstance(c, dict)), {})  # not validated: only a hint's key
        key = (self.user.pk, str(sent.get("objectType")), str(sent.get("envId")))
        # The offline planner ranks the question itself, however small the set (llm.offline.planner).
        planner = self.model is None and settings.LLM_PROVIDER == "offline"
        if planner or routing_hints.expected(key):
            await query_vector_prefetch(text)  # off the database thread (issue 17)
        # One unit of database work opens the turn: conversation, expiries, the user message, the offered tools,
        # the history and the answer's row (each hop to the database thread costs more than its queries).
        turn = await unit(turn_open)(
            user=self.user,
            conversation_id=conversation_id,
            text=text,
            context=context,
            precheck=precheck,
            client_id=client_id,
        )
        if opened is not None:
            opened()
        if isinstance(turn, ErrorEvent):
            await self.emit(turn)
            return None
        async with lease_kept(turn.message_id):  # renewed while it runs; ended if it fails (turn.lease)
            return await self._opened(turn, key)

    async def _opened(self, turn: Opened, key: tuple[Any, str, str]) -> int:
        """The rest of ``run`` once the turn is open: the ``conversation`` event, expired cards, the answer."""
        conversation = turn.conversation
        routing_hints.record(key, turn.prepared.offer.routable)
        with translation.override(self.language):  # the page's header: the page's language, not the question's
            provider = provider_label()
        await self.emit(
            ConversationEvent(
                conversation_id=conversation.pk,
                context_status=turn.status,
                provider=provider,
                client_id=turn.client_id or None,
            )
        )
        # A one-word follow-up («prod», the answer to «В какое окружение?») keeps the conversation's language.
        said = [str(m.content) for m in turn.prepared.history if isinstance(m, HumanMessage)]
        language = conversation_language(said, default=self.language)
        with translation.override(language):
            for row in turn.expired:  # every open tab of the conversation shows the card as expired, not only this
                await self._to_tabs(conversation.pk, card_expired_event(row, language))
            unavailable = turn.status == "unavailable"
            await self._answer(conversation, turn.context, language, turn.prepared, unavailable=unavailable)
        return conversation.pk

    async def refuse_busy(
        self, *, conversation_id: int | None, text: str, context: Any, client_id: str | None = None
    ) -> None:
        """Answer a ``user_message`` the process could not start within its bound (``turn.admission``): ``error``
        ``busy`` in the message's language naming when to retry, at once; its ``turn_busy`` row (the text, the
        claimed conversation, the page as the frame sent it) is written afterwards (``turn.refusals``)."""
        retry_s = busy_retry_s()
        message = busy_text(retry_s, conversation_language([text], default=self.language))
        await self.emit(ErrorEvent(code="busy", message=message, text=text, retry_after_s=retry_s, client_id=client_id))
        row = busy_event(
            user=self.user, conversation_id=conversation_id, text=text, context=context, queue=turn_admission.depth()
        )
        busy_audit.add(row)

    async def decide(
        self, *, confirmation_id: int, approve: bool, typed_env: str | None = None, options: list[str] | None = None
    ) -> None:
        """Apply the user's decision on a card (with the card's ticked ``options``); run the stored call once if
        approved; then continue the turn."""
        decided = await database_sync_to_async(confirm.confirmation_decide)(
            user=self.user, confirmation_id=confirmation_id, approve=approve, typed_env=typed_env, options=options
        )
        row = decided.confirmation
        if decided.outcome == "not_found" or row is None:  # ``not_found`` is the only outcome without a row
            await self._error("card_not_found", self.language, card_id=confirmation_id)
            return
        with translation.override(row.language):
            await self._decided(decided.outcome, row)

    async def _decided(self, outcome: str, row: PendingConfirmation) -> None:
        """Show the decision on ``row`` in every tab, run its call if approved, then continue the turn."""
        if outcome == "typed_mismatch":
            await self._error("typed_mismatch", row.language, env=row.decision.get("env_id"))
            return
        if outcome == "bad_option":
            await self._error("bad_frame", row.language, detail="options")
            return
        if outcome == "already":
            await self._card_state(row, to_all=False)  # decided elsewhere (another tab): show how
            return
        if outcome == "denied":
            await self._card_state(row)  # the card is the one cancellation line (issue 28 item 6)
            if not await database_sync_to_async(confirm.step_ran_calls)(row=row):
                return  # nothing else of that step ran: no answer to write after a «no»
        else:
            await self._card_state(row)  # «подтверждено — выполняется» in every tab
            await self.calls.run_approved(row)
            # Through the database thread's unit of work (a checked connection), not the async ORM's bare hop.
            await database_sync_to_async(row.refresh_from_db)(fields=["status"])
            await self._card_state(row)
        await self._continue(row.conversation_id, row.language)

    async def dismiss(self, *, confirmation_id: int) -> None:
        """Dismiss a denied card: ``cancelled`` event and «Операция отменена» (the call was refused already)."""
        row = await database_sync_to_async(confirm.confirmation_dismiss)(
            user=self.user, confirmation_id=confirmation_id
        )
        if row is None:
            await self._error("card_not_found", self.language, card_id=confirmation_id)
            return
        with translation.override(row.language):
            await self.emit(card_dismissed_event(row))

    async def resume(self, *, conversation_id: int) -> None:
        """Re-emit every still-pending card of the user's conversation once, with the same ids (reconnect; the
        page's messages: ``turn.recovery.resume``).

        Raises:
            conversations.ConversationNotFound: the id is not the user's.
        """
        await recovery.cards_again(user=self.user, emit=self.emit, conversation_id=conversation_id)

    # --- the loop -----------------------------------------------------------------------------------------

    async def _continue(self, conversation_id: int, language: str) -> Step:
        """After the last open card of a step is decided, let the LLM continue from the stored history."""
        conversation = await database_sync_to_async(conversation_get)(user=self.user, conversation_id=conversation_id)
        if await database_sync_to_async(confirm.awaiting_decisions)(conversation=conversation):
            return AwaitingDecision()
        context = await database_sync_to_async(latest_context)(conversation=conversation)
        prepared = await database_sync_to_async(step_prepare)(
            user=self.user, conversation=conversation, context=context
        )
        message_id = await unit(lease_take)(conversation_id=conversation.pk)  # the turn runs again (turn.lease)
        async with lease_kept(message_id):
            return await self._answer(conversation, context, language, prepared)

    async def _answer(
        self,
        conversation: Conversation,
        context: dict[str, Any] | None,
        language: str,
        prepared: Prepared,
        *,
        unavailable: bool = False,
    ) -> Step:
        """Run steps until one is ``Final`` or ``AwaitingDecision``, at most ``AGENT_MAX_STEPS`` (DESIGN §5 step 8)."""
        offer = prepared.offer
        question = next((str(m.content) for m in reversed(prepared.history) if isinstance(m, HumanMessage)), None)
        prompt, elsewhere = turn_prompt(
            context, question=question, offer=offer, unavailable=unavailable, language=language
        )
        messages: list[BaseMessage] = [SystemMessage(content=prompt), *prepared.history]
        # Where the page names the object, the model may leave its id out (issue 16): the calls bind it.
        schemas = [spec.openai_schema(page=page_bound(spec, context)) for spec in offer.offered]
        # The planner gets the turn's policy facts; ``LLM_FIRST_STEP=planner``: it leads a model (``turn.guided``).
        model = self.model or chat_model()
        models = StepModels(model, schemas=schemas, choices=offer.choices, environments=prepared.environments)
        row_id: int | None = prepared.row_id  # the first step streams into the row prepared with the history
        for _ in range(settings.AGENT_MAX_STEPS):
            # The first step streams into the row opened just after the session was checked; a later one asks.
            if row_id is None and not await self._alive():
                await database_sync_to_async(session_stop_record)(user=self.user, conversation_id=conversation.pk)
                return Final(message_id=None)
            # Truthful: the planner's failure answers say what failed (llm.offline.replies). Another page's tool
            # asked for: a model's answer gets the one-click to ask without the page (the planner's has it itself).
            chosen = await models.for_step(messages)
            again = elsewhere and not chosen.truthful
            step = await self._step(conversation, chosen, messages, offer, context, language, row_id, again)
            row_id = None
            match step:
                case RunAgain():
                    continue
                case Final() | AwaitingDecision():  # AwaitingDecision: ``decide`` continues the turn
                    return step
        text = gettext("The agent reached its step limit.")
        return await self._final_message(conversation, text)

    async def _step(
        self,
        conversation: Conversation,
        chosen: StepModel,
        messages: list[BaseMessage],
        offer: Offer,
        context: dict[str, Any] | None,
        language: str,
        row_id: int | None,
        again: bool = False,
    ) -> Step:
        """One LLM reply of the ``chosen`` model (``turn.guided``) and its tool calls; the reply and the calls'
        ToolMessages are appended to ``messages``. Unless the model is truthful, a text answer is told the turn's
        failed calls (``turn.truth``); ``again``: a text answer offers to ask the question without the page."""
        view, failures, checked = model_inputs(messages, language, truthful=chosen.truthful)
        reply = await reply_stream(
            model=chosen.model,
            messages=view,
            conversation=conversation,
            emit=self.emit,
            language=language,
            row_id=row_id,
            failures=failures,
            checked=checked,
            ask_without_page=again,
            instead=chosen.instead,
        )
        if isinstance(reply, Final):
            return reply
        messages.append(reply.ai)
        waiting: list[int] = []
        question = next((str(m.content) for m in reversed(messages) if isinstance(m, HumanMessage)), "")
        learnt = learnt_ids(messages)  # before this step's results: the model wrote its calls without them
        known = known_from(messages, context)
        for call in reply.calls:
            if not await self._alive():  # the session ended during the step: this call never runs
                messages.append(await self.calls.skip_ended(conversation, call, language))
                continue
            answer = await self.calls.handle(
                conversation,
                reply.row_id,
                call,
                offer,
                context,
                language,
                question=question,
                learnt=learnt,
                known=known,
            )
            if isinstance(answer, AwaitingDecision):
                waiting.extend(answer.confirmation_ids)
            else:
                messages.append(answer)
        return AwaitingDecision(confirmation_ids=tuple(waiting)) if waiting else RunAgain()

    async def _alive(self) -> bool:
        return self.alive is None or await self.alive()

    # --- events -------------------------------------------------------------------------------------------

    async def _card_state(self, row: PendingConfirmation, *, to_all: bool = True) -> None:
        """Send the card's current state (``card_state``; ``cancelled`` for a denied card) to every tab of the
        conversation, or only to this one."""
        event = card_decided_event(row)
        if to_all:
            await self._to_tabs(row.conversation_id, event)
        else:
            await self.emit(event)

    async def _to_tabs(self, conversation_id: int, event: OutboundEvent) -> None:
        """Send ``event`` to every open tab of the conversation (``broadcast``), or to this one without it."""
        if self.broadcast is not None:
            await self.broadcast(conversation_id, event)
        else:
            await self.emit(event)

    async def _final_message(self, conversation: Conversation, text: str) -> Final:
        row = await database_sync_to_async(conv.message_add)(
            conversation=conversation, role=Message.Role.ASSISTANT, content=text
        )
        await self.emit(message_event(message_id=row.pk, text=text))
        return Final(message_id=row.pk)

    async def _error(self, code: str, language: str, **params: Any) -> None:
        await self.emit(ErrorEvent(code=code, message=error_text(code, language, **params)))
