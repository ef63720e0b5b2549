"""Whose bearer a Superset request carries (DESIGN §15), and the sign-in requests of agentchat's login form.

A ``SupersetClient`` asks its ``SupersetAuth`` for a bearer before a request and, after a 401, asks it once to
renew; a second 401 (or a refused renewal) is ``SessionExpired``. Three kinds:

- ``ServiceLogin``: the shared account of an environment in ``service`` mode: ``POST /api/v1/security/login``
  with its username and password; the access token is cached per instance and username for the process.
- ``TokenPair``: a user's ``password`` identity: the access token from their sign-in; a rejected one is renewed
  once with ``POST /api/v1/security/refresh`` (the refresh token as bearer, flask-jwt-extended); a refused
  refresh calls ``on_expired`` (the identity turns ``expired``) and raises ``IdentityExpired``.
- ``ApiKey``: a user's personal key (``sst_…``, FAB ``FAB_API_KEY_ENABLED``): sent as the bearer; Superset's 401
  means revoked or expired: ``on_expired``, then ``IdentityExpired``. Never renewed.

The sync functions at the end (``password_sign_in``, ``whoami``) are the login form's and the settings page's
requests: one request each, no retry, a deadline per request.
"""

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import httpx

from agentchat.errors import IdentityExpired, SessionExpired, UpstreamUnavailable

if TYPE_CHECKING:  # the client imports this module: a type-only import avoids the cycle
    from agentchat.superset.client import SupersetClient

# Access tokens of service accounts per (instance URL, username), shared by every call of the process.
_SERVICE_TOKENS: dict[tuple[str, str], str] = {}
# One login lock per event loop and token key: an asyncio.Lock is bound to the loop that first waits on it.
_LOGIN_LOCKS: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, str], asyncio.Lock]]" = (
    weakref.WeakKeyDictionary()
)

OnExpired = Callable[[], Awaitable[None]]
OnRefreshed = Callable[[str], Awaitable[None]]


class SupersetAuth(Protocol):
    """What a client needs to authenticate its requests.

    Attributes:
        kind: ``service``, ``password`` or ``api_key`` (recorded in the audit row of the call).
        username: the Superset username the requests act as (as Superset reported it, or the service login).
    """

    kind: str
    username: str

    async def bearer(self, client: "SupersetClient") -> str:
        """Return the bearer for the next request (may log in)."""

    async def renew(self, client: "SupersetClient", stale: str) -> str:
        """Return a new bearer after Superset rejected ``stale`` (401).

        Raises:
            SessionExpired: no new bearer can be had (refused login, refresh or key).
        """


def _login_lock(key: tuple[str, str]) -> asyncio.Lock:
    locks = _LOGIN_LOCKS.setdefault(asyncio.get_running_loop(), {})
    return locks.setdefault(key, asyncio.Lock())


@dataclass
class ServiceLogin:
    """The shared account of a ``service``-mode environment (``SUPERSET_<ENV>_USERNAME``/``_PASSWORD``)."""

    username: str
    password: str = field(repr=False)
    provider: str = "db"
    kind: str = "service"

    async def bearer(self, client: "SupersetClient") -> str:
        """Return the cached access token of this account, logging in when there is none."""
        return _SERVICE_TOKENS.get((client.base_url, self.username)) or await self._login(client, None)

    async def renew(self, client: "SupersetClient", stale: str) -> str:
        """Log in again unless another task already replaced ``stale``."""
        return await self._login(client, stale)

    async def _login(self, client: "SupersetClient", stale: str | None) -> str:
        key = (client.base_url, self.username)
        async with _login_lock(key):
            current = _SERVICE_TOKENS.get(key)
            if current and current != stale:
                return current
            body = {"username": self.username, "password": self.password, "provider": self.provider, "refresh": True}
            response = await client.auth_request("/api/v1/security/login", json=body)
            if response.status_code == 401:
                _SERVICE_TOKENS.pop(key, None)
                raise SessionExpired(f"{client.env_id}: login refused", env=client.env_id)
            client.raise_for_status(response, mutating=False)
            token: str = response.json()["access_token"]
            _SERVICE_TOKENS[key] = token
            return token


@dataclass
class TokenPair:
    """A ``password`` identity's tokens; ``on_refreshed(access)`` stores a renewed access token."""

    username: str
    access: str = field(repr=False)
    refresh: str = field(repr=False)
    on_refreshed: OnRefreshed = field(repr=False)
    on_expired: OnExpired = field(repr=False)
    kind: str = "password"
    _lock: asyncio.Lock | None = field(default=None, repr=False)

    async def bearer(self, client: "SupersetClient") -> str:
        """Return the stored access token."""
        return self.access

    async def renew(self, client: "SupersetClient", stale: str) -> str:
        """Refresh the access token once with the refresh token (``POST /api/v1/security/refresh``).

        Raises:
            IdentityExpired: Superset refused the refresh token (expired, revoked, user deactivated).
        """
        self._lock = self._lock or asyncio.Lock()
        async with self._lock:
            if self.access != stale:
                return self.access  # another request of this call renewed it already
            response = await client.auth_request(
                "/api/v1/security/refresh", headers={"Authorization": f"Bearer {self.refresh}"}
            )
            if response.status_code in (401, 403, 422):
                await self.on_expired()
                raise IdentityExpired(f"{client.env_id}: refresh refused", env=client.env_id)
            client.raise_for_status(response, mutating=False)
            self.access = str(response.json()["access_token"])
            await self.on_refreshed(self.access)
            return self.access


@dataclass
class ApiKey:
    """An ``api_key`` identity: the key is the bearer; Superset's 401 means it no longer works."""

    username: str
    key: str = field(repr=False)
    on_expired: OnExpired = field(repr=False)
    kind: str = "api_key"

    async def bearer(self, client: "SupersetClient") -> str:
        """Return the key."""
        return self.key

    async def renew(self, client: "SupersetClient", stale: str) -> str:
        """Never renewed: mark the identity expired.

        Raises:
            IdentityExpired: always.
        """
        await self.on_expired()
        raise IdentityExpired(f"{client.env_id}: API key refused", env=client.env_id)


@dataclass(frozen=True)
class SignIn:
    """A successful ``/api/v1/security/login``: the tokens and who Superset says the user is (``/api/v1/me/``)."""

    access: str = field(repr=False)
    refresh: str = field(repr=False)
    me: dict[str, Any]
    roles: tuple[str, ...]


def _sync_http(base_url: str, timeout_s: float) -> httpx.Client:
    return httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout_s, follow_redirects=False, trust_env=False)


def password_sign_in(*, base_url: str, username: str, password: str, provider: str, timeout_s: float) -> SignIn | None:
    """Sign ``username`` in to one Superset with their password: login, then ``/api/v1/me/`` and its roles.

    Args:
        base_url: the instance root.
        username / password: what the person typed into agentchat's form (never stored).
        provider: ``db`` or ``ldap`` (``Environment.login_provider``).
        timeout_s: deadline of each request, seconds.

    Returns:
        ``SignIn``, or None when Superset refuses the credentials (401/400/422).

    Raises:
        UpstreamUnavailable: the instance cannot be reached or answers 5xx.
    """
    body = {"username": username, "password": password, "provider": provider, "refresh": True}
    try:
        with _sync_http(base_url, timeout_s) as http:
            login = http.post("/api/v1/security/login", json=body)
            if login.status_code in (400, 401, 403, 422):
                return None
            if login.status_code >= 300:
                raise UpstreamUnavailable(f"{base_url}: login HTTP {login.status_code}")
            tokens = login.json()
            headers = {"Authorization": f"Bearer {tokens['access_token']}"}
            me = http.get("/api/v1/me/", headers=headers)
            roles = http.get("/api/v1/me/roles/", headers=headers)
    except httpx.HTTPError as exc:
        raise UpstreamUnavailable(f"{base_url}: {type(exc).__name__}") from exc
    if me.status_code != 200:
        return None
    role_names = tuple(sorted(roles.json().get("result", {}).get("roles", {}))) if roles.status_code == 200 else ()
    return SignIn(tokens["access_token"], tokens["refresh_token"], me.json()["result"], role_names)


def whoami(*, base_url: str, bearer: str, timeout_s: float) -> dict[str, Any] | None:
    """Return ``GET /api/v1/me/``'s ``result`` for ``bearer`` (an API key or an access token), or None when Superset
    refuses it: 401/403, or 400/422 for a bearer that is not a token at all (Superset's JWT layer answers 422).

    Raises:
        UpstreamUnavailable: the instance cannot be reached or answers 5xx.
    """
    try:
        with _sync_http(base_url, timeout_s) as http:
            response = http.get("/api/v1/me/", headers={"Authorization": f"Bearer {bearer}"})
    except httpx.HTTPError as exc:
        raise UpstreamUnavailable(f"{base_url}: {type(exc).__name__}") from exc
    if response.status_code in (400, 401, 403, 422):
        return None
    if response.status_code >= 300:
        raise UpstreamUnavailable(f"{base_url}: /api/v1/me/ HTTP {response.status_code}")
    result: dict[str, Any] = response.json()["result"]
    return result
