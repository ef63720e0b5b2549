"""execute_migration: deploy a set of dashboards between environments as a background job (DESIGN §8).

The tool checks the dashboards exist, starts a ``TaskRecord`` + django-tasks job and returns its id at once;
the job deploys the dashboards one by one with ``deploy_apply`` (the deploy_dashboard path), reporting
progress per dashboard. A dashboard that fails does not stop the others; the job then ends ``failed`` with the
per-dashboard outcome kept in its result.
"""

from typing import Any

from asgiref.sync import sync_to_async
from django.utils import translation
from django.utils.translation import gettext as _
from django_tasks import task

from agentchat.errors import ToolError
from agentchat.models import Migration, TaskRecord
from agentchat.runtime import plans
from agentchat.runtime.background import Progress, task_start, tracked
from agentchat.runtime.context import ToolContext
from agentchat.runtime.jobs import job_context
from agentchat.runtime.registry import assistant_tool
from agentchat.superset.transfer import dashboards_require, instances_distinct
from agentchat.tools.deploy import deploy_apply
from agentchat.tools.migration_impact import (
    REMOVE_DETACHED_FIELD,
    MigrationArgs,
    migration_impact,
    migration_target,
    owners_checked,
)


class MigrationFailed(RuntimeError):
    """Some dashboards of a migration failed (the message names them; the result keeps the details)."""


@task()
async def migration_task(record_id: int) -> dict[str, Any]:
    """django-tasks body of execute_migration: runs ``_migrate`` under ``tracked``; a saved plan's status
    follows the job's end (``done``/``failed``) however it ends."""
    try:
        return await tracked(record_id, _migrate)
    finally:
        await sync_to_async(plans.migration_run_finished)(record_id=record_id)


async def _migrate(record: TaskRecord, progress: Progress) -> dict[str, Any]:
    params = record.params
    async with job_context(record) as ctx:
        source = await ctx.superset(params["source_env_id"])
        target = await ctx.superset(params["target_env_id"])
        rows = await dashboards_require(source, [int(i) for i in params["dashboard_ids"]])
        total = len(rows)
        deployed: list[dict[str, Any]] = []
        failed: list[dict[str, Any]] = []
        for index, row in enumerate(rows, 1):
            title = row.get("dashboard_title")
            await progress(int((index - 1) * 100 / total), f"{index}/{total}: «{title}» → {target.env_id}")
            try:
                done = await deploy_apply(
                    source=source,
                    target=target,
                    dashboard_ids=[row["id"]],
                    database_names=params.get("database_names") or None,
                    user_id=record.user_id,
                    tool="execute_migration",
                    remove_detached=bool(params.get("remove_detached")),
                )
            except ToolError as exc:
                failed.append({"id": row["id"], "title": title, "error": exc.text(ctx.language)})
                with translation.override(ctx.language):
                    line = _("%(index)d/%(total)d: “%(title)s” — failed") % {
                        "index": index,
                        "total": total,
                        "title": title,
                    }
                await progress(int(index * 100 / total), line)
                continue
            deployed.append(
                {
                    "id": row["id"],
                    "title": title,
                    "target": done["dashboards"][0],
                    "counts": done["counts"],
                    "copy": done["copy"],
                }
            )
            # What is done so far stays on the record: a killed worker's run shows it (runtime.background).
            so_far = {"total": total, "deployed": deployed, "failed": failed}
            await TaskRecord.objects.filter(pk=record.pk).aupdate(result=so_far)
            await progress(int(index * 100 / total), f"{index}/{total}: «{title}» ✓")
    result = {
        "migration_id": params.get("migration_id"),
        "source_env_id": source.env_id,
        "target_env_id": target.env_id,
        "total": total,
        "deployed": deployed,
        "failed": failed,
    }
    if failed:
        await TaskRecord.objects.filter(pk=record.pk).aupdate(result=result)
        names = ", ".join(f"«{f['title']}»: {f['error']}" for f in failed)
        raise MigrationFailed(f"{len(deployed)}/{total} deployed; failed: {names}")
    return result


class ExecuteMigrationArgs(MigrationArgs):
    remove_detached: bool = REMOVE_DETACHED_FIELD


async def execution_impact(ctx: ToolContext, args: ExecuteMigrationArgs) -> dict[str, Any]:
    """Impact look-up of execute_migration's card: a saved plan that is running is refused before any card
    (``MigrationAlreadyRunning``, told where the running one is); else ``migration_impact``."""
    migration_id = args.migration_id
    if migration_id is None and args.migration_name:
        migration_id = (await sync_to_async(plans.migration_named)(name=args.migration_name)).pk
    if migration_id is not None:
        await sync_to_async(plans.migration_check_free)(migration_id=migration_id)
    return await owners_checked(ctx, await migration_impact(ctx, args))


@assistant_tool(
    name="execute_migration",
    category="dangerous",
    env_specific=True,
    args=ExecuteMigrationArgs,
    description_ru=(
        "Переносит набор дашбордов из одного окружения в другое (например, из ss-dev в prod) фоновой задачей: "
        "каждый дашборд экспортируется и импортируется с перезаписью, базы данных сопоставляются по имени. "
        "Сразу возвращает номер задачи; ход выполнения показывает get_task_status."
    ),
    description_en=(
        "Migrates dashboards to another environment (e.g. prod), overwriting there, as a background task; "
        "returns its task id."
    ),
    examples_ru=[
        "Перенеси дашборды 1 и 2 из ss-dev в prod",
        "Запусти миграцию этих дашбордов на прод",
        "Мигрируй все отчёты по энергетике в staging",
        "Выполни миграцию дашбордов из dev в продакшен",
    ],
    examples_en=[
        "Migrate dashboards 1 and 2 from ss-dev to prod",
        "Run the migration of these dashboards to production",
        "Move all energy reports to staging",
        "Execute the dashboard migration from dev to prod",
    ],
    impact=execution_impact,
)
async def execute_migration(ctx: ToolContext, args: ExecuteMigrationArgs) -> dict[str, Any]:
    """Start the migration job of ``dashboard_ids`` from ``source_env_id`` to ``target_env_id``, or of the saved
    plan ``migration_id`` (its dashboards, environments and database mapping; the plan becomes ``running``).

    Returns:
        ``{"task_id", "kind": "migration", "state": "queued", "source_env_id", "target_env_id",
        "dashboards": [titles], "status_url"}`` (+ ``"migration": {"id", "name", "url"}`` for a saved plan) —
        at once; the job runs in a ``db_worker``.

    Raises:
        TransferError: a dashboard id does not exist in the source (nothing started).
        InvalidArguments: an unknown environment, or a plan that moves an environment onto itself.
        MigrationAlreadyRunning: the saved plan has a run in progress (the message says where).
    """
    plan = await migration_target(args)
    source = await ctx.superset(plan.source_env_id)
    instances_distinct(source, await ctx.superset(plan.target_env_id))
    rows = await dashboards_require(source, plan.dashboard_ids)
    migration_id = plan.migration.pk if plan.migration is not None else None
    if migration_id is not None:
        await sync_to_async(plans.migration_take)(migration_id=migration_id)
    try:
        record = await sync_to_async(task_start)(
            task=migration_task,
            kind="migration",
            user=ctx.user,
            env_id=plan.target_env_id,
            conversation_id=ctx.conversation_id,
            params={
                "dashboard_ids": [row["id"] for row in rows],
                "source_env_id": plan.source_env_id,
                "target_env_id": plan.target_env_id,
                "language": ctx.language,
                "migration_id": migration_id,
                "database_names": plan.database_names,
                "remove_detached": args.remove_detached,
            },
        )
    except Exception:
        if migration_id is not None:  # nothing queued: the plan is free again
            await sync_to_async(plans.migration_release)(migration_id=migration_id, status=Migration.Status.PREVIEWED)
        raise
    result: dict[str, Any] = {
        "task_id": record.pk,
        "kind": "migration",
        "state": record.state,
        "source_env_id": plan.source_env_id,
        "target_env_id": plan.target_env_id,
        "dashboards": [row.get("dashboard_title") for row in rows],
        "source_dashboard_ids": [row["id"] for row in rows],
        "status_url": f"/api/agent/tasks/{record.pk}/",
    }
    if plan.migration is not None:
        migration_id = plan.migration.pk
        await sync_to_async(plans.migration_run_added)(migration_id=migration_id, record=record)
        result["migration"] = {
            "id": migration_id,
            "name": plan.migration.name,
            "url": plans.migration_url(migration_id),
        }
    return result
