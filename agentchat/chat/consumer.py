"""The chat WebSocket consumer (DESIGN §6): parse a frame, call a service, send what it returns.

Each turn runs as an ``asyncio.Task`` owned by the connection, so confirm/deny frames are received while a turn
runs. A turn outlives its socket: when the tab closes or reloads mid-answer the turn still finishes and is stored
(it is bounded by the LLM and tool timeouts), and its final frames go to the conversation's other tabs — a reloaded
page joins them with ``resume``. Malformed frames get an ``error`` frame and the socket stays open.

A socket lives only as long as its Django session (``chat.sessions``): every frame re-reads the session first, and
a logout, an expiry, a password change or a deactivation closes every socket of the session with 4401 at once;
a turn still running for it stops at its next tool call or LLM step (``AgentTurn(alive=…)``): nothing further runs.
"""

import asyncio
import logging
from collections.abc import Awaitable, Coroutine
from datetime import timedelta
from typing import Any, cast

from channels.db import aclose_old_connections, database_sync_to_async
from django.contrib.auth.models import User
from django.db import Error as DatabaseError
from django.db import connection
from django.utils import timezone, translation
from django.utils.translation import gettext
from langchain_core.language_models import BaseChatModel

from agentchat.chat.dispatch import UnitDispatchConsumer
from agentchat.chat.events import ConversationEvent, ErrorEvent, OutboundEvent, TurnStateEvent
from agentchat.chat.frames import (
    ConfirmFrame,
    DismissFrame,
    FrameInvalid,
    ResumeFrame,
    UserMessageFrame,
    decode_frame,
    parse_frame,
)
from agentchat.chat.sessions import SessionCheck, session_group, user_group
from agentchat.conversations.selectors import ConversationNotFound
from agentchat.conversations.services import reference_refused
from agentchat.errors import error_text
from agentchat.language import conversation_language, socket_language
from agentchat.turn import recovery
from agentchat.turn.admission import turn_admission
from agentchat.turn.agent import AgentTurn
from agentchat.turn.bounds import CLOSE_TOO_MANY, refusal_audit, user_bounds
from agentchat.turn.preparation import MessagePrecheck
from policies import services as policy
from policies.models import AuditEvent

log = logging.getLogger(__name__)
CLOSE_UNAUTHENTICATED = 4401
EXPIRY_RECHECK_S = 3600.0  # the expiry timer re-reads the session at least this often (s): a sign-in may move it
EXPIRY_RETRY_S = 5.0  # after a database failure of the expiry timer


def _close_broken_connection() -> None:
    """Close this thread's database connection if it no longer answers (what the health check of the next unit
    of work would do; the session check cannot wait for it)."""
    if not connection.is_usable():
        connection.close()


def _group(conversation_id: int) -> str:
    """The channel-layer group of a conversation's open tabs."""
    return f"agentchat.conversation.{int(conversation_id)}"


class AgentConsumer(UnitDispatchConsumer):
    """``/ws/agent/``: authenticated by the Django session; anonymous sockets are closed with 4401."""

    async def connect(self) -> None:
        """Accept the socket, then close it with 4401 unless the session's user is authenticated (DESIGN §6); an
        authenticated socket joins its session's and its user's groups and starts its expiry timer."""
        # AuthMiddlewareStack's lazy wrapper of the session's User (AnonymousUser when signed out).
        self.user = cast("User", self.scope.get("user"))
        self.session_valid = SessionCheck(self.scope)  # re-read at every frame: one query while nothing changed
        self.tasks: set[asyncio.Task[None]] = set()
        self.turn_lock = asyncio.Lock()
        self.conversation_groups: set[str] = set()
        self.session_groups: list[str] = []
        self.session_ended = False
        self.expiry_timer: asyncio.Task[None] | None = None
        self.closed = False
        self.conversation_id: int | None = None  # of the turn running on this socket (from its first frame)
        self.language = socket_language(self.scope)
        await self.accept()
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        refused = user_bounds.socket_open(self.user.pk, self.language)  # issue 31: per-user bounds
        if refused is not None:
            await self.send_error(refused.code, refused.message)
            refusal_audit(user=self.user, refusal=refused)
            self.closed = True
            await self.close(code=CLOSE_TOO_MANY)
            return
        self.counted = True
        session_key = self.scope["session"].session_key or ""  # set: the user was authenticated by it
        self.session_groups = [session_group(session_key), user_group(self.user.pk)]
        for group in self.session_groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.expiry_timer = asyncio.create_task(self._watch_expiry())

    async def disconnect(self, code: int) -> None:
        """Leave the conversations' and the session's groups and stop the expiry timer; the socket's running turns
        go on (they hand their frames over)."""
        self.closed = True
        if getattr(self, "counted", False):
            user_bounds.socket_closed(self.user.pk)
        timer = getattr(self, "expiry_timer", None)
        if timer is not None:
            timer.cancel()
        for group in [*getattr(self, "conversation_groups", ()), *getattr(self, "session_groups", ())]:
            await self.channel_layer.group_discard(group, self.channel_name)

    # --- the session: one frame ``session_expired`` and close 4401 when it ends (chat.sessions)

    async def session_end(self, event: dict) -> None:
        """Channel-layer handler (``session.end``): the session was logged out; end this socket."""
        await self._end_session()

    async def session_check(self, event: dict) -> None:
        """Channel-layer handler (``session.check``): the user's password, state or existence changed; end this
        socket if its session no longer authenticates the user."""
        try:
            alive = await self._session_valid()
        except DatabaseError:  # the database is away: the check of the next frame decides instead
            log.exception("session check failed")
            return
        if not alive:
            await self._end_session()

    async def _watch_expiry(self) -> None:
        """Sleep until the session's recorded expiry (at most ``EXPIRY_RECHECK_S``), then re-read it: end the
        socket when it is dead, else wait for the (possibly moved) next expiry. While the database is away it
        retries every ``EXPIRY_RETRY_S``."""
        while not self.closed:
            try:
                expires = await database_sync_to_async(self.session_valid.expiry)()  # the first also primes
                wait_s = EXPIRY_RECHECK_S
                if expires is not None:
                    wait_s = min(wait_s, max((expires - timezone.now()) / timedelta(seconds=1), 0.0) + 0.05)
                await asyncio.sleep(wait_s)
                alive = await self._session_valid()
            except DatabaseError:
                log.exception("session expiry check failed")
                await asyncio.sleep(EXPIRY_RETRY_S)
                continue
            if not alive:
                await self._end_session()
                return

    async def _end_session(self) -> None:
        """Refuse every later frame, tell the page (``session_expired``, unless a refused frame told it already)
        and close with 4401 (the page then goes to the sign-in form)."""
        if self.closed:
            return
        if not self.session_ended:
            self.session_ended = True
            await self.send_error("session_expired", error_text("session_expired", self.language))
        self.closed = True
        await self.close(code=CLOSE_UNAUTHENTICATED)

    async def emit(self, event: OutboundEvent) -> None:
        """Send an event to this socket; once it has closed, hand the events of a ``handed_over`` type to the other
        tabs of the conversation instead (channel-layer group) and drop the rest (``chat.events``)."""
        if isinstance(event, ConversationEvent):
            self.conversation_id = event.conversation_id
        frame = event.wire()
        if not self.closed:
            try:
                await self.send_json(frame)
                return
            except Exception as exc:  # the peer went away between the check and the send (daphne: Disconnected)
                log.info("socket closed during a turn: %s", type(exc).__name__)
                self.closed = True
        if event.handed_over and self.conversation_id is not None:
            await self._group_send(self.conversation_id, frame)

    # --- tabs of one conversation: card state changes reach all of them (channel-layer group per conversation)

    async def _join(self, conversation_id: int) -> None:
        group = _group(conversation_id)
        if group not in self.conversation_groups and not self.closed:
            await self.channel_layer.group_add(group, self.channel_name)
            self.conversation_groups.add(group)

    async def _broadcast(self, conversation_id: int, event: OutboundEvent) -> None:
        await self._join(conversation_id)
        await self._group_send(conversation_id, event.wire())

    async def _group_send(self, conversation_id: int, frame: dict[str, Any]) -> None:
        await self.channel_layer.group_send(_group(conversation_id), {"type": "conversation.frame", "frame": frame})

    async def conversation_frame(self, event: dict) -> None:
        """Channel-layer handler: a frame for every tab of the conversation (a card decided in some tab, or the
        final frames of a turn whose own socket has closed); nothing once this socket was closed."""
        if not self.closed:
            await self.send_json(event["frame"])

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        """Check the session, then parse one client frame (DESIGN §6) and start the service call it asks for.

        A frame of any type (malformed too) on a dead session gets ``session_expired`` and runs nothing
        (``_session_alive``). A malformed or binary frame gets ``error`` ``bad_frame`` and the socket stays open
        (decoded here, not by Channels: channels #2219).
        """
        frame: UserMessageFrame | ConfirmFrame | DismissFrame | ResumeFrame | None = None
        invalid: FrameInvalid | None = None
        try:
            frame = parse_frame(decode_frame(text_data))
        except FrameInvalid as exc:
            invalid = exc
        await self._answered(self._dispatch(frame, invalid))

    async def _dispatch(
        self, frame: UserMessageFrame | ConfirmFrame | DismissFrame | ResumeFrame | None, invalid: FrameInvalid | None
    ) -> None:
        if isinstance(frame, UserMessageFrame) and not self.session_ended:
            # The user's bounds, then the process's admission, before any database work (issues 31, 17): the
            # session is checked inside the turn's slot.
            language = conversation_language([frame.text], default=self.language)
            if refused := user_bounds.message_take(self.user.pk, language):
                await self.emit(refused.event(frame.text, frame.client_id))
                refusal_audit(user=self.user, refusal=refused, text=frame.text, conversation_id=frame.conversation_id)
                return
            self._spawn(self._locked(self._message(frame), frame))
            return
        if not await self._session_alive(frame):
            return
        if frame is None:
            detail = invalid.text(self.language) if invalid else ""
            await self.send_error("bad_frame", error_text("bad_frame", self.language, detail=detail))
            return
        if isinstance(frame, UserMessageFrame):  # on a session already seen dead: session_expired above
            return
        if isinstance(frame, ConfirmFrame):
            card = frame.model_dump(include={"confirmation_id", "typed_env", "options"})
            self._spawn(self._locked(self._agent().decide(approve=frame.decision == "approve", **card)))
        elif isinstance(frame, DismissFrame):
            self._spawn(self._locked(self._agent().dismiss(confirmation_id=frame.confirmation_id)))
        elif isinstance(frame, ResumeFrame):
            self._spawn(self._locked(self._resume(frame)))

    async def _session_alive(self, frame: UserMessageFrame | ConfirmFrame | DismissFrame | ResumeFrame | None) -> bool:
        """Re-read the socket's session (``SessionCheck``); when it is dead, audit ``session_expired`` with what the
        frame asked for, send ``session_expired`` (in the message's language for a ``user_message``) and return
        False: nothing of the frame runs — no turn, no LLM call, no tool, no upstream request (DESIGN §10)."""
        if not self.session_ended and await self._session_valid():
            return True
        self.session_ended = True
        said = [frame.text] if isinstance(frame, UserMessageFrame) else []
        language = conversation_language(said, default=self.language)
        extra: dict[str, Any] = {"source": "websocket", "frame": frame.type if frame is not None else "invalid"}
        if isinstance(frame, UserMessageFrame | ResumeFrame):
            extra["claimed_conversation_id"] = frame.conversation_id
        elif isinstance(frame, ConfirmFrame | DismissFrame):
            extra["confirmation_id"] = frame.confirmation_id
        # The frame first: a ``session.check`` of the same change may close the socket while the audit is written.
        await self.send_error("session_expired", error_text("session_expired", language))
        await database_sync_to_async(policy.audit_record)(
            event_type=AuditEvent.EventType.SESSION_EXPIRED, actor=self.user, outcome="session_expired", extra=extra
        )
        return False

    async def _session_valid(self) -> bool:
        """``SessionCheck`` in the database thread; a connection the database dropped since the last unit of
        work (a restart, a failover: issue 17) is closed and the check made once more on a new one."""
        try:
            return await database_sync_to_async(self.session_valid)()
        except DatabaseError:
            await database_sync_to_async(_close_broken_connection)()
            return await database_sync_to_async(self.session_valid)()

    def _agent(self) -> AgentTurn:
        turn = AgentTurn(
            user=self.user, emit=self.emit, model=self.turn_model(), broadcast=self._broadcast, language=self.language
        )
        turn.alive = self._turn_alive  # a running turn stops once this socket's session ended (issue 13 item 5)
        return turn

    async def _turn_alive(self) -> bool:
        """Not once the session ended; a closed socket (tab gone) no longer hears its end, so it re-reads it."""
        return not self.session_ended and (not self.closed or await self._session_valid())

    async def _resume(self, frame: ResumeFrame) -> None:
        """Pending cards and what became of the page's messages (``turn.recovery``, issue 31); the socket joins
        their conversations' tabs, and a message another process still answers is watched until it ends."""
        tab = recovery.Tab(self.user, self.emit, self.language)
        resumed = await recovery.resume(tab, conversation_id=frame.conversation_id, client_ids=frame.client_ids)
        for conversation_id in resumed.conversations:  # raised above for another user's conversation
            await self._join(conversation_id)
        if resumed.running:
            watching = recovery.watched(tab, client_ids=resumed.running, watching=lambda: not self.closed)
            self._spawn(self._answered(watching))

    async def _message(self, frame: UserMessageFrame) -> None:
        """Run the message's turn once the process has a free slot, else refuse it ``busy`` at once
        (``turn.admission``: decided before any database work; never dropped, never left unanswered).

        Inside the slot one unit of database work checks the session and the frame's UIContext, then opens the turn
        (``turn.preparation.MessagePrecheck``, ``turn_open``: one transaction; issue 17).
        """
        async with turn_admission.slot() as slot:
            if not slot:
                await self._agent().refuse_busy(
                    conversation_id=frame.conversation_id,
                    text=frame.text,
                    context=frame.context,
                    client_id=frame.client_id,
                )
                return
            check = MessagePrecheck(
                self.user, self.session_valid, frame.text, frame.context, frame.conversation_id, self.language
            )
            conversation_id = await self._agent().run(
                conversation_id=frame.conversation_id,
                text=frame.text,
                context=None,
                opened=slot.started,
                precheck=check,
                page=frame.context,
                client_id=frame.client_id or "",
            )
            if check.session_ended:
                self.session_ended = True  # after its frame was sent (``_end_session`` sends one otherwise)
        if conversation_id is not None:
            await self._join(conversation_id)
        if frame.client_id:  # its answer, card or error came: the page stops waiting for it (issue 31)
            await self.emit(TurnStateEvent(client_id=frame.client_id, state="done", conversation_id=conversation_id))

    async def _locked(self, coro: Awaitable[None], frame: UserMessageFrame | None = None) -> None:
        """Run a service call after the connection's previous one, mapping failures to ``error`` frames; a
        ``frame``'s turn then gives the user's turn back (``turn.bounds``)."""
        try:
            async with self.turn_lock:
                await self._answered(coro, frame)
        finally:
            if frame is not None:
                user_bounds.turn_done(self.user.pk)

    async def _answered(self, coro: Awaitable[None], frame: UserMessageFrame | None = None) -> None:
        """Await ``coro``; whatever it raises becomes an ``error`` frame and the socket stays open (never 1011).

        A database failure (the server restarted or dropped the connection mid-unit: ``django.db.Error``) is
        ``database_unavailable``: the next unit of work gets a checked connection (``CONN_HEALTH_CHECKS``), so
        sending again works once the database is back (issue 17). A ``user_message``'s error carries its text and
        id: the page offers to send it again (issue 31)."""
        try:
            await coro
        except ConversationNotFound as exc:
            # Another user's (or no) conversation: refused as before, and audited (``forbidden_reference``).
            await database_sync_to_async(reference_refused)(
                user=self.user, kind="conversation", ref_id=int(exc.args[0])
            )
            with translation.override(self.language):
                detail = gettext("conversation not found")
            await self.send_error("bad_frame", error_text("bad_frame", self.language, detail=detail))
        except asyncio.CancelledError:
            raise
        except DatabaseError:
            log.exception("database failed during an agent request")
            await aclose_old_connections()  # drop the broken connection now: the next frame gets a new one
            await self.send_error("database_unavailable", error_text("database_unavailable", self.language), sent=frame)
        except Exception:
            log.exception("agent request failed")
            await self.send_error("internal", error_text("internal", self.language), sent=frame)

    async def send_error(
        self, code: str, message: str, errors: dict[str, list[str]] | None = None, sent: UserMessageFrame | None = None
    ) -> None:
        """Send an ``error`` event (DESIGN §6); ``errors``: the UIContext field errors of ``invalid_context``;
        ``sent``: the ``user_message`` that failed, whose text and id go with it (the page offers a resend)."""
        text, client_id = (sent.text, sent.client_id) if sent is not None else (None, None)
        await self.emit(ErrorEvent(code=code, message=message, errors=errors, text=text, client_id=client_id))

    def turn_model(self) -> BaseChatModel | None:
        """The LangChain model of a turn; None: ``LLM_PROVIDER``'s. Tests override it (STYLE: a scripted model)."""
        return None

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
