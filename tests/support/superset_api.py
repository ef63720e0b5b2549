"""An independent view of the local Superset pair for assertions (plain httpx, not the app's client).

Look-ups and raw calls; objects a test makes and removes go through ``tests.support.superset_scratch``.
"""

import io
import os
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import prison

URLS = {"ss-dev": "http://127.0.0.1:8088", "prod": "http://127.0.0.1:8089"}
# The local stack's service account (role Admin, scripts/devstack/users.py): what service mode acts as on loopback.
SERVICE_USERNAME = os.environ.get("SUPERSET_SERVICE_USERNAME") or "agentchat_service"
SERVICE_PASSWORD = os.environ.get("SUPERSET_ADMIN_PASSWORD") or "admin"


@contextmanager
def superset(env_id: str) -> Iterator[httpx.Client]:
    """Yield an httpx client logged in as the local stack's service account of ``env_id`` (``ss-dev`` or ``prod``;
    Superset role Admin)."""
    with httpx.Client(base_url=URLS[env_id], timeout=30, trust_env=False) as client:
        login = client.post(
            "/api/v1/security/login",
            json={"username": SERVICE_USERNAME, "password": SERVICE_PASSWORD, "provider": "db", "refresh": True},
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


def api(env_id: str, method: str, path: str, **kwargs) -> Any:
    """Call ``method path`` on the local ``env_id`` and return the JSON body (None for an empty one).

    Raises:
        httpx.HTTPStatusError: Superset answered 4xx/5xx.
    """
    with superset(env_id) as client:
        response = client.request(method, path, **kwargs)
        response.raise_for_status()
        return response.json() if response.content else None


def datasets_named(env_id: str, table_name: str) -> list[dict[str, Any]]:
    """Datasets of ``env_id`` whose table name is exactly ``table_name`` (at most 100 rows, as Superset lists them)."""
    q = f"(filters:!((col:table_name,opr:eq,value:'{table_name}')),page_size:100)"
    return api(env_id, "GET", "/api/v1/dataset/", params={"q": q})["result"]


def chart_ids_named(name: str, env_id: str = "ss-dev") -> list[int]:
    """Return the ids of the charts called exactly ``name`` in ``env_id``."""
    q = prison.dumps({"filters": [{"col": "slice_name", "opr": "eq", "value": name}], "columns": ["id"]})
    return [row["id"] for row in api(env_id, "GET", "/api/v1/chart/", params={"q": q})["result"]]


def dashboards_all(env_id: str) -> list[dict]:
    """Every dashboard of ``env_id`` as ``{"id", "uuid", "slug", "dashboard_title"}`` (all pages)."""
    rows, page = [], 0
    with superset(env_id) as client:
        while True:
            q = {"columns": ["id", "uuid", "slug", "dashboard_title"], "page": page, "page_size": 100}
            batch = client.get("/api/v1/dashboard/", params={"q": prison.dumps(q)}).json()["result"]
            rows += batch
            if len(batch) < 100:
                return rows
            page += 1


def dashboard_uuid(env_id: str, slug: str) -> str:
    """The uuid of the dashboard with ``slug`` in ``env_id`` (the detail endpoint does not show it)."""
    q = {"columns": ["uuid"], "filters": [{"col": "slug", "opr": "eq", "value": slug}]}
    return api(env_id, "GET", "/api/v1/dashboard/", params={"q": prison.dumps(q)})["result"][0]["uuid"]


def raw_export(env_id: str, dashboard_id: int) -> dict[str, bytes]:
    """Superset's export of one dashboard, unpacked independently of the app (top folder stripped)."""
    with superset(env_id) as client:
        response = client.get("/api/v1/dashboard/export/", params={"q": f"!({dashboard_id})"})
        response.raise_for_status()
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        return {name.split("/", 1)[1]: archive.read(name) for name in archive.namelist() if not name.endswith("/")}
