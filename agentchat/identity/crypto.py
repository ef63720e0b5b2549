"""Secrets at rest (DESIGN §15): ``cryptography``'s MultiFernet over ``settings.ENCRYPTION_KEYS``.

``AGENTCHAT_ENCRYPTION_KEYS`` is a comma-separated list of Fernet keys (32 url-safe base64 bytes each): the first
encrypts, every one decrypts, so a key is rotated by putting the new one first and ``rotate`` re-encrypting the
rows. Without the variable the local demo uses ``var/encryption_key`` (generated once, mode 0600).
"""

import json
from functools import lru_cache
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class SecretUnreadable(Exception):
    """A stored secret cannot be decrypted with any configured key (keys lost or rotated away)."""


@lru_cache(maxsize=4)
def _fernet(keys: tuple[str, ...]) -> MultiFernet:
    return MultiFernet([Fernet(key.encode()) for key in keys])


def _current() -> MultiFernet:
    return _fernet(tuple(settings.ENCRYPTION_KEYS))


def secret_seal(value: dict[str, Any]) -> str:
    """Return the Fernet token (ASCII text) of ``value`` as compact JSON, encrypted with the first key."""
    return _current().encrypt(json.dumps(value, separators=(",", ":")).encode()).decode()


def secret_open(token: str) -> dict[str, Any]:
    """Return the JSON object sealed in ``token``.

    Raises:
        SecretUnreadable: no configured key decrypts it (or it was tampered with).
    """
    try:
        value: dict[str, Any] = json.loads(_current().decrypt(token.encode()))
    except InvalidToken:
        raise SecretUnreadable("no configured AGENTCHAT_ENCRYPTION_KEYS key decrypts this secret") from None
    return value


def secret_rotate(token: str) -> str:
    """Return ``token`` re-encrypted with the first key (MultiFernet.rotate).

    Raises:
        SecretUnreadable: no configured key decrypts it.
    """
    try:
        return _current().rotate(token.encode()).decode()
    except InvalidToken:
        raise SecretUnreadable("no configured AGENTCHAT_ENCRYPTION_KEYS key decrypts this secret") from None
