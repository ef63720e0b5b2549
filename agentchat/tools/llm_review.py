"""LLM review tools: validation and documentation of a dashboard's metadata, as background jobs (DESIGN §8).

Both tools check that the dashboard exists, store a ``ValidationRun`` and enqueue its job (``agentchat.review.runs``);
they answer at once with the run and task ids. get_task_status follows the job; get_health_summary shows the
latest validation.
"""

from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from pydantic import Field

from agentchat.context.ids import ObjectId
from agentchat.models import ValidationRun
from agentchat.review.runs import charts_to_describe, dashboard_metadata, description_language, review_start
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.tools.superset import ENV_ID_FIELD


class ReviewArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    dashboard_id: ObjectId = Field(description="Numeric Superset id of the dashboard.")


class DocumentationArgs(ReviewArgs):
    language: Literal["ru", "en"] | None = Field(
        None, description="Language of the descriptions; default: the dashboard's."
    )


def _engine() -> str:
    return "llm" if settings.LLM_PROVIDER == "openai" else "rules"


async def _start(ctx: ToolContext, args: ReviewArgs, kind: str, params: dict | None = None) -> dict[str, Any]:
    client = await ctx.superset(args.env_id)
    detail = await client.get_json(f"/api/v1/dashboard/{args.dashboard_id}")  # 404 → clear error before queuing
    title = detail["result"].get("dashboard_title") or ""
    run = await sync_to_async(review_start)(
        kind=kind,
        env_id=args.env_id,
        dashboard_id=args.dashboard_id,
        dashboard_title=title,
        user=ctx.user,
        conversation_id=ctx.conversation_id,
        language=ctx.language,
        params=params,
    )
    return {
        "env_id": args.env_id,
        "dashboard_id": args.dashboard_id,
        "title": title,
        "kind": kind,
        "run_id": run.pk,
        "task_id": run.task_id,
        "status": run.status,
        "engine": _engine(),
    }


async def validation_impact(ctx: ToolContext, args: ReviewArgs) -> dict[str, Any]:
    """Impact of run_llm_validation: a report on the dashboard (named as Superset has it) is stored; nothing in
    Superset changes.

    Raises:
        UpstreamError: the dashboard does not exist (404).
    """
    client = await ctx.superset(args.env_id)
    detail = await client.get_json(f"/api/v1/dashboard/{args.dashboard_id}")
    title = detail["result"].get("dashboard_title") or f"#{args.dashboard_id}"
    with translation.override(ctx.language):
        summary = _("A review report of dashboard “%(title)s” will be stored; nothing in Superset changes.") % {
            "title": title
        }
    return {
        "summary": summary,
        "objects": [{"type": "validation_run", "name": title, "action": "add"}],
        "counts": {"add": 1},
    }


@assistant_tool(
    name="run_llm_validation",
    category="write",
    env_specific=True,
    args=ReviewArgs,
    description_ru=(
        "Запускает в фоне проверку метаданных дашборда языковой моделью (в офлайн-режиме — по правилам): графики "
        "без описаний, датасеты без владельцев, неиспользуемые фильтры, названия по умолчанию, повторы и смесь "
        "языков. Результат сохраняется и виден в сводке дашборда."
    ),
    description_en=(
        "Starts a background review of the dashboard's metadata (charts without descriptions, datasets without "
        "owners, unused filters, default names, duplicates, mixed languages); the result shows in its health "
        "summary."
    ),
    examples_ru=[
        "Проверь этот дашборд на ошибки",
        "Запусти валидацию дашборда",
        "Есть ли у дашборда графики без описания или датасеты без владельцев?",
        "Проверь названия графиков на дашборде",
    ],
    examples_en=[
        "Check this dashboard for problems",
        "Run a validation of the dashboard",
        "Does the dashboard have charts without descriptions or datasets without owners?",
        "Review the chart names on this dashboard",
    ],
    impact=validation_impact,
)
async def run_llm_validation(ctx: ToolContext, args: ReviewArgs) -> dict[str, Any]:
    """Queue a validation of the dashboard.

    Returns:
        ``{"env_id", "dashboard_id", "title", "kind": "validation", "run_id", "task_id", "status": "queued",
        "engine": "llm"|"rules"}``.

    Raises:
        UpstreamError: the dashboard does not exist (404).
    """
    return await _start(ctx, args, ValidationRun.Kind.VALIDATION)


async def documentation_impact(ctx: ToolContext, args: DocumentationArgs) -> dict[str, Any]:
    """Impact of run_llm_documentation: the charts (by name) whose empty description will be written.

    Returns:
        ``{"summary", "objects": [{"type": "chart", "name", "action": "modify"}], "counts"}``.
    """
    client = await ctx.superset(args.env_id)
    metadata = await dashboard_metadata(client, args.dashboard_id)
    charts = charts_to_describe(metadata)
    title = metadata["dashboard"]["title"]
    language = args.language or description_language(metadata, ctx.language)
    with translation.override(ctx.language):
        if charts:
            summary = ngettext(
                "Descriptions (%(language)s) will be written to %(count)d chart of dashboard “%(title)s”.",
                "Descriptions (%(language)s) will be written to %(count)d charts of dashboard “%(title)s”.",
                len(charts),
            ) % {"language": language, "count": len(charts), "title": title}
        else:
            summary = _("Every chart of dashboard “%(title)s” already has a description — nothing will change.") % {
                "title": title
            }
    return {
        "summary": summary,
        "objects": [{"type": "chart", "name": c.get("name"), "action": "modify"} for c in charts],
        "counts": {"modify": len(charts)},
    }


@assistant_tool(
    name="run_llm_documentation",
    category="write",
    env_specific=True,
    args=DocumentationArgs,
    description_ru=(
        "Запускает в фоне документирование дашборда: языковая модель (в офлайн-режиме — шаблоны по типу графика, "
        "датасету и метрикам) пишет описания графикам, у которых их нет, и сохраняет их в Superset."
    ),
    description_en=(
        "Starts a background task that writes descriptions for the dashboard's charts that have none and saves "
        "them in Superset."
    ),
    examples_ru=[
        "Добавь описания к графикам дашборда",
        "Сгенерируй документацию для этого дашборда",
        "Заполни пустые описания графиков",
    ],
    examples_en=[
        "Add descriptions to the dashboard's charts",
        "Generate documentation for this dashboard",
        "Fill in the empty chart descriptions",
    ],
    impact=documentation_impact,
)
async def run_llm_documentation(ctx: ToolContext, args: DocumentationArgs) -> dict[str, Any]:
    """Queue the documentation of the dashboard (chart descriptions written with PUT /api/v1/chart/<id>).

    Returns:
        ``{"env_id", "dashboard_id", "title", "kind": "documentation", "run_id", "task_id", "status": "queued",
        "engine"}``.

    Raises:
        UpstreamError: the dashboard does not exist (404).
    """
    return await _start(ctx, args, ValidationRun.Kind.DOCUMENTATION, {"description_language": args.language})
