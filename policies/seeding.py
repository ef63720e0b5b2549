"""Apply the default policy rows (``policies.defaults``, DESIGN §8) to a model registry.

Used by the data migration (historical models) and by tests whose transactional flush removed the rows.
Idempotent: existing rows are kept as they are.
"""

from collections.abc import Callable, Collection
from typing import Any

from django.apps.registry import Apps

from policies.defaults import ENVIRONMENTS, RISK_RULES, ROLES, TOOLS


def seed_default_policies(apps: Apps, tools: Collection[str] | None = None) -> None:
    """Create missing roles, tool rows, role permissions, affinities and environments.

    Args:
        apps: a Django app registry (``django.apps.apps`` or the migration's historical ``apps``).
        tools: seed only these tools of ``TOOLS`` (a data migration adding a tool later), so the permissions and
            affinities an admin removed from the others, and the environments, are not brought back; None: every
            tool and the environments.
    """
    group_model = apps.get_model("auth", "Group")
    tool_model = apps.get_model("policies", "Tool")
    permission_model = apps.get_model("policies", "ToolPermission")
    affinity_model = apps.get_model("policies", "ContextToolAffinity")
    environment_model = apps.get_model("policies", "Environment")

    groups = {name: group_model.objects.get_or_create(name=name)[0] for name in ROLES}
    for name, (category, env_specific, affinities, roles) in TOOLS.items():
        if tools is not None and name not in tools:
            continue
        tool, _ = tool_model.objects.get_or_create(
            name=name, defaults={"category": category, "env_specific": env_specific}
        )
        for role in roles:
            permission_model.objects.get_or_create(group=groups[role], tool=tool)
        for object_type in affinities:
            affinity_model.objects.get_or_create(object_type=object_type, tool=tool)
    for env_id, (name, tier, url, credentials_env) in ENVIRONMENTS.items() if tools is None else ():
        environment_model.objects.get_or_create(
            env_id=env_id,
            defaults={"name": name, "tier": tier, "superset_url": url, "credentials_env": credentials_env},
        )


def tools_seeder(*names: str) -> Callable[[Apps, Any], None]:
    """The ``RunPython`` function of a data migration that adds the tools ``names`` of ``TOOLS`` (their rows,
    permissions and affinities; ``seed_default_policies`` with ``tools``)."""

    def seed(apps: Apps, schema_editor: Any) -> None:
        seed_default_policies(apps, tools=names)

    return seed


def seed_risk_rules(apps: Apps) -> None:
    """Create the missing ``RiskRule`` rows of DESIGN §9 (existing rows are kept)."""
    rule_model = apps.get_model("policies", "RiskRule")
    for (category, tier), (risk, tone, confirm, typed, prompt_ru, prompt_en) in RISK_RULES.items():
        rule_model.objects.get_or_create(
            category=category,
            tier=tier,
            defaults={
                "risk_level": risk,
                "tone": tone,
                "requires_confirmation": confirm,
                "typed_confirmation": typed,
                "prompt_ru": prompt_ru,
                "prompt_en": prompt_en,
            },
        )
