"""Keeps the ``policies.Tool`` rows in step with the code registry (on migrate and by ``sync_tools``)."""

from policies import services as policy

from .tools.registry import registry


def sync_tool_catalogue() -> dict[str, int]:
    """Push every registered tool's name, category, env flag and descriptions into ``policies``.

    Returns:
        ``{"created": n, "updated": n}`` as ``policies.services.tool_catalogue_sync``.
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
    return policy.tool_catalogue_sync(entries=entries)


def on_post_migrate(sender, **kwargs) -> None:
    """``post_migrate`` receiver: sync once the policies tables exist."""
    if sender.name == "agentchat":
        sync_tool_catalogue()
