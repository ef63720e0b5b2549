"""Is the Django session behind a WebSocket still alive, and ending its sockets when it ends (DESIGN §6, §10).

Every open socket joins two channel-layer groups at connect: its session's (``session_group``) and its user's
(``user_group``). A logout sends ``session.end`` to the session's group: each of its sockets gets
``session_expired`` and is closed with 4401. A password change, a deactivation or the deletion of the user sends
``session.check`` to the user's group once the change is committed: each socket re-reads its session
(``session_is_valid``) and closes the same way when it no longer authenticates. An expiry is seen by the socket's
own timer (``session_expiry``). Whatever reaches a socket in between, every frame re-reads the session first.
"""

import hashlib
import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from importlib import import_module
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user, get_user_model
from django.contrib.auth.models import User
from django.contrib.auth.signals import user_logged_out
from django.db import connection, transaction
from django.db.models.signals import post_delete, post_save
from django.http import HttpRequest
from django.utils import timezone

from policies.statements import Columns

log = logging.getLogger(__name__)
SESSION_END = "session.end"  # consumer handler ``session_end``: close unconditionally
SESSION_CHECK = "session.check"  # consumer handler ``session_check``: re-read the session, close if it is dead
# The User fields whose change can end a session: the password (session auth hash) and ``is_active``.
SESSION_FIELDS = frozenset({"password", "is_active"})


def session_is_valid(scope: Mapping[str, Any]) -> bool:
    """Return True while the socket's session exists, has not expired and still authenticates its user.

    The session is read again from the store on every call (the socket's own copy was loaded at connect), so a
    logout, an expiry or a password change (session hash) in another tab is seen at the next frame. The user
    is resolved exactly as Django does for an HTTP request (``django.contrib.auth.get_user``: backend, session
    auth hash, ``is_active``), then compared with the socket's user.

    Args:
        scope: the Channels scope (``user`` and ``session`` from ``AuthMiddlewareStack``).

    Returns:
        False for anonymous sockets, a missing/expired/flushed session, another user, a stale auth hash or a
        deactivated user.
    """
    user = scope.get("user")
    key = getattr(scope.get("session"), "session_key", None)
    if user is None or not user.is_authenticated or not key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
    request = HttpRequest()  # get_user reads only the session of the request
    request.session = store
    current = get_user(request)
    return current.is_authenticated and current.pk == user.pk


class SessionCheck:
    """``session_is_valid`` for one socket in one statement while nothing changed (issue 17).

    The verdict of ``session_is_valid`` depends only on the session row (its ``session_data``, unexpired) and the
    user's row (``password``: the session auth hash; ``is_active``: every configured backend's ``get_user``). Each
    call reads exactly those in one query; when they equal the ones of the last positive verdict, the verdict
    stands; else (the first call, a login or logout, a password change, a deactivation) the full check runs
    (``session_is_valid``: two queries, signature and auth hash verified) and its inputs are remembered when it
    says valid. Engines without session rows (``signed_cookies``, ``cache``) always take the full check.

    Args:
        scope: the socket's Channels scope (``user`` and ``session`` from ``AuthMiddlewareStack``).
    """

    def __init__(self, scope: Mapping[str, Any]):
        self.scope = scope
        self._seen: tuple[Any, ...] | None = None
        self._primed = False

    def expiry(self) -> datetime | None:
        """The session's expiry for the socket's timer: the first call is ``prime``, later ones ``session_expiry``."""
        if self._primed:
            return session_expiry(self.scope)
        expires = self.prime()
        self._primed = True
        return expires

    def __call__(self) -> bool:
        """Whether the socket's session still authenticates its user (see ``session_is_valid``)."""
        user = self.scope.get("user")
        key = getattr(self.scope.get("session"), "session_key", None)
        store_class = import_module(settings.SESSION_ENGINE).SessionStore
        if user is None or not user.is_authenticated or not key or not hasattr(store_class, "get_model_class"):
            return session_is_valid(self.scope)
        row = _session_row(store_class.get_model_class(), key, user.pk)
        if row is None:
            return False  # no unexpired row: load() would give an empty session, an anonymous user
        inputs = row[:3]
        if inputs == self._seen:
            return True
        valid = session_is_valid(self.scope)
        self._seen = inputs if valid else None
        return valid

    def prime(self) -> datetime | None:
        """Read the session's row once when the socket opens; return its expiry (the socket's timer: what
        ``session_expiry`` returns), and remember its inputs as a positive verdict when they are the ones the
        handshake's authentication has just verified — the session data the socket's session was loaded from, the
        password hash and ``is_active`` of the user it resolved (``AuthMiddlewareStack``: Django's ``get_user``).
        The first frame then makes one query, not three (issue 17); any difference (a change since the handshake)
        leaves the full check to the first frame. None: no unexpired row, or an engine without rows."""
        user = self.scope.get("user")
        session = self.scope.get("session")
        key = getattr(session, "session_key", None)
        store_class = import_module(settings.SESSION_ENGINE).SessionStore
        if user is None or not user.is_authenticated or not key or not hasattr(store_class, "get_model_class"):
            return session_expiry(self.scope)
        row = _session_row(store_class.get_model_class(), key, user.pk)
        if row is None:
            return None
        session_data, password, is_active, expires = row
        loaded = getattr(session, "_session_cache", None)  # what the handshake decoded (the user was resolved)
        verified = (password, is_active) == (user.password, user.is_active)
        if verified and loaded is not None and store_class().decode(session_data) == loaded:
            self._seen = (session_data, password, is_active)
        return expires


def _session_row(session_model: Any, key: str, user_id: int) -> tuple[Any, ...] | None:
    """``(session_data, password, is_active, expire_date)`` of the unexpired session ``key`` and of user ``user_id``
    (None, None when the user is gone), in one query; None when there is no unexpired session row."""
    s, u = Columns(session_model), Columns(get_user_model())  # quoted identifiers; the values are parameters
    sql = (
        f"SELECT s.{s.session_data}, u.{u.password}, u.{u.is_active}, s.{s.expire_date} FROM {s.table} s "  # noqa: S608 - quoted identifiers only
        f"LEFT JOIN {u.table} u ON u.{u.pk} = %s WHERE s.{s.session_key} = %s AND s.{s.expire_date} > %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [user_id, key, timezone.now()])
        row = cursor.fetchone()
    if row is None:
        return None
    expires = row[3]
    if expires is not None and not isinstance(expires, datetime):  # SQLite: the column as text
        expires = session_model._meta.get_field("expire_date").to_python(expires)
    if expires is not None and settings.USE_TZ and timezone.is_naive(expires):
        expires = timezone.make_aware(expires, UTC)
    return (*row[:3], expires)


def session_expiry(scope: Mapping[str, Any]) -> datetime | None:
    """When the socket's session expires, as its store records it; None when unknown.

    The database-backed engines (``db``, ``cached_db``) keep ``expire_date`` per row; other engines have no
    readable expiry, and their sockets rely on the per-frame check and the signals.

    Args:
        scope: the Channels scope.

    Returns:
        The aware expiry time, or None (no session, no row, or an engine without rows).
    """
    key = getattr(scope.get("session"), "session_key", None)
    store_class = import_module(settings.SESSION_ENGINE).SessionStore
    if not key or not hasattr(store_class, "get_model_class"):
        return None
    row = store_class.get_model_class().objects.filter(session_key=key).only("expire_date").first()
    return row.expire_date if row is not None else None


def session_group(session_key: str) -> str:
    """The channel-layer group of one Django session's sockets: ``agentchat.session.<sha256 of the key, 32 hex>``
    (the key itself never goes to the channel layer)."""
    return f"agentchat.session.{hashlib.sha256(session_key.encode()).hexdigest()[:32]}"


def user_group(user_id: int) -> str:
    """The channel-layer group of every socket of one user: ``agentchat.user.<pk>``."""
    return f"agentchat.user.{int(user_id)}"


def _group_send(group: str, message_type: str) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, {"type": message_type})
    except Exception:  # the channel layer is down: the per-frame check still refuses every frame
        log.exception("could not signal %s to %s", message_type, group)


def on_logged_out(sender: Any, request: HttpRequest | None = None, **kwargs: Any) -> None:
    """``user_logged_out`` receiver: close every socket of the request's session (``session.end``).

    Django sends the signal before it flushes the session, so the key is still the one the sockets hold.
    """
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        _group_send(session_group(key), SESSION_END)


def on_user_saved(sender: Any, instance: User, update_fields: frozenset[str] | None = None, **kwargs: Any) -> None:
    """``post_save`` of ``User``: after a save that may change the password or ``is_active`` is committed, each
    socket of the user re-checks its session (``session.check``); saves of other fields only (``last_login`` at
    every sign-in) send nothing."""
    if update_fields is not None and not SESSION_FIELDS & set(update_fields):
        return
    group = user_group(instance.pk)
    transaction.on_commit(lambda: _group_send(group, SESSION_CHECK))


def on_user_deleted(sender: Any, instance: User, **kwargs: Any) -> None:
    """``post_delete`` of ``User``: its sockets re-check (and find no user) once the deletion is committed."""
    group = user_group(instance.pk)
    transaction.on_commit(lambda: _group_send(group, SESSION_CHECK))


def connect_signals() -> None:
    """Connect the receivers above (called from ``AgentchatConfig.ready``)."""
    user_model = get_user_model()
    user_logged_out.connect(on_logged_out, dispatch_uid="agentchat.sessions.logged_out")
    post_save.connect(on_user_saved, sender=user_model, dispatch_uid="agentchat.sessions.user_saved")
    post_delete.connect(on_user_deleted, sender=user_model, dispatch_uid="agentchat.sessions.user_deleted")
