"""Personal Superset API keys of the demo people, made and revoked through Superset's own API (FAB
``/api/v1/security/api_keys/``, ``FAB_API_KEY_ENABLED`` in the local pair) — as a person would, signed in as them."""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from tests.support.superset_api import URLS


@contextmanager
def _as(env_id: str, username: str, password: str = "demo") -> Iterator[httpx.Client]:
    with httpx.Client(base_url=URLS[env_id], timeout=30, trust_env=False) as http:
        body = {"username": username, "password": password, "provider": "db"}
        login = http.post("/api/v1/security/login", json=body)
        login.raise_for_status()
        http.headers["Authorization"] = f"Bearer {login.json()['access_token']}"
        yield http


def api_key_create(env_id: str, username: str) -> tuple[str, str]:
    """Create a key of ``username`` in ``env_id``; return ``(key, uuid)`` (the key is shown once, ``sst_…``)."""
    with _as(env_id, username) as http:
        made = http.post("/api/v1/security/api_keys/", json={"name": f"agentchat-test-{uuid.uuid4().hex[:6]}"})
        made.raise_for_status()
        result = made.json()["result"]
        return result["key"], result["uuid"]


def api_key_revoke(env_id: str, username: str, key_uuid: str) -> int:
    """Revoke the key ``key_uuid`` of ``username`` in ``env_id``; return Superset's status code."""
    with _as(env_id, username) as http:
        return http.delete(f"/api/v1/security/api_keys/{key_uuid}").status_code
