"""An independent view of the local Superset pair for assertions (plain httpx, not the app's client)."""

import os
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

URLS = {"ss-dev": "http://127.0.0.1:8088", "prod": "http://127.0.0.1:8089"}


@contextmanager
def superset(env_id: str) -> Iterator[httpx.Client]:
    """Yield an httpx client logged in as the local admin of ``env_id`` (``ss-dev`` or ``prod``)."""
    with httpx.Client(base_url=URLS[env_id], timeout=30, trust_env=False) as client:
        password = os.environ.get("SUPERSET_ADMIN_PASSWORD", "admin")
        login = client.post(
            "/api/v1/security/login",
            json={"username": "admin", "password": password, "provider": "db", "refresh": True},
        )
        login.raise_for_status()
        client.headers["Authorization"] = f"Bearer {login.json()['access_token']}"
        yield client


def dashboard_by_slug(env_id: str, slug: str) -> dict:
    """Return the dashboard with ``slug`` as Superset lists it (GET /api/v1/dashboard/<slug>)."""
    with superset(env_id) as client:
        response = client.get(f"/api/v1/dashboard/{slug}")
        response.raise_for_status()
        return response.json()["result"]


def dashboard_chart_names(env_id: str, dashboard_id: int) -> list[str]:
    """Return the chart names of a dashboard as Superset has them."""
    with superset(env_id) as client:
        response = client.get(f"/api/v1/dashboard/{dashboard_id}/charts")
        response.raise_for_status()
        return [c["slice_name"] for c in response.json()["result"]]


def is_up(env_id: str) -> bool:
    """True when the instance answers /health."""
    try:
        return httpx.get(URLS[env_id] + "/health", timeout=3, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False
