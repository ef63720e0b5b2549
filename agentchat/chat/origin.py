"""Same-origin check of WebSocket handshakes (DESIGN §6: Origin checked).

Channels' ``AllowedHostsOriginValidator`` compares the Origin's host with ``ALLOWED_HOSTS`` but ignores the
port, so any other web app on the same host (a local Superset on :8088, say) could open an authenticated socket
with the user's session cookie (cookies are not scoped by port). This validator also requires the Origin to be
exactly the scheme-less ``host:port`` the socket was opened on (the ``Host`` header), or one of
``CSRF_TRUSTED_ORIGINS`` (for deployments behind a proxy that rewrites ``Host``).
"""

from typing import Any
from urllib.parse import urlsplit

from channels.security.websocket import WebsocketDenier
from django.conf import settings

_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}


def _netloc(scheme: str, host: str) -> str:
    """Normalise ``host[:port]`` to lower case with the scheme's default port made explicit."""
    parts = urlsplit(f"//{host}")
    try:
        port = parts.port
    except ValueError:
        return ""
    hostname = (parts.hostname or "").lower()
    return f"{hostname}:{port or _DEFAULT_PORTS.get(scheme, 80)}"


def origin_allowed(scope: dict) -> bool:
    """True when the handshake's Origin is the socket's own origin or a trusted one.

    Args:
        scope: the ASGI websocket scope (``headers`` as byte pairs).
    """
    headers = {k.lower(): v for k, v in scope.get("headers", [])}
    origin = headers.get(b"origin", b"").decode("latin-1").strip()
    host = headers.get(b"host", b"").decode("latin-1").strip()
    if not origin or origin == "null":
        return False
    if origin.rstrip("/") in {o.rstrip("/") for o in settings.CSRF_TRUSTED_ORIGINS}:
        return True
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not host:
        return False
    # The socket's own scheme: ``wss`` behind TLS (daphne ``--proxy-headers`` takes it from X-Forwarded-Proto).
    request_scheme = "https" if scope.get("scheme") in ("wss", "https") else "http"
    if parts.scheme != request_scheme:
        return False
    return _netloc(parts.scheme, parts.netloc) == _netloc(request_scheme, host) != ""


class SameOriginValidator:
    """ASGI middleware: refuse (HTTP 403 on the handshake) WebSockets whose Origin fails ``origin_allowed``."""

    def __init__(self, application: Any) -> None:
        # ``Any``: the ASGI application, scope and callables pass through untouched; asgiref's and Channels' stubs
        # type them differently, and this middleware only reads ``scope["type"]`` and the headers.
        self.application = application

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and not origin_allowed(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)
