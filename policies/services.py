"""Pure policy look-ups and the audit writer (DESIGN §4, §5 steps 3 and 6).

The look-ups read the process's snapshot of the policy tables (``policies.snapshot``): one row (the policy version)
per unit of work while nothing changed, the tables again after any change, so an admin change applies to the next
message in every process.
"""

import ipaddress
import os
from collections.abc import Collection
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Required, TypedDict, Unpack
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.db import transaction
from django.utils.module_loading import import_string

from policies.models import AuditEvent, ContextToolAffinity, Environment, RiskRule, Tool, ToolPermission
from policies.snapshot import PolicySnapshot, policy_snapshot, verdict_key
from policies.statements import rows_insert

AUDIT_PAYLOAD_MAX_CHARS = 4096


class CredentialsMissing(Exception):
    """The Superset credentials of an environment are not configured in the process environment."""


@dataclass(frozen=True)
class SupersetCredentials:
    """Login of one environment: ``username``/``password`` for ``POST /api/v1/security/login``."""

    username: str
    password: str


def user_roles(*, user: User | AnonymousUser) -> list[str]:
    """Return the role names (Django group names) of ``user``, sorted; empty for anonymous users (read once per
    policy version: a membership change bumps it)."""
    if not user.is_authenticated:
        return []
    return list(policy_snapshot().user_roles(user.pk))


class Refusal(StrEnum):
    """Why a tool is not offered or a call of it is refused (DESIGN §5 steps 3 and 6)."""

    UNKNOWN = "unknown_tool"  # not in the code registry (or not in the catalogue at all)
    DISABLED = "disabled"  # ``Tool.enabled`` is off
    ROLE = "role"  # none of the user's roles has a ``ToolPermission`` for it
    OBJECT_TYPE = "object_type"  # no ``ContextToolAffinity`` for the page's object type
    NEEDS_ENV = "needs_env"  # env-specific and the context names no environment
    NO_IDENTITY = "no_identity"  # env-specific and the user has no Superset identity there (DESIGN §15)
    NOT_OFFERED = "not_offered"  # permitted, but not in this turn's offered set


@dataclass(frozen=True)
class ToolVerdict:
    """The policy tables' answer for one catalogue row in one situation.

    Attributes:
        name / category / env_specific: the ``Tool`` row.
        roles: role names that may use it; object_types: object types whose pages offer it.
        refusals: why it is not offered (empty: offered as far as policy goes).
        description_ru / description_en: the admin's texts ('' = use the code's).
    """

    name: str
    category: str
    env_specific: bool
    roles: tuple[str, ...]
    object_types: tuple[str, ...]
    refusals: tuple[Refusal, ...]
    description_ru: str = ""
    description_en: str = ""

    @property
    def allowed(self) -> bool:
        """True when the policy tables offer the tool."""
        return not self.refusals


def tool_verdicts(*, roles: Collection[str], object_type: str | None, env_present: bool) -> list[ToolVerdict]:
    """Judge every catalogue row for a user with ``roles`` on a page of ``object_type`` (DESIGN §5 step 3).

    Policy part of the tool set: enabled ∩ role permission ∩ affinity(object_type) ∩ (env present or not
    env-specific). No object type → every tool the roles have (seed AGCTX-FR-005). From the policy snapshot
    (``policies.snapshot``: no query while nothing changed), so an admin change applies to the next message.

    Args:
        roles: role (Django group) names; only server-side roles may be passed here.
        object_type: ``dashboard|dataset|migration`` or None.
        env_present: whether the context names an environment.

    Returns:
        One verdict per ``Tool`` row, ordered by name. The caller intersects with the code registry.
    """
    snapshot = policy_snapshot()
    key = verdict_key(roles, object_type, env_present)
    if key not in snapshot.memo:
        snapshot.remember(key, tuple(_verdicts(snapshot, set(roles), object_type, env_present)))
    return list(snapshot.memo[key])


def _verdicts(snapshot: PolicySnapshot, wanted: set[str], object_type: str | None, env_present: bool) -> list:
    verdicts = []
    for tool in snapshot.tools:
        tool_roles = snapshot.roles_of.get(tool.name, ())
        object_types = snapshot.types_of.get(tool.name, ())
        refusals = []
        if not tool.enabled:
            refusals.append(Refusal.DISABLED)
        if not wanted.intersection(tool_roles):
            refusals.append(Refusal.ROLE)
        if object_type and object_type not in object_types:
            refusals.append(Refusal.OBJECT_TYPE)
        if tool.env_specific and not env_present:
            refusals.append(Refusal.NEEDS_ENV)
        verdicts.append(
            ToolVerdict(
                name=tool.name,
                category=tool.category,
                env_specific=tool.env_specific,
                roles=tool_roles,
                object_types=object_types,
                refusals=tuple(refusals),
                description_ru=tool.description_ru,
                description_en=tool.description_en,
            )
        )
    return verdicts


def tools_allowed(*, user: User, object_type: str | None, env_present: bool) -> list[Tool]:
    """Return the enabled tools that ``user`` may use on a page of ``object_type`` (DESIGN §5 step 3).

    Args:
        user: the server-side user; only their groups (read from the database now) count.
        object_type: ``dashboard|dataset|migration`` or None (no object: every tool the role has).
        env_present: whether the context names an environment; if not, env-specific tools are dropped.

    Returns:
        Tool rows ordered by name. The caller intersects them with the code registry.
    """
    verdicts = tool_verdicts(roles=user_roles(user=user), object_type=object_type, env_present=env_present)
    names = [v.name for v in verdicts if v.allowed]
    return list(Tool.objects.filter(name__in=names).order_by("name"))


def tool_refusal(*, user: User, tool_name: str) -> Refusal | None:
    """Return why ``user`` may not call ``tool_name`` now, or None when the tables permit it (AGTL-FR-005 b).

    Reads the user's current roles and the tool row from the database (never the prompt or the client).

    Returns:
        ``UNKNOWN`` (no catalogue row), ``DISABLED``, ``ROLE`` or None.
    """
    snapshot = policy_snapshot()
    tool = next((t for t in snapshot.tools if t.name == tool_name), None)
    if tool is None:
        return Refusal.UNKNOWN
    if not tool.enabled:
        return Refusal.DISABLED
    if not tool_permitted(user=user, tool_name=tool_name):
        return Refusal.ROLE
    return None


def tool_permitted(*, user: User, tool_name: str) -> bool:
    """Return True if ``tool_name`` exists, is enabled and one of ``user``'s roles may use it (AGTL-FR-005)."""
    snapshot = policy_snapshot()
    tool = next((t for t in snapshot.tools if t.name == tool_name), None)
    if tool is None or not tool.enabled or not user.is_authenticated:
        return False
    return bool(set(snapshot.user_roles(user.pk)) & set(snapshot.roles_of.get(tool_name, ())))


def tool_required_roles(*, tool_name: str) -> list[str]:
    """Return the role names that may use ``tool_name`` (empty for an unknown tool)."""
    return sorted(ToolPermission.objects.filter(tool__name=tool_name).values_list("group__name", flat=True))


def tools_registered() -> frozenset[str] | None:
    """Return the names registered in code, through the ``POLICIES_TOOL_REGISTRY`` setting; None if unset.

    The setting is the dotted path of a callable returning the registry (a mapping or iterable of names);
    ``policies`` never imports ``agentchat`` itself (DESIGN §2), the project wires them in settings.
    """
    path = getattr(settings, "POLICIES_TOOL_REGISTRY", "")
    if not path:
        return None
    return frozenset(import_string(path)())


def tool_title_of(name: str) -> str:
    """Return what people call the tool ``name`` (in the active language), through the ``POLICIES_TOOL_TITLE``
    setting (the dotted path of a ``(name) -> str`` callable, as ``tools_registered``); ``""`` if unset."""
    path = getattr(settings, "POLICIES_TOOL_TITLE", "")
    return str(import_string(path)(name)) if path else ""


def tool_catalogue_names() -> list[str]:
    """Return the names of every ``Tool`` row, ordered."""
    return list(Tool.objects.order_by("name").values_list("name", flat=True))


def tool_get(*, name: str) -> Tool | None:
    """Return the policy row of a tool, or None when it is not in the catalogue."""
    return Tool.objects.filter(name=name).first()


def affinity_object_types(*, tool_name: str) -> list[str]:
    """Return the object types whose pages offer ``tool_name``."""
    return sorted(ContextToolAffinity.objects.filter(tool__name=tool_name).values_list("object_type", flat=True))


def environments_active() -> list[Environment]:
    """Return active environments ordered by id (copies from the policy snapshot)."""
    return policy_snapshot().active_environments()


def environment_tiers() -> tuple[tuple[str, str], ...]:
    """``(env_id, tier)`` of every active environment, ordered by ``env_id``, from the policy snapshot (no query
    while nothing changed, no model copies)."""
    return policy_snapshot().active_tiers()


def environments_sharing_instance() -> list[tuple[Environment, Environment]]:
    """Active environments whose Superset URL an earlier active environment (lower pk: created first) already
    has, each with that first one: ``[(staging, ss-dev)]`` for the local demo, where staging points at ss-dev's
    instance. URLs are compared without a trailing slash, case-insensitively."""
    first: dict[str, Environment] = {}
    twins = []
    for environment in Environment.objects.filter(is_active=True).order_by("pk"):
        url = environment.superset_url.rstrip("/").casefold()
        if url in first:
            twins.append((environment, first[url]))
        else:
            first[url] = environment
    return twins


def environment_get(*, env_id: str) -> Environment | None:
    """Return the active environment ``env_id`` or None."""
    return Environment.objects.filter(env_id=env_id, is_active=True).first()


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def environment_credentials(*, environment: Environment) -> SupersetCredentials:
    """Read the Superset login of ``environment`` from ``<credentials_env>_USERNAME`` / ``_PASSWORD``.

    A local instance on loopback falls back to the local stack's service account, ``SUPERSET_SERVICE_USERNAME``
    (``agentchat_service``) / ``SUPERSET_ADMIN_PASSWORD`` (local demo only, DESIGN §13); any other instance without
    variables is a configuration error.

    Raises:
        CredentialsMissing: the variables are unset and the instance is not on loopback.
    """
    prefix = environment.credentials_env
    username = os.environ.get(f"{prefix}_USERNAME")
    password = os.environ.get(f"{prefix}_PASSWORD")
    if username and password:
        return SupersetCredentials(username, password)
    if _is_loopback(environment.superset_url):
        return SupersetCredentials(
            username or settings.SUPERSET_SERVICE_USERNAME, password or settings.SUPERSET_ADMIN_PASSWORD
        )
    raise CredentialsMissing(f"Set {prefix}_USERNAME and {prefix}_PASSWORD for environment {environment.env_id}")


def _capped(value: Any) -> Any:
    """Keep audit payloads bounded: a value whose repr exceeds the cap is stored as a truncated string."""
    text = repr(value)
    if len(text) <= AUDIT_PAYLOAD_MAX_CHARS:
        return value
    return {"truncated": True, "chars": len(text), "head": text[:AUDIT_PAYLOAD_MAX_CHARS]}


class AuditFields(TypedDict, total=False):
    """The fields of one audit row as ``audit_record`` / ``audit_build`` take them (DESIGN §11).

    ``event_type`` is required; ``actor`` is the Django user (anonymous or None is stored as no actor);
    ``args`` and each ``extra`` value are capped at 4096 characters; ``raw_chars``/``sent_chars`` in characters,
    ``duration_ms`` in ms.
    """

    event_type: Required[str]
    actor: AbstractBaseUser | AnonymousUser | None
    conversation_id: int | None
    tool: str
    env_id: str | None
    args: Any
    raw_chars: int | None
    sent_chars: int | None
    duration_ms: int | None
    outcome: str
    extra: dict | None


def audit_record(**fields: Unpack[AuditFields]) -> AuditEvent:
    """Append one ``AuditEvent`` built by ``audit_build`` from ``fields`` (``AuditFields``), by a fixed ``INSERT``
    (``policies.statements.rows_insert``; issue 17: every turn writes one).

    Returns:
        The saved event.
    """
    event = audit_build(**fields)
    rows_insert([event])
    return event


def audit_build(**fields: Unpack[AuditFields]) -> AuditEvent:
    """The unsaved ``AuditEvent`` of ``audit_record`` (same fields, same caps), for ``audit_record_many``."""
    actor = fields.get("actor")
    return AuditEvent(
        event_type=fields["event_type"],
        actor=actor if isinstance(actor, User) and actor.is_authenticated else None,
        conversation_id=fields.get("conversation_id"),
        tool=fields.get("tool") or "",
        env_id=fields.get("env_id") or "",
        args=_capped(fields.get("args")),
        raw_chars=fields.get("raw_chars"),
        sent_chars=fields.get("sent_chars"),
        duration_ms=fields.get("duration_ms"),
        outcome=fields.get("outcome", ""),
        extra_data={k: _capped(v) for k, v in (fields.get("extra") or {}).items()},
    )


def audit_record_many(events: list[AuditEvent]) -> None:
    """Insert unsaved events (``audit_build``) in one statement (append-only: ``bulk_create`` only inserts)."""
    AuditEvent.objects.bulk_create(events)


def tool_catalogue_sync(*, entries: list[dict[str, Any]]) -> dict[str, int]:
    """Mirror the code registry into ``Tool`` rows (DESIGN §4: rows are synced from the registry).

    Args:
        entries: ``[{"name", "category", "env_specific", "description_ru", "description_en"}]``.

    Returns:
        ``{"created": n, "updated": n}``. Behaviour fields (category, env_specific) follow the code; a
        description is filled only while the admin has left it empty; ``enabled``/``timeout_s`` are untouched.
    """
    created = updated = 0
    with transaction.atomic():  # one commit, not one per row; never a half-synced catalogue
        for entry in entries:
            tool, was_created = Tool.objects.get_or_create(
                name=entry["name"], defaults={k: v for k, v in entry.items() if k != "name"}
            )
            if was_created:
                created += 1
                continue
            changed = []
            for key in ("category", "env_specific"):
                if getattr(tool, key) != entry[key]:
                    setattr(tool, key, entry[key])
                    changed.append(key)
            for key in ("description_ru", "description_en"):
                if not getattr(tool, key) and entry[key]:
                    setattr(tool, key, entry[key])
                    changed.append(key)
            if changed:
                tool.save(update_fields=[*changed, "updated_at"])
                updated += 1
    return {"created": created, "updated": updated}


def risk_rule_for(*, category: str, tier: str | None) -> RiskRule:
    """Return the ``RiskRule`` of ``category`` × ``tier`` (``None`` → ``none``); DESIGN §9.

    A missing row (an admin deleted it) falls back to the strictest reading: dangerous, destructive, confirm.
    """
    tier = tier or RiskRule.TIER_NONE
    rule = policy_snapshot().risk_rule(category, tier)
    if rule is not None:
        return rule
    return RiskRule(
        category=category,
        tier=tier,
        risk_level=RiskRule.RiskLevel.DANGEROUS,
        tone=RiskRule.Tone.DESTRUCTIVE,
        requires_confirmation=True,
        typed_confirmation=category == "dangerous",
        prompt_ru="Правило риска не настроено: подтвердите осознанно",
        prompt_en="No risk rule configured: confirm deliberately",
    )
