"""Superset REST client of one environment: the single owner of outbound HTTP to Superset (DESIGN §10).

Policy per request: no redirects; JWT login (``POST /api/v1/security/login``) cached per instance and user;
a 401 refreshes the token once, a second 401 is ``SessionExpired``; 429 is ``RateLimited`` (never retried);
5xx and connection errors are ``UpstreamUnavailable`` and are retried once after 1 s only when the call's
``CallState.retry_transient`` allows it (read tools). The whole-call deadline is the executor's.
"""

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import httpx
import prison
from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_fixed

from ..errors import RateLimited, SessionExpired, StatusUnknown, UpstreamError, UpstreamUnavailable

RETRY_DELAY_S = 1.0
_MUTATING = {"POST", "PUT", "PATCH", "DELETE"}
# Superset's structured error types (``{"errors": [{"error_type": ...}]}``) that a 5xx answer carries when the
# query itself failed (bad SQL, missing table, refused DML, no access): deterministic, so not an outage and
# never retried. Connection errors of the data source are left out on purpose: they are transient.
QUERY_ERROR_TYPES = frozenset(
    {
        "GENERIC_DB_ENGINE_ERROR",
        "COLUMN_DOES_NOT_EXIST_ERROR",
        "TABLE_DOES_NOT_EXIST_ERROR",
        "SCHEMA_DOES_NOT_EXIST_ERROR",
        "OBJECT_DOES_NOT_EXIST_ERROR",
        "SYNTAX_ERROR",
        "INVALID_SQL_ERROR",
        "DML_NOT_ALLOWED_ERROR",
        "MISSING_TEMPLATE_PARAMS_ERROR",
        "INVALID_TEMPLATE_PARAMS_ERROR",
        "ADHOC_SUBQUERY_NOT_ALLOWED_ERROR",
        "QUERY_SECURITY_ACCESS_ERROR",
        "DATABASE_SECURITY_ACCESS_ERROR",
        "TABLE_SECURITY_ACCESS_ERROR",
        "DATASOURCE_SECURITY_ACCESS_ERROR",
        "RESULTS_BACKEND_NOT_CONFIGURED_ERROR",
        "SQLLAB_TIMEOUT_ERROR",
    }
)
_TOKENS: dict[tuple[str, str], str] = {}
_TOKEN_LOCKS: dict[tuple[str, str], asyncio.Lock] = {}


@dataclass
class CallState:
    """What one tool call did upstream, shared by every client the call uses.

    Attributes:
        retry_transient: retry a failed request once after 1 s (read tools only, DESIGN §10).
        requests: upstream requests sent (login included).
        retries: retries made.
        mutation_sent: a POST/PUT/PATCH/DELETE other than login reached the wire; a failure after that
            means the operation's status is unknown.
        events: retry events for the audit log: ``{"path", "error"}``.
    """

    retry_transient: bool
    requests: int = 0
    retries: int = 0
    mutation_sent: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)


def rison(value: Any) -> str:
    """Encode ``value`` as Rison, the query format of Superset list endpoints (``?q=``)."""
    return prison.dumps(value)


class SupersetClient:
    """Async REST client of one Superset environment.

    Args:
        env_id: environment id (for messages).
        base_url: instance root, e.g. ``http://127.0.0.1:8088``.
        username / password: login of the service account.
        call: the tool call's shared state (retry policy and counters).
        timeout_s: per-operation httpx timeout in seconds (the executor bounds the whole call).
    """

    def __init__(self, *, env_id: str, base_url: str, username: str, password: str, call: CallState, timeout_s: float):
        self.env_id = env_id
        self.base_url = base_url.rstrip("/")
        self._username = username
        self._password = password
        self.call = call
        self._http = httpx.AsyncClient(
            base_url=self.base_url, timeout=timeout_s, follow_redirects=False, trust_env=False
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> "SupersetClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    @property
    def _token_key(self) -> tuple[str, str]:
        return (self.base_url, self._username)

    async def _login(self, stale: str | None) -> str:
        """Return a valid access token, logging in unless another task already replaced ``stale``."""
        key = self._token_key
        lock = _TOKEN_LOCKS.setdefault(key, asyncio.Lock())
        async with lock:
            current = _TOKENS.get(key)
            if current and current != stale:
                return current
            self.call.requests += 1
            try:
                response = await self._http.post(
                    "/api/v1/security/login",
                    json={"username": self._username, "password": self._password, "provider": "db", "refresh": True},
                )
            except httpx.TransportError as exc:
                raise UpstreamUnavailable(f"{self.env_id}: {type(exc).__name__}") from exc
            if response.status_code == 401:
                raise SessionExpired(f"{self.env_id}: login refused")
            self._raise_for_status(response, mutating=False)
            token = response.json()["access_token"]
            _TOKENS[key] = token
            return token

    def _raise_for_status(self, response: httpx.Response, *, mutating: bool) -> None:
        status = response.status_code
        if status < 400:
            return
        if status == 429:
            retry_after = response.headers.get("Retry-After", "?")
            raise RateLimited(f"{self.env_id}: 429", retry_after=retry_after)
        if status >= 500:
            query_error = None if mutating else _query_error(response)
            if query_error:
                raise UpstreamError(f"{self.env_id}: {query_error}", status=status)
            if mutating:
                raise StatusUnknown(f"{self.env_id}: HTTP {status}")
            raise UpstreamUnavailable(f"{self.env_id}: HTTP {status}")
        raise UpstreamError(f"{self.env_id}: HTTP {status} {_error_detail(response)}", status=status)

    async def _send_once(self, method: str, path: str, *, read: bool = False, **kwargs) -> httpx.Response:
        mutating = method in _MUTATING and not read
        token = _TOKENS.get(self._token_key) or await self._login(None)
        for attempt in range(2):
            self.call.requests += 1
            try:
                response = await self._http.request(
                    method, path, headers={"Authorization": f"Bearer {token}"}, **kwargs
                )
            except httpx.TransportError as exc:
                # A request that may have reached Superset before the failure leaves a write's outcome unknown.
                if mutating and not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
                    self.call.mutation_sent = True
                    raise StatusUnknown(f"{self.env_id}: {type(exc).__name__}") from exc
                raise UpstreamUnavailable(f"{self.env_id}: {type(exc).__name__}") from exc
            if mutating:
                self.call.mutation_sent = True
            if response.status_code != 401:
                self._raise_for_status(response, mutating=mutating)
                return response
            if attempt == 0:
                token = await self._login(token)
        raise SessionExpired(f"{self.env_id}: 401 after token refresh")

    async def request(self, method: str, path: str, *, read: bool = False, **kwargs) -> httpx.Response:
        """Send one request under the call's retry policy and return the response (status < 400).

        Args:
            method / path: HTTP method and path under the instance root.
            read: the request changes nothing although its method is POST (SQL Lab's ``execute`` of a SELECT
                already proven read-only, ``format_sql``): it is treated as a read (retried under the read
                policy, no ``mutation_sent``, a 5xx is ``UpstreamUnavailable`` rather than ``StatusUnknown``).
            kwargs: passed to ``httpx.AsyncClient.request``.

        Raises:
            UpstreamUnavailable: 5xx or connection error (after the one retry where allowed).
            StatusUnknown: a mutating request failed after it may have reached Superset.
            SessionExpired: 401 after one token refresh.
            RateLimited: 429 (its ``Retry-After`` in the params).
            UpstreamError: any other 4xx, or a 5xx of a read whose body is one of ``QUERY_ERROR_TYPES``.
        """
        if not self.call.retry_transient or (method in _MUTATING and not read):
            return await self._send_once(method, path, read=read, **kwargs)

        def _note_retry(state) -> None:
            self.call.retries += 1
            self.call.events.append({"path": path, "error": str(state.outcome.exception())})

        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type(UpstreamUnavailable),
            stop=stop_after_attempt(2),
            wait=wait_fixed(RETRY_DELAY_S),
            before_sleep=_note_retry,
            reraise=True,
        ):
            with attempt:
                return await self._send_once(method, path, read=read, **kwargs)
        raise AssertionError("unreachable")  # pragma: no cover

    async def get_json(self, path: str, *, q: Any = None, params: dict | None = None) -> Any:
        """GET ``path`` (``q`` is Rison-encoded) and return the decoded JSON body."""
        params = dict(params or {})
        if q is not None:
            params["q"] = rison(q)
        response = await self.request("GET", path, params=params)
        return response.json()

    async def send_json(self, method: str, path: str, payload: Any, *, read: bool = False) -> Any:
        """Send a JSON body with ``method`` and return the decoded JSON answer (may be ``{}``).

        ``read=True`` marks a POST that changes nothing (see ``request``).
        """
        response = await self.request(method, path, json=payload, read=read)
        return response.json() if response.content else {}


def _query_error(response: httpx.Response) -> str | None:
    """Return the message of a Superset query failure (``QUERY_ERROR_TYPES``) carried by ``response``, or None."""
    try:
        body = response.json()
    except (ValueError, json.JSONDecodeError):
        return None
    errors = body.get("errors") if isinstance(body, dict) else None
    for error in errors if isinstance(errors, list) else []:
        if isinstance(error, dict) and error.get("error_type") in QUERY_ERROR_TYPES:
            return f"{error['error_type']}: {str(error.get('message') or '')[:300]}"
    return None


def _error_detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except (ValueError, json.JSONDecodeError):
        return response.text[:200]
    if isinstance(body, dict):
        return str(body.get("message") or body.get("msg") or body.get("errors") or body)[:300]
    return str(body)[:300]
