"""Is the Django session behind a WebSocket still alive? (DESIGN §10: expired session → ``session_expired``)."""

from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY


def session_is_valid(scope: dict) -> bool:
    """Return True while the socket's session exists, has not expired and still belongs to its user.

    Reads the session store on every call (one query with the database backend), so a logout or expiry in
    another tab is seen at the next message.
    """
    user = scope.get("user")
    session = scope.get("session")
    key = getattr(session, "session_key", None)
    if user is None or not user.is_authenticated or not key:
        return False
    store = import_module(settings.SESSION_ENGINE).SessionStore(session_key=key)
    return str(store.load().get(SESSION_KEY)) == str(user.pk)
