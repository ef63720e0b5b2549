"""Keeps the ``policies.Tool`` rows in step with the code registry (on migrate and by ``sync_tools``).

Rows are never deleted: a row whose tool is not (or no longer, or not yet) registered keeps its policy and is
simply never offered (``toolset``); a newly registered tool gets a row with no roles and no object types.
"""

from typing import Any

from django.apps import AppConfig

from agentchat.runtime.registry import registry
from policies import services as policy


def sync_tool_catalogue() -> dict[str, Any]:
    """Push every registered tool's name, category, env flag and descriptions into ``policies``.

    Returns:
        ``{"created": n, "updated": n, "not_registered": [name, ...]}``: the counts of
        ``policies.services.tool_catalogue_sync`` and the catalogue rows that no registered tool backs.
    """
    entries = [
        {
            "name": spec.name,
            "category": spec.category,
            "env_specific": spec.env_specific,
            "description_ru": spec.description_ru,
            "description_en": spec.description_en,
        }
        for spec in registry().values()
    ]
    result: dict[str, Any] = dict(policy.tool_catalogue_sync(entries=entries))
    registered = {entry["name"] for entry in entries}
    result["not_registered"] = sorted(set(policy.tool_catalogue_names()) - registered)
    return result


def on_post_migrate(sender: AppConfig, **kwargs: Any) -> None:
    """``post_migrate`` receiver: sync once the policies tables exist."""
    if sender.name == "agentchat":
        sync_tool_catalogue()
