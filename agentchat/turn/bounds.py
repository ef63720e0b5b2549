"""One user cannot slow the others (issue 31 item 5): per-user bounds of a process — open sockets, turns in flight
and messages per minute — checked in the event loop before any database work, like the process's own queue
(``turn.admission``).

Measured before (one user's 20 sockets × 5 messages): every message was answered or refused ``busy``, but another
user's login took a median 6.3 s instead of 0.9 s, since the flood's turns held the process. Now a user's excess is
refused at once, in their language, and audited (``user_limited``): a socket beyond ``USER_MAX_SOCKETS`` gets
``rate_limited`` and close 4429; a message beyond ``USER_MESSAGES_PER_MINUTE`` (a sliding minute) ``rate_limited``
with the seconds until one is allowed; a message while ``USER_MAX_TURNS`` of the user's turns run ``busy``. Both
message refusals carry the text, so the page offers to send it again. 0 turns a bound off.

The bounds are per process: nginx spreads a user's sockets over the web processes, so N processes allow a user N
times each bound — each process keeps its own CPU for the others, which is what the bound is for.
"""

import math
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.utils.translation import ngettext

from agentchat.chat.events import ErrorEvent
from agentchat.language import in_language
from agentchat.turn.refusals import busy_audit
from policies import services as policy
from policies.models import AuditEvent

WINDOW_S = 60.0
CLOSE_TOO_MANY = 4429  # the socket's close code when the user has too many open (the page waits, then retries)


@dataclass
class Refusal:
    """Why a user's socket or message is refused: the wire ``code`` and the ``message`` in their language,
    ``retry_after_s`` (None: none to name) and the bound hit (``sockets``, ``turns``, ``messages_per_minute``)."""

    code: str
    message: str
    bound: str
    limit: int
    retry_after_s: int | None = None

    def event(self, text: str, client_id: str | None) -> ErrorEvent:
        """The ``error`` frame refusing the message ``text`` (the page offers to send it again)."""
        return ErrorEvent(
            code=self.code, message=self.message, text=text, retry_after_s=self.retry_after_s, client_id=client_id
        )


@dataclass
class UserBounds:
    """The process's count of each user's sockets, running turns and recent messages (by user id)."""

    sockets: dict[int, int] = field(default_factory=dict)
    turns: dict[int, int] = field(default_factory=dict)
    sent: dict[int, deque[float]] = field(default_factory=dict)

    def socket_open(self, user_id: int, language: str) -> Refusal | None:
        """Count a new socket of the user, or refuse it beyond ``USER_MAX_SOCKETS`` (it is then not counted)."""
        limit = settings.USER_MAX_SOCKETS
        if limit and self.sockets.get(user_id, 0) >= limit:
            with in_language(language):
                text = ngettext(
                    "Too many open chat tabs: at most %(limit)d. Close the ones you do not need.",
                    "Too many open chat tabs: at most %(limit)d. Close the ones you do not need.",
                    limit,
                ) % {"limit": limit}
            return Refusal("rate_limited", text, "sockets", limit)
        self.sockets[user_id] = self.sockets.get(user_id, 0) + 1
        return None

    def socket_closed(self, user_id: int) -> None:
        """One counted socket of the user closed."""
        left = self.sockets.get(user_id, 0) - 1
        if left > 0:
            self.sockets[user_id] = left
        else:
            self.sockets.pop(user_id, None)

    def message_take(self, user_id: int, language: str, now: float | None = None) -> Refusal | None:
        """Admit a message of the user and hold one of their turns (``turn_done`` gives it back), or refuse it: more
        than ``USER_MESSAGES_PER_MINUTE`` in the last minute (``rate_limited``, not counted), or
        ``USER_MAX_TURNS`` of their turns running (``busy``, counted: it was sent)."""
        now = time.monotonic() if now is None else now
        per_minute = settings.USER_MESSAGES_PER_MINUTE
        sent = self.sent.setdefault(user_id, deque())
        while sent and sent[0] <= now - WINDOW_S:
            sent.popleft()
        if per_minute and len(sent) >= per_minute:
            retry_s = max(1, math.ceil(sent[0] + WINDOW_S - now))
            return Refusal(
                "rate_limited", _rate_text(per_minute, retry_s, language), "messages_per_minute", per_minute, retry_s
            )
        sent.append(now)
        running = self.turns.get(user_id, 0)
        if settings.USER_MAX_TURNS and running >= settings.USER_MAX_TURNS:
            with in_language(language):
                text = ngettext(
                    "You already have %(count)d answer in progress: wait for it, then send this again.",
                    "You already have %(count)d answers in progress: wait for them, then send this again.",
                    running,
                ) % {"count": running}
            return Refusal("busy", text, "turns", settings.USER_MAX_TURNS)
        self.turns[user_id] = running + 1
        return None

    def turn_done(self, user_id: int) -> None:
        """A turn ``message_take`` admitted ended."""
        left = self.turns.get(user_id, 0) - 1
        if left > 0:
            self.turns[user_id] = left
        else:
            self.turns.pop(user_id, None)


def _rate_text(per_minute: int, retry_s: int, language: str) -> str:
    with in_language(language):
        limit = ngettext(
            "Too many messages: at most %(limit)d a minute.",
            "Too many messages: at most %(limit)d a minute.",
            per_minute,
        ) % {"limit": per_minute}
        retry = ngettext("Send it again in %(seconds)d second.", "Send it again in %(seconds)d seconds.", retry_s) % {
            "seconds": retry_s
        }
    return f"{limit} {retry}"


user_bounds = UserBounds()


def refusal_audit(*, user: User, refusal: Refusal, text: str | None = None, conversation_id: Any = None) -> None:
    """Buffer the ``user_limited`` row of a refusal: the bound, its limit, the refused message's text (written off
    the event loop's path with the ``busy`` rows: ``turn.refusals``)."""
    claimed = conversation_id if isinstance(conversation_id, int) else None
    row = policy.audit_build(
        event_type=AuditEvent.EventType.USER_LIMITED,
        actor=user,
        conversation_id=claimed,
        args={"text": text} if text is not None else None,
        outcome=refusal.code,
        extra={"bound": refusal.bound, "limit": refusal.limit, "retry_after_s": refusal.retry_after_s},
    )
    busy_audit.add(row)
