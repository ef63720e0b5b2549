"""Is the Django session behind a WebSocket still alive? (DESIGN §10: expired session → ``session_expired``)."""

from collections.abc import Mapping
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user
from django.http import HttpRequest


def session_is_valid(scope: Mapping[str, Any]) -> bool:
    """Return True while the socket's session exists, has not expired and still authenticates its user.

    The session is read again from the store on every call (the socket's own copy was loaded at connect), so a
    logout, an expiry or a password change (session hash) in another tab is seen at the next message. The user
    is resolved exactly as Django does for an HTTP request (``django.contrib.auth.get_user``: backend, session
    auth hash), then compared with the socket's user.

    Args:
        scope: the Channels scope (``user`` and ``session`` from ``AuthMiddlewareStack``).

    Returns:
        False for anonymous sockets, a missing/expired/flushed session, another user or a stale auth hash.
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
