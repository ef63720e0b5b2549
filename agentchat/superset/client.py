"""Superset REST client of one environment: the single owner of outbound HTTP to Superset (DESIGN §10).

Policy per request:

- no redirects, no proxies from the process environment, httpx transport retries off (``retries=0``): the only
  retry layer is the tenacity loop in ``SupersetClient.request``;
- whose bearer a request carries is the client's ``SupersetAuth`` (``superset/auth.py``, DESIGN §15): the user's
  own tokens or API key, or a service account's login; a 401 renews it once (refresh token, or a new login), a
  second 401 or a refused renewal is ``SessionExpired`` (at most two renewals per request, no further request);
- Superset's refusals — 403, the ``*_SECURITY_ACCESS_ERROR`` types it sends with other statuses (SQL Lab's
  table access: HTTP 500), and a 5xx that says the user lacks the permission (an import over another person's
  object) — are ``SupersetDenied`` with Superset's message: never retried, never sent again as another account;
- 429 is ``RateLimited`` with the ``Retry-After`` seconds, never retried;
- 5xx and connection errors are ``UpstreamUnavailable``; a read tool's call (``CallState.retry_transient``) may
  retry ONE of them, once, after 1 s — the budget is per tool call, not per request, so a call makes at most
  one retry however many requests it sends;
- a 5xx whose body is a Superset SIP-40 error of a deterministic type (e.g. ``DML_NOT_ALLOWED_ERROR``: the
  database refuses DML, sent with HTTP 500) is ``UpstreamError`` and is not retried: the same request would fail
  the same way. ``GENERIC_DB_ENGINE_ERROR`` counts as deterministic: it is what a query that fails in the
  database (no such table, bad column) reports, and its message tells the user why; a lost database connection
  has its own ``CONNECTION_*`` types, which stay transient;
- in a write/dangerous tool's call, a POST/PUT/PATCH/DELETE that may have reached Superset and then failed (5xx,
  reset, read timeout) is ``StatusUnknown``: the change may or may not have happened.

The whole-call deadline is the executor's (``asyncio.timeout``); the httpx timeout per operation is the same
number so a stuck socket cannot outlive the call.
"""

import asyncio
import email.utils
import math
import time
from datetime import UTC, datetime
from typing import Any

import httpx
import prison
from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt, wait_fixed

from agentchat.errors import (
    RateLimited,
    SessionExpired,
    StatusUnknown,
    SupersetDenied,
    UpstreamError,
    UpstreamUnavailable,
)
from agentchat.superset.auth import ServiceLogin, SupersetAuth
from agentchat.superset.call import CallState
from agentchat.superset.error_types import NOT_JSON, superset_error, upstream_text

RETRY_DELAY_S = 1.0
CALL_HEADER = "X-Agentchat-Call"
# SIP-40 error types that a repeated request reproduces (superset/errors.py, SupersetErrorType).
DETERMINISTIC_ERROR_TYPES = frozenset(
    {
        "DML_NOT_ALLOWED_ERROR",
        "GENERIC_DB_ENGINE_ERROR",
        "SYNTAX_ERROR",
        "INVALID_SQL_ERROR",
        "COLUMN_DOES_NOT_EXIST_ERROR",
        "TABLE_DOES_NOT_EXIST_ERROR",
        "SCHEMA_DOES_NOT_EXIST_ERROR",
        "OBJECT_DOES_NOT_EXIST_ERROR",
        "DATABASE_NOT_FOUND_ERROR",
        "TABLE_NOT_FOUND_ERROR",
        "MISSING_TEMPLATE_PARAMS_ERROR",
        "INVALID_TEMPLATE_PARAMS_ERROR",
        "INVALID_CTAS_QUERY_ERROR",
        "INVALID_CVAS_QUERY_ERROR",
        "ADHOC_SUBQUERY_NOT_ALLOWED_ERROR",
        "RESULT_TOO_LARGE_ERROR",
        "INVALID_PAYLOAD_FORMAT_ERROR",
        "INVALID_PAYLOAD_SCHEMA_ERROR",
        "MARSHMALLOW_ERROR",
        "TABLE_SECURITY_ACCESS_ERROR",
        "DATASOURCE_SECURITY_ACCESS_ERROR",
        "DATABASE_SECURITY_ACCESS_ERROR",
        "QUERY_SECURITY_ACCESS_ERROR",
        "MISSING_OWNERSHIP_ERROR",
        "USER_ACTIVITY_SECURITY_ACCESS_ERROR",
        "DASHBOARD_SECURITY_ACCESS_ERROR",
        "CHART_SECURITY_ACCESS_ERROR",
        "CONNECTION_INVALID_USERNAME_ERROR",
        "CONNECTION_INVALID_PASSWORD_ERROR",
        "CONNECTION_ACCESS_DENIED_ERROR",
        "CONNECTION_UNKNOWN_DATABASE_ERROR",
        "CONNECTION_DATABASE_PERMISSIONS_ERROR",
        "CONNECTION_MISSING_PARAMETERS_ERROR",
    }
)


async def gather_requests(*aws: Any) -> list[Any]:
    """Await ``aws`` concurrently, like ``asyncio.gather``, but the first failure cancels the others and waits for
    them before it is raised: no request of a failed tool call is left running to fail later (and be logged as a
    retry) after the call has ended.

    Returns:
        The results in argument order.

    Raises:
        The first exception raised by any of ``aws`` (e.g. ``UpstreamError`` for a 404), unchanged.
    """
    tasks = [asyncio.ensure_future(aw) for aw in aws]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def rison(value: Any) -> str:
    """Encode ``value`` as Rison, the query format of Superset list endpoints (``?q=``)."""
    encoded: str = prison.dumps(value)  # prison ships no type hints
    return encoded


def retry_after_seconds(value: str | None, *, now: datetime | None = None) -> int | None:
    """Parse an HTTP ``Retry-After`` (delta seconds or an HTTP date) into whole seconds ≥ 0, or None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    now = now or datetime.now(UTC)
    return max(0, math.ceil((when - now).total_seconds()))


def _transport_detail(exc: httpx.TransportError) -> str:
    if isinstance(exc, httpx.ConnectError):
        return "connection refused"
    if isinstance(exc, httpx.TimeoutException):
        return "no answer in time"
    if isinstance(exc, httpx.ReadError | httpx.RemoteProtocolError | httpx.WriteError):
        return "connection reset"
    return type(exc).__name__


class SupersetClient:
    """Async REST client of one Superset environment.

    Args:
        env_id: environment id (for messages).
        base_url: instance root, e.g. ``http://127.0.0.1:8088``.
        call: the tool call's shared state (retry policy and counters).
        timeout_s: per-operation httpx timeout in seconds (the executor bounds the whole call).
        auth: whose bearer the requests carry (``superset/auth.py``); without it ``username``/``password``
            make a ``ServiceLogin`` (the benchmarks' and tests' shared account).
        tier: the environment's tier (``dev``/``staging``/``prod``, ``policies.models.Tier``); "" when not known,
            which writes that copy first outside dev treat as not dev (``tools.copies``).
    """

    def __init__(
        self,
        *,
        env_id: str,
        base_url: str,
        call: CallState,
        timeout_s: float,
        auth: SupersetAuth | None = None,
        username: str = "",
        password: str = "",
        tier: str = "",
    ):
        self.env_id = env_id
        self.tier = tier
        self.base_url = base_url.rstrip("/")
        self.auth: SupersetAuth = auth or ServiceLogin(username, password)
        self.call = call
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout_s,
            follow_redirects=False,
            trust_env=False,
            transport=httpx.AsyncHTTPTransport(retries=0),
            headers={CALL_HEADER: call.trace_id},
        )

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def __aenter__(self) -> "SupersetClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def auth_request(self, path: str, **kwargs: Any) -> httpx.Response:
        """POST one sign-in request (login or token refresh) for ``auth``; counted as a login of the call.

        Raises:
            UpstreamUnavailable: connection error.
        """
        self.call.requests += 1
        self.call.logins += 1
        try:
            return await self._http.post(path, **kwargs)
        except httpx.TransportError as exc:
            raise UpstreamUnavailable(f"{self.env_id}: {_transport_detail(exc)}", env=self.env_id) from exc

    def raise_for_status(self, response: httpx.Response, *, mutating: bool) -> None:
        """Raise the DESIGN §10 error of a failed ``response`` (nothing for status < 400).

        Raises:
            RateLimited / UpstreamError / UpstreamUnavailable / StatusUnknown / SupersetDenied: see ``request``.
        """
        self._raise_for_status(response, mutating=mutating)

    def _raise_for_status(self, response: httpx.Response, *, mutating: bool) -> None:
        status = response.status_code
        if status < 400:
            return
        if status == 429:
            seconds = retry_after_seconds(response.headers.get("Retry-After"))
            raise RateLimited(f"{self.env_id}: HTTP 429", retry_after="?" if seconds is None else seconds)
        info = superset_error(response)
        detail = f"{self.env_id}: HTTP {status} {info.error_type}: {info.upstream}".replace(" :", ":")
        if status >= 500 and not info.denied and info.error_type not in DETERMINISTIC_ERROR_TYPES:
            if mutating:
                raise StatusUnknown(f"{self.env_id}: HTTP {status}")
            raise UpstreamUnavailable(f"{self.env_id}: HTTP {status}", env=self.env_id, status=status)
        # Superset refused the request itself — its permissions (403, a *_SECURITY_ACCESS_ERROR: DESIGN §15, never
        # retried, never as another account) or a deterministic error (a missing column, DML on a read-only
        # database): nothing changed and a repeat would fail the same way. The user reads our sentence naming the
        # object; Superset's own text goes with it (``upstream``) for the page's detail and the model (issue 30).
        error = (SupersetDenied if info.denied else UpstreamError)(
            detail,
            env=self.env_id,
            status=status,
            error_type=info.error_type,
            upstream=info.upstream,
            reason=info.upstream,
            **info.params,
        )
        error.message = info.message
        raise error

    async def _send_once(self, method: str, path: str, *, read: bool = False, **kwargs: Any) -> httpx.Response:
        """One request (plus at most one token refresh after a 401); no retry here."""
        # A read tool's POST (SQL Lab's execute, format) changes nothing; only a write tool's requests mutate.
        mutating = self.call.mutates(method, read=read)
        token = await self.auth.bearer(self)
        for attempt in range(2):
            self.call.requests += 1
            try:
                response = await self._http.request(
                    method, path, headers={"Authorization": f"Bearer {token}"}, **kwargs
                )
            except httpx.TransportError as exc:
                # A write that may have reached Superset before the failure has an unknown outcome; a refused
                # connection never carried it.
                if mutating and not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
                    self.call.mutation_sent = True
                    raise StatusUnknown(f"{self.env_id}: {_transport_detail(exc)}") from exc
                raise UpstreamUnavailable(f"{self.env_id}: {_transport_detail(exc)}", env=self.env_id) from exc
            if mutating:
                self.call.mutation_sent = True
            if response.status_code != 401:
                self._raise_for_status(response, mutating=mutating)
                return response
            if attempt == 0:
                token = await self.auth.renew(self, token)
        raise SessionExpired(f"{self.env_id}: 401 after token refresh", env=self.env_id)

    async def request(self, method: str, path: str, *, read: bool = False, **kwargs: Any) -> httpx.Response:
        """Send one request under the call's retry policy and return the response (status < 400).

        Args:
            method / path: HTTP method and path under the instance root.
            read: the request changes nothing although its method is POST (SQL Lab's ``execute`` of a SELECT
                already proven read-only, ``format_sql``): it is treated as a read (retried under the read
                policy, no ``mutation_sent``, a 5xx is ``UpstreamUnavailable`` rather than ``StatusUnknown``).
            kwargs: passed to ``httpx.AsyncClient.request``.

        Raises:
            UpstreamUnavailable: 5xx or connection error (after the call's one retry where allowed).
            StatusUnknown: a write call's mutating request failed after it may have reached Superset.
            SessionExpired: 401 after one token refresh (``IdentityExpired`` when the user's refresh token or key
                was refused).
            SupersetDenied: Superset's permissions refused the request (403 or a security-access error type).
            RateLimited: 429 (its ``Retry-After`` seconds in the params).
            UpstreamError: any other 4xx, or a 5xx that Superset reports as a deterministic error.
        """
        if not self.call.retry_transient or self.call.mutates(method, read=read):
            # A write tool's call is never retried, and neither is a request that may change Superset.
            return await self._send_once(method, path, read=read, **kwargs)
        started = time.monotonic()

        def _should_retry(state: RetryCallState) -> bool:
            exc = state.outcome.exception() if state.outcome else None
            return isinstance(exc, UpstreamUnavailable) and self.call.take_retry()

        def _note_retry(state: RetryCallState) -> None:
            self.call.retries += 1
            self.call.events.append(
                {
                    "path": path,
                    "method": method,
                    "error": str(state.outcome.exception()) if state.outcome else "",
                    "attempt": state.attempt_number,
                    "after_ms": int((time.monotonic() - started) * 1000),
                    "delay_s": RETRY_DELAY_S,
                    "trace_id": self.call.trace_id,
                }
            )

        async for attempt in AsyncRetrying(
            retry=_should_retry,
            stop=stop_after_attempt(2),
            wait=wait_fixed(RETRY_DELAY_S),
            before_sleep=_note_retry,
            reraise=True,
        ):
            with attempt:
                return await self._send_once(method, path, read=read, **kwargs)
        raise AssertionError("unreachable")  # pragma: no cover

    async def get_json(self, path: str, *, q: Any = None, params: dict[str, Any] | None = None) -> Any:
        """GET ``path`` (``q`` is Rison-encoded) and return the decoded JSON body.

        Raises:
            UpstreamError: the body is not JSON; otherwise as ``request``.
        """
        params = dict(params or {})
        if q is not None:
            params["q"] = rison(q)
        response = await self.request("GET", path, params=params)
        return _json_body(response, self.env_id)

    async def send_json(self, method: str, path: str, payload: Any, *, read: bool = False) -> Any:
        """Send a JSON body with ``method`` and return the decoded JSON answer (may be ``{}``).

        ``read=True`` marks a POST that changes nothing (see ``request``).
        """
        response = await self.request(method, path, json=payload, read=read)
        return _json_body(response, self.env_id) if response.content else {}


def _json_body(response: httpx.Response, env_id: str) -> Any:
    try:
        return response.json()
    except ValueError:
        error = UpstreamError(
            f"{env_id}: HTTP {response.status_code} answer is not JSON",
            status=502,
            env=env_id,
            got=response.status_code,
            upstream=upstream_text(response),
        )
        error.message = NOT_JSON
        raise error from None
