"""The stack's own small REST client of a local instance (admin login, JSON in and out, Rison list filters).

Deliberately not the project's client (``agentchat/superset/``): the stack runs without Django and before the
project's virtualenv exists. The only HTTP library is ``httpx``, and only commands that talk to Superset need
it, so ``install`` still runs on a bare Python.
"""

from __future__ import annotations

import contextlib
import json
from typing import Any

from scripts.devstack.config import ADMIN_USERNAME, SERVICE_USERNAME, Instance, admin_password
from scripts.devstack.report import StackError

try:
    import httpx
except ImportError:  # ``install`` needs only the standard library: make runs it beside the project's pip install
    httpx = None


def _need_httpx() -> None:
    if httpx is None:
        raise StackError("httpx is missing: run this command with the project's .venv/bin/python")


def health_ok(inst: Instance, timeout: float = 2.0) -> bool:
    """Return whether ``GET /health`` answers 200 ``OK`` within ``timeout`` seconds.

    Raises:
        StackError: httpx is not installed.
    """
    _need_httpx()
    try:
        response = httpx.get(f"{inst.url}/health", timeout=timeout, trust_env=False)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and response.text.strip() == "OK"


def rison(value: Any) -> str:
    """Encode a JSON-like value as Rison (the ``q`` parameter format of Superset's list endpoints).

    Args:
        value: dict, list, str, int, float, bool or None.

    Returns:
        The Rison text; strings are always quoted, which every Rison parser accepts.
    """
    if value is None:
        return "!n"
    if value is True:
        return "!t"
    if value is False:
        return "!f"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return "'" + value.replace("!", "!!").replace("'", "!'") + "'"
    if isinstance(value, (list, tuple)):
        return "!(" + ",".join(rison(item) for item in value) + ")"
    if isinstance(value, dict):
        return "(" + ",".join(f"{rison(str(k))}:{rison(v)}" for k, v in value.items()) + ")"
    raise TypeError(f"cannot encode {type(value).__name__} as Rison")


class SupersetClient:
    """A logged-in REST client for one instance (JWT bearer; CSRF is off in the local config).

    Use as a context manager. Methods return the decoded JSON body and raise ``StackError`` with the status
    and body on any non-2xx answer.
    """

    def __init__(self, inst: Instance, timeout: float = 60.0) -> None:
        """Log in as the stack's service account (``SERVICE_USERNAME`` / ``admin_password()``).

        An instance set up before that account existed has only ``admin`` with ``admin_password()``: the client
        then logs in as it, once, so that the seed (``users.py``) can create the service account and give
        ``admin`` the demo password.

        Args:
            inst: the instance.
            timeout: per-request timeout in seconds.

        Raises:
            StackError: neither login was accepted, or the instance failed.
        """
        _need_httpx()
        self.inst = inst
        self.http = httpx.Client(base_url=inst.url, timeout=timeout, trust_env=False)  # loopback: no proxy
        try:
            token = self._login(SERVICE_USERNAME) or self._login(ADMIN_USERNAME)
        except Exception:
            self.http.close()
            raise
        if token is None:
            self.http.close()
            raise StackError(
                f"[{inst.name}] login refused for {SERVICE_USERNAME} (and {ADMIN_USERNAME}) with "
                "SUPERSET_ADMIN_PASSWORD"
            )
        self.http.headers["Authorization"] = f"Bearer {token}"

    def _login(self, username: str) -> str | None:
        """Return an access token of ``username`` with ``admin_password()``, or None when Superset refuses it."""
        body = {"username": username, "password": admin_password(), "provider": "db", "refresh": True}
        try:
            response = self.http.post("/api/v1/security/login", json=body)
        except httpx.HTTPError as exc:
            raise StackError(f"[{self.inst.name}] POST /api/v1/security/login: {exc}") from exc
        if response.status_code == 401:
            return None
        if response.status_code >= 300:
            raise StackError(f"[{self.inst.name}] login -> {response.status_code}: {response.text[:1000]}")
        token: str = response.json()["access_token"]
        return token

    def __enter__(self) -> SupersetClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.http.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise StackError(f"[{self.inst.name}] {method} {path}: {exc}") from exc
        if response.status_code >= 300:
            answer = f"{response.status_code}: {response.text[:1000]}"
            raise StackError(f"[{self.inst.name}] {method} {path} -> {answer}")
        return response.json() if response.content else None

    def get(self, path: str, **kwargs: Any) -> Any:
        """GET ``path`` and return the JSON body."""
        return self._request("GET", path, **kwargs)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """POST a JSON body to ``path`` and return the JSON answer."""
        return self._request("POST", path, json=body)

    def put(self, path: str, body: dict[str, Any]) -> Any:
        """PUT a JSON body to ``path`` and return the JSON answer."""
        return self._request("PUT", path, json=body)

    def find(self, resource: str, **equals: Any) -> list[dict[str, Any]]:
        """List objects of a resource whose columns equal the given values.

        Args:
            resource: ``database``, ``dataset``, ``chart`` or ``dashboard``.
            equals: column name → value, each an ``eq`` filter (e.g. ``slug="energy-report"``).

        Returns:
            The matching rows (first 100).
        """
        filters = [{"col": col, "opr": "eq", "value": value} for col, value in equals.items()]
        query = rison({"filters": filters, "page_size": 100})
        return self.get(f"/api/v1/{resource}/", params={"q": query})["result"]


def dashboard_count(inst: Instance) -> int | None:
    """Return how many dashboards the instance lists, or None when login or the request fails (for ``status``)."""
    with contextlib.suppress(StackError, httpx.HTTPError), SupersetClient(inst) as client:
        return client.get("/api/v1/dashboard/", params={"q": "(page_size:1)"})["count"]
    return None
