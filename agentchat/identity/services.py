"""Identities: obtained at sign-in or from an API key, used by every tool call, expired when Superset refuses them
(DESIGN §15). Secrets go in and out only through ``crypto``; nothing here logs or returns one.
"""

import base64
import binascii
import json
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from agentchat.errors import ApplicationError, IdentityMissing, UpstreamUnavailable
from agentchat.identity.crypto import SecretUnreadable, secret_open, secret_seal
from agentchat.models import SupersetIdentity
from agentchat.superset.auth import ApiKey, ServiceLogin, SignIn, SupersetAuth, TokenPair, password_sign_in, whoami
from policies import services as policy
from policies.models import AuthMode, Environment, RoleMapping
from policies.snapshot import policy_snapshot

log = logging.getLogger(__name__)
Kind = SupersetIdentity.Kind
State = SupersetIdentity.State


class ApiKeyRefused(ApplicationError):
    """The API key was not accepted by that Superset (``GET /api/v1/me/`` answered 401/403)."""

    code = "api_key_refused"


def _jwt_expiry(token: str) -> datetime | None:
    """Return the ``exp`` of a JWT as an aware datetime (read, not verified: Superset verifies it), or None."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return datetime.fromtimestamp(int(claims["exp"]), tz=UTC)
    except (IndexError, KeyError, ValueError, TypeError, binascii.Error):
        return None


def _key_hint(key: str) -> str:
    """What of an API key may be shown: its prefix and last four characters (``sst_…AbCd``)."""
    return f"{key[:4]}…{key[-4:]}" if len(key) > 12 else "…"


def identity_store(
    *,
    user: User,
    environment: Environment,
    kind: str,
    secret: dict[str, Any],
    me: dict[str, Any],
    hint: str = "",
    expires_at: datetime | None = None,
) -> SupersetIdentity:
    """Create or replace ``user``'s identity of ``kind`` in ``environment``, active, with ``secret`` encrypted.

    Args:
        secret: ``{"access", "refresh"}`` (password) or ``{"key"}`` (api_key); stored only as a Fernet token.
        me: Superset's ``/api/v1/me/`` result (``id``, ``username``).
    """
    identity, _ = SupersetIdentity.objects.update_or_create(
        user=user,
        environment=environment,
        kind=kind,
        defaults={
            "secret": secret_seal(secret),
            "hint": hint,
            "superset_user_id": me.get("id"),
            "superset_username": str(me.get("username") or ""),
            "state": State.ACTIVE,
            "expires_at": expires_at,
        },
    )
    return identity


def identities_sign_in(*, username: str, password: str) -> tuple[dict[str, SignIn], list[str]]:
    """Sign ``username`` in to every active password-mode environment with the same credentials.

    Returns:
        ``({env_id: SignIn} of the environments that accepted them, [env_id of those that could not be reached]``);
        an environment that refuses the credentials is in neither.
    """
    accepted: dict[str, SignIn] = {}
    unreachable: list[str] = []
    for environment in Environment.objects.filter(is_active=True, auth_mode=AuthMode.PASSWORD):
        try:
            signed = password_sign_in(
                base_url=environment.superset_url,
                username=username,
                password=password,
                provider=environment.login_provider,
                timeout_s=settings.SUPERSET_LOGIN_TIMEOUT_S,
            )
        except UpstreamUnavailable as exc:
            log.warning("sign-in to %s failed: %s", environment.env_id, exc.detail)
            unreachable.append(environment.env_id)
            continue
        if signed is not None:
            accepted[environment.env_id] = signed
    return accepted, unreachable


def identities_keep(*, user: User, accepted: dict[str, SignIn]) -> None:
    """Store each accepted sign-in as ``user``'s password identity and apply the role mappings, in one transaction.

    Groups: every group a ``RoleMapping`` maps from one of the user's Superset roles is added, every other mapped
    group removed; groups no mapping names are left as they are (DESIGN §15).
    """
    environments = {env.env_id: env for env in Environment.objects.filter(env_id__in=list(accepted))}
    with transaction.atomic():
        for env_id, signed in accepted.items():
            identity_store(
                user=user,
                environment=environments[env_id],
                kind=Kind.PASSWORD,
                secret={"access": signed.access, "refresh": signed.refresh},
                me=signed.me,
                expires_at=_jwt_expiry(signed.refresh),
            )
        mappings = list(RoleMapping.objects.select_related("group"))
        if mappings:
            roles = {role for signed in accepted.values() for role in signed.roles}
            mapped = {m.group for m in mappings}
            wanted = {m.group for m in mappings if m.superset_role in roles}
            user.groups.remove(*(mapped - wanted))
            user.groups.add(*wanted)


def identity_add_api_key(*, user: User, env_id: str, key: str) -> SupersetIdentity:
    """Check ``key`` with one ``GET /api/v1/me/`` on ``env_id`` and store it as ``user``'s api_key identity.

    Raises:
        IdentityMissing: no active environment ``env_id``.
        ApiKeyRefused: Superset did not accept the key.
        UpstreamUnavailable: the instance cannot be reached.
    """
    environment = policy.environment_get(env_id=env_id)
    if environment is None:
        raise IdentityMissing(env=env_id)
    key = key.strip()
    me = whoami(base_url=environment.superset_url, bearer=key, timeout_s=settings.SUPERSET_LOGIN_TIMEOUT_S)
    if me is None:
        raise ApiKeyRefused(env_id)
    return identity_store(
        user=user, environment=environment, kind=Kind.API_KEY, secret={"key": key}, me=me, hint=_key_hint(key)
    )


def identity_remove(*, user: User, identity_id: int) -> bool:
    """Delete ``user``'s identity ``identity_id``; return whether one was deleted (another user's is not)."""
    deleted, _ = SupersetIdentity.objects.filter(pk=identity_id, user=user).delete()
    return deleted > 0


def identities_of(*, user: User) -> list[tuple[SupersetIdentity, bool]]:
    """Return ``user``'s identities with their environments (for the settings page; secrets stay sealed), each
    with whether it is the one ``acting_resolve`` takes in its environment (issue 30: a password identity and an
    API key in one environment both read «действует» without saying which one acts).

    Returns:
        ``[(identity, in_use)]`` in the database's order.
    """
    rows = list(SupersetIdentity.objects.filter(user=user).select_related("environment").order_by("pk"))
    acting: dict[int, int] = {}  # environment id → the identity acting there
    for row in sorted(rows, key=_acting_order):
        if row.state == State.ACTIVE and row.environment.auth_mode != AuthMode.SERVICE:
            acting.setdefault(row.environment_id, row.pk)
    chosen = set(acting.values())
    return [(row, row.pk in chosen) for row in rows]


def identity_of(*, user: User, identity_id: int) -> SupersetIdentity | None:
    """Return ``user``'s identity ``identity_id`` with its environment, or None (none, or another user's)."""
    return SupersetIdentity.objects.filter(pk=identity_id, user=user).select_related("environment").first()


def _acting_order(row: SupersetIdentity) -> bool:
    """``acting_resolve``'s order among one environment's active identities: a sign-in's tokens first."""
    return row.kind != Kind.PASSWORD


def identity_env_ids(*, user: User | None) -> set[str]:
    """Return the ids of the active environments where ``user`` can act: service mode, or an active identity.

    Kept per user in the policy snapshot (``policies.snapshot``, issue 17): a write to an identity's user,
    environment or state moves the policy version (agentchat migration 0009), so a turn reads no identity while
    none of the user's changed. Calls still resolve their identity when they run (``acting_resolve``)."""
    if user is None:
        return set()
    snapshot = policy_snapshot()  # no query while the policy tables and the identities are unchanged
    key = ("identity_env_ids", user.pk)
    if key not in snapshot.memo:
        snapshot.remember(key, frozenset(_identity_env_ids(user, snapshot.environments)))
    return set(snapshot.memo[key])


def _identity_env_ids(user: User, active: tuple[Environment, ...]) -> set[str]:
    service = {e.env_id for e in active if e.auth_mode == AuthMode.SERVICE}
    password = {e.pk: e.env_id for e in active if e.auth_mode == AuthMode.PASSWORD}
    if not password:
        return service
    own = SupersetIdentity.objects.filter(user=user, state=State.ACTIVE, environment_id__in=password).values_list(
        "environment_id", flat=True
    )
    return service | {password[pk] for pk in own}


@dataclass
class Acting:
    """Whom one environment's requests of a call act as (recorded in the call's audit row)."""

    env_id: str
    kind: str
    username: str
    identity_id: int | None = None
    secret: dict[str, Any] = field(default_factory=dict, repr=False)
    password: str = field(default="", repr=False)

    def audit(self) -> dict[str, Any]:
        """Return ``{"kind", "superset_username"}`` (never the secret)."""
        return {"kind": self.kind, "superset_username": self.username}


def acting_resolve(*, user: User | None, environment: Environment) -> Acting:
    """Return whom ``user``'s requests to ``environment`` act as: the service account (service mode) or their
    active identity (password mode: a sign-in's tokens first, else an API key); stamps its ``last_used_at``.

    Raises:
        IdentityMissing: password mode and ``user`` has no active identity there (none, expired, unreadable).
        CredentialsMissing: service mode without credentials (``policies.services.environment_credentials``).
    """
    if environment.auth_mode == AuthMode.SERVICE:
        credentials = policy.environment_credentials(environment=environment)
        return Acting(environment.env_id, "service", credentials.username, password=credentials.password)
    rows = SupersetIdentity.objects.filter(user=user, environment=environment, state=State.ACTIVE) if user else None
    for identity in sorted(rows or [], key=_acting_order):
        try:
            secret = secret_open(identity.secret)
        except SecretUnreadable:
            log.warning("identity %s of user %s cannot be decrypted", identity.pk, identity.user_id)
            continue
        SupersetIdentity.objects.filter(pk=identity.pk).update(last_used_at=timezone.now())
        return Acting(environment.env_id, identity.kind, identity.superset_username, identity.pk, secret)
    raise IdentityMissing(env=environment.env_id)


def identity_expire(*, identity_id: int) -> None:
    """Mark identity ``identity_id`` expired (Superset refused its refresh token or key)."""
    SupersetIdentity.objects.filter(pk=identity_id).update(state=State.EXPIRED, updated_at=timezone.now())


def identity_save_access(*, identity_id: int, access: str) -> None:
    """Replace the access token of password identity ``identity_id`` after a refresh (refresh token kept)."""
    identity = SupersetIdentity.objects.get(pk=identity_id)
    secret = secret_open(identity.secret)
    SupersetIdentity.objects.filter(pk=identity_id).update(secret=secret_seal({**secret, "access": access}))


def acting_auth(acting: Acting) -> SupersetAuth:
    """Return the ``SupersetAuth`` of ``acting``: its tokens, its key or the service login; a refresh is stored and
    a refusal expires the identity (DESIGN §15)."""
    if acting.kind == "service":
        return ServiceLogin(acting.username, acting.password)
    identity_id = acting.identity_id or 0

    async def expired() -> None:
        await sync_to_async(identity_expire)(identity_id=identity_id)

    if acting.kind == Kind.API_KEY:
        return ApiKey(acting.username, acting.secret["key"], expired)

    async def refreshed(access: str) -> None:
        await sync_to_async(identity_save_access)(identity_id=identity_id, access=access)

    return TokenPair(acting.username, acting.secret["access"], acting.secret["refresh"], refreshed, expired)
