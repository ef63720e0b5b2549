"""Tools about the agent itself: what it can do here and which environments exist."""

from typing import Any

from asgiref.sync import sync_to_async
from django.utils import translation
from django.utils.translation import pgettext_lazy

from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from policies import services as policy
from policies.models import Environment

CATEGORY_TITLES = {
    "read": pgettext_lazy("tool category", "Read"),
    "write": pgettext_lazy("tool category", "Changes (with confirmation)"),
    "dangerous": pgettext_lazy("tool category", "Dangerous operations (with confirmation)"),
}


class NoArgs(ToolArgs):
    pass


@assistant_tool(
    name="show_capabilities",
    category="read",
    env_specific=False,
    args=NoArgs,
    description_ru="Показывает, что агент может сделать для пользователя здесь, по категориям.",
    description_en=(
        'Lists the agent\'s own tools. Only for "what can you do?"; never to describe a dashboard or dataset.'
    ),
    examples_ru=["Что ты умеешь?", "Чем ты можешь помочь?", "Какие у тебя есть инструменты?"],
    examples_en=["What can you do?", "How can you help me?", "Which tools do you have?"],
)
async def show_capabilities(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    """List the tools the policies allow this user on this page (``ctx.toolset``, given by the turn), by category,
    in the user's language.

    Returns:
        ``{"language", "object_type", "env_id", "categories": {category: {"title", "tools": [{"name",
        "description"}]}}}``.
    """
    specs = ctx.toolset
    categories: dict[str, Any] = {}
    for spec in specs:
        if spec.category not in categories:
            with translation.override(ctx.language):
                categories[spec.category] = {"title": str(CATEGORY_TITLES[spec.category]), "tools": []}
        group = categories[spec.category]
        group["tools"].append({"name": spec.name, "description": spec.description(ctx.language)})
    context = ctx.ui_context or {}
    return {
        "language": ctx.language,
        "object_type": context.get("objectType"),
        "env_id": context.get("envId"),
        "categories": categories,
    }


@assistant_tool(
    name="list_environments",
    category="read",
    env_specific=False,
    args=NoArgs,
    description_ru="Перечисляет активные окружения Superset с их уровнем (dev, staging, prod).",
    description_en="Lists the active Superset environments with their tier (dev, staging, prod).",
    examples_ru=["Какие окружения есть?", "Где у нас прод?", "Перечисли окружения Superset"],
    examples_en=["Which environments are there?", "Which one is production?", "List the Superset environments"],
)
async def list_environments(ctx: ToolContext, args: NoArgs) -> dict[str, Any]:
    """Return ``{"environments": [{"env_id", "name", "tier", "superset_url"}], "switched_off": [env_id]}``: the
    active environments, and the ids of those an administrator switched off (no tool works there)."""
    rows = await sync_to_async(policy.environments_active)()
    # outside the policy snapshot, which holds the active ones only
    off = [
        env_id
        async for env_id in Environment.objects.filter(is_active=False)
        .order_by("env_id")
        .values_list("env_id", flat=True)
    ]
    return {
        "environments": [
            {"env_id": e.env_id, "name": e.name, "tier": e.tier, "superset_url": e.superset_url} for e in rows
        ],
        "switched_off": off,
    }
