"""Pure policy look-ups and the audit writer (DESIGN §4, §5 steps 3 and 6).

Every function reads the database on each call, so an admin change applies to the next message.
"""

import ipaddress
import os
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from .models import AuditEvent, ContextToolAffinity, Environment, RiskRule, Tool, ToolPermission

AUDIT_PAYLOAD_MAX_CHARS = 4096


class CredentialsMissing(Exception):
    """The Superset credentials of an environment are not configured in the process environment."""


@dataclass(frozen=True)
class SupersetCredentials:
    """Login of one environment: ``username``/``password`` for ``POST /api/v1/security/login``."""

    username: str
    password: str


def user_roles(*, user: AbstractBaseUser | AnonymousUser) -> list[str]:
    """Return the role names (Django group names) of ``user``; empty for anonymous users."""
    if not user.is_authenticated:
        return []
    return sorted(user.groups.values_list("name", flat=True))


def tools_allowed(*, user: AbstractBaseUser, object_type: str | None, env_present: bool) -> list[Tool]:
    """Return the enabled tools that ``user`` may use on a page of ``object_type`` (DESIGN §5 step 3).

    Args:
        user: the server-side user; only their groups count.
        object_type: ``dashboard|dataset|migration`` or None (no object: every tool the role has).
        env_present: whether the context names an environment; if not, env-specific tools are dropped.

    Returns:
        Tool rows ordered by name. The caller intersects them with the code registry.
    """
    qs = Tool.objects.filter(enabled=True, permissions__group__user=user)
    if object_type:
        qs = qs.filter(affinities__object_type=object_type)
    if not env_present:
        qs = qs.filter(env_specific=False)
    return list(qs.distinct().order_by("name"))


def tool_permitted(*, user: AbstractBaseUser, tool_name: str) -> bool:
    """Return True if ``tool_name`` exists, is enabled and one of ``user``'s roles may use it (AGTL-FR-005)."""
    return ToolPermission.objects.filter(tool__name=tool_name, tool__enabled=True, group__user=user).exists()


def tool_required_roles(*, tool_name: str) -> list[str]:
    """Return the role names that may use ``tool_name`` (empty for an unknown tool)."""
    return sorted(ToolPermission.objects.filter(tool__name=tool_name).values_list("group__name", flat=True))


def tool_get(*, name: str) -> Tool | None:
    """Return the policy row of a tool, or None when it is not in the catalogue."""
    return Tool.objects.filter(name=name).first()


def affinity_object_types(*, tool_name: str) -> list[str]:
    """Return the object types whose pages offer ``tool_name``."""
    return sorted(ContextToolAffinity.objects.filter(tool__name=tool_name).values_list("object_type", flat=True))


def environments_active() -> list[Environment]:
    """Return active environments ordered by id."""
    return list(Environment.objects.filter(is_active=True))


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

    A local instance on loopback falls back to ``admin`` / ``SUPERSET_ADMIN_PASSWORD`` (local demo only,
    DESIGN §13); any other instance without variables is a configuration error.

    Raises:
        CredentialsMissing: the variables are unset and the instance is not on loopback.
    """
    prefix = environment.credentials_env
    username = os.environ.get(f"{prefix}_USERNAME")
    password = os.environ.get(f"{prefix}_PASSWORD")
    if username and password:
        return SupersetCredentials(username, password)
    if _is_loopback(environment.superset_url):
        return SupersetCredentials(username or "admin", password or settings.SUPERSET_ADMIN_PASSWORD)
    raise CredentialsMissing(f"Set {prefix}_USERNAME and {prefix}_PASSWORD for environment {environment.env_id}")


def _capped(value: Any) -> Any:
    """Keep audit payloads bounded: a value whose repr exceeds the cap is stored as a truncated string."""
    text = repr(value)
    if len(text) <= AUDIT_PAYLOAD_MAX_CHARS:
        return value
    return {"truncated": True, "chars": len(text), "head": text[:AUDIT_PAYLOAD_MAX_CHARS]}


def audit_record(
    *,
    event_type: str,
    actor: AbstractBaseUser | None = None,
    conversation_id: int | None = None,
    tool: str = "",
    env_id: str | None = "",
    args: Any = None,
    raw_chars: int | None = None,
    sent_chars: int | None = None,
    duration_ms: int | None = None,
    outcome: str = "",
    extra: dict | None = None,
) -> AuditEvent:
    """Append one ``AuditEvent``; ``args`` and ``extra`` values are capped at 4096 characters each.

    Returns:
        The saved event.
    """
    actor = actor if actor is not None and actor.is_authenticated else None
    return AuditEvent.objects.create(
        event_type=event_type,
        actor=actor,
        conversation_id=conversation_id,
        tool=tool or "",
        env_id=env_id or "",
        args=_capped(args),
        raw_chars=raw_chars,
        sent_chars=sent_chars,
        duration_ms=duration_ms,
        outcome=outcome,
        extra_data={k: _capped(v) for k, v in (extra or {}).items()},
    )


def tool_catalogue_sync(*, entries: list[dict[str, Any]]) -> dict[str, int]:
    """Mirror the code registry into ``Tool`` rows (DESIGN §4: rows are synced from the registry).

    Args:
        entries: ``[{"name", "category", "env_specific", "description_ru", "description_en"}]``.

    Returns:
        ``{"created": n, "updated": n}``. Behaviour fields (category, env_specific) follow the code; a
        description is filled only while the admin has left it empty; ``enabled``/``timeout_s`` are untouched.
    """
    created = updated = 0
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
    rule = RiskRule.objects.filter(category=category, tier=tier).first()
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
