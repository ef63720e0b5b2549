"""run_backup and list_backups: zips of every dashboard export of an environment (DESIGN §8).

run_backup starts a background job that lists the environment's dashboards, exports them in chunks (progress
per chunk), merges the exports into one importable zip ``BACKUP_DIR/<env_id>/<timestamp>.zip`` and records a
``Backup`` row (size, sha256, dashboards). list_backups reads those rows.
"""

import hashlib
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import translation
from django.utils.translation import ngettext
from django_tasks import task
from pydantic import Field

from agentchat.errors import InvalidArguments
from agentchat.models import Backup, TaskRecord
from agentchat.runtime.background import Progress, task_start, tracked
from agentchat.runtime.context import ToolContext
from agentchat.runtime.jobs import job_context
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.bundle import zip_merge
from agentchat.superset.transfer import dashboards_all, dashboards_export_present
from agentchat.tools.superset import ENV_ID_FIELD
from policies import services as policy

EXPORT_CHUNK = 20  # dashboards per export request
IMPACT_NAMES_MAX = 50


class BackupArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD


class ListBackupsArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    limit: int = Field(20, ge=1, le=100, description="Maximum number of backups returned, newest first.")


def backup_file_write(*, env_id: str, data: bytes, record_id: int) -> Path:
    """Write ``data`` to a new file ``BACKUP_DIR/<env_id>/<UTC timestamp>.zip`` (atomically, never overwriting).

    Returns:
        The absolute path written.
    """
    folder = Path(settings.BACKUP_DIR).resolve() / env_id
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = folder / f"{stamp}.zip"
    if path.exists():
        path = folder / f"{stamp}-{record_id}.zip"
    partial = path.with_suffix(".zip.part")
    partial.write_bytes(data)
    os.replace(partial, path)
    return path


def backup_record(
    *,
    env_id: str,
    path: Path,
    data: bytes,
    dashboards: list[dict[str, Any]],
    user_id: int | None,
    task: TaskRecord | None = None,
    kind: str = Backup.Kind.FULL,
    change: dict[str, Any] | None = None,
) -> Backup:
    """Create the ``Backup`` row of a written zip: size and sha256 of ``data``, ``created_by`` ``user_id``, the
    background job ``task`` (run_backup) or the ``change`` a ``pre_change`` copy was made for (``tools.copies``)."""
    return Backup.objects.create(
        kind=kind,
        env_id=env_id,
        path=str(path),
        size_bytes=len(data),
        dashboard_count=len(dashboards),
        sha256=hashlib.sha256(data).hexdigest(),
        dashboards=dashboards,
        change=change or {},
        created_by_id=user_id,
        task=task,
    )


def backups_list(*, env_id: str, limit: int = 20) -> list[dict[str, Any]]:
    """Return the newest ``limit`` backups of ``env_id``.

    Returns:
        ``[{"id", "created_at" (ISO), "created_by" (username or None), "size_bytes", "dashboard_count", "file",
        "sha256", "task_id", "file_present", "kind" (``full``/``pre_change``), "change": {"tool", "source_env_id",
        "dashboards"} (a copy made before a change: which write it was made for; ``{}`` for a full backup)}]``,
        newest first.
    """
    rows = Backup.objects.filter(env_id=env_id).select_related("created_by")[:limit]
    return [
        {
            "id": b.pk,
            "created_at": b.created_at.isoformat(),
            "created_by": b.created_by.get_username() if b.created_by else None,
            "size_bytes": b.size_bytes,
            "dashboard_count": b.dashboard_count,
            "file": Path(b.path).name,  # the server path stays on the server
            "sha256": b.sha256,
            "task_id": b.task_id,
            "file_present": os.path.isfile(b.path),
            "kind": b.kind,
            "change": {k: b.change[k] for k in ("tool", "source_env_id", "dashboards", "rolls_back") if k in b.change},
        }
        for b in rows
    ]


@task()
async def backup_task(record_id: int) -> dict[str, Any]:
    """django-tasks body of run_backup: runs ``_backup`` under ``tracked``."""
    return await tracked(record_id, _backup)


async def _backup(record: TaskRecord, progress: Progress) -> dict[str, Any]:
    async with job_context(record) as ctx:
        client = await ctx.superset(record.env_id)
        rows = {row["id"]: row for row in await dashboards_all(client)}
        ids = sorted(rows)
        await progress(5, f"0/{len(ids)}")
        parts, exported = [], []
        for start in range(0, len(ids), EXPORT_CHUNK):
            data, present = await dashboards_export_present(client, ids[start : start + EXPORT_CHUNK])
            if data is not None:
                parts.append(data)
                exported.extend(present)
            done = min(start + EXPORT_CHUNK, len(ids))
            await progress(5 + int(90 * done / max(len(ids), 1)), f"{done}/{len(ids)}")
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    data, merged = zip_merge(parts, root=f"backup_{record.env_id}_{stamp}")
    in_zip = {str(c.get("uuid")) for c in merged.of("dashboards").values()}
    dashboards = [
        {"id": i, "title": rows[i].get("dashboard_title"), "slug": rows[i].get("slug"), "uuid": rows[i].get("uuid")}
        for i in exported
        if rows[i].get("uuid") in in_zip
    ]
    path = await sync_to_async(backup_file_write)(env_id=record.env_id, data=data, record_id=record.pk)
    backup = await sync_to_async(backup_record)(
        env_id=record.env_id, path=path, data=data, dashboards=dashboards, user_id=record.user_id, task=record
    )
    return {
        "backup_id": backup.pk,
        "env_id": record.env_id,
        "file": Path(backup.path).name,
        "size_bytes": backup.size_bytes,
        "sha256": backup.sha256,
        "dashboard_count": backup.dashboard_count,
        "dashboards": [d["title"] for d in dashboards],
    }


async def backup_impact(ctx: ToolContext, args: BackupArgs) -> dict[str, Any]:
    """Impact look-up of run_backup: how many (and which) dashboards the backup covers; Superset is only read."""
    client = await ctx.superset(args.env_id)
    rows = await dashboards_all(client)
    n = len(rows)
    with translation.override(ctx.language):
        summary = ngettext(
            "The backup of %(env)s covers %(count)d dashboard. Superset is not changed.",
            "The backup of %(env)s covers %(count)d dashboards. Superset is not changed.",
            n,
        ) % {"env": args.env_id, "count": n}
    return {
        "summary": summary,
        "objects": [
            {"type": "dashboard", "name": row.get("dashboard_title"), "action": "backup"}
            for row in rows[:IMPACT_NAMES_MAX]
        ],
        "counts": {"dashboard": {"backup": n}},
        "truncated": n > IMPACT_NAMES_MAX,
    }


@assistant_tool(
    name="run_backup",
    category="write",
    env_specific=True,
    args=BackupArgs,
    description_ru=(
        "Делает резервную копию окружения Superset: экспортирует все его дашборды (с графиками, датасетами и "
        "базами данных) в один zip-файл на сервере, фоновой задачей. Сразу возвращает номер задачи."
    ),
    description_en=(
        "Backs up an environment: all its dashboards with charts, datasets and databases into one zip on the "
        "server, as a background task; returns the task id."
    ),
    examples_ru=[
        "Сделай бэкап прода",
        "Создай резервную копию всех дашбордов ss-dev",
        "Сохрани резервную копию окружения перед миграцией",
        "Забэкапь дашборды этого окружения",
    ],
    examples_en=[
        "Back up prod",
        "Create a backup of all ss-dev dashboards",
        "Save a backup of this environment before the migration",
        "Make a backup of this environment's dashboards",
    ],
    impact=backup_impact,
)
async def run_backup(ctx: ToolContext, args: BackupArgs) -> dict[str, Any]:
    """Start the backup job of ``env_id``.

    Returns:
        ``{"task_id", "kind": "backup", "state": "queued", "env_id", "status_url"}`` at once.

    Raises:
        InvalidArguments: unknown environment.
    """
    client = await ctx.superset(args.env_id)
    record = await sync_to_async(task_start)(
        task=backup_task,
        kind="backup",
        user=ctx.user,
        env_id=client.env_id,
        conversation_id=ctx.conversation_id,
        params={"language": ctx.language},
    )
    return {
        "task_id": record.pk,
        "kind": "backup",
        "state": record.state,
        "env_id": client.env_id,
        "status_url": f"/api/agent/tasks/{record.pk}/",
    }


@assistant_tool(
    name="list_backups",
    category="read",
    env_specific=True,
    args=ListBackupsArgs,
    description_ru="Показывает резервные копии окружения: когда и кем сделаны, размер и число дашбордов.",
    description_en="Lists the backups of an environment: when and by whom, size and number of dashboards.",
    examples_ru=[
        "Какие бэкапы есть у прода?",
        "Покажи резервные копии ss-dev",
        "Когда последний раз делали резервную копию?",
        "Сколько дашбордов в последнем бэкапе?",
    ],
    examples_en=[
        "Which backups does prod have?",
        "Show the backups of ss-dev",
        "When was the last backup made?",
        "How many dashboards are in the latest backup?",
    ],
)
async def list_backups(ctx: ToolContext, args: ListBackupsArgs) -> dict[str, Any]:
    """Return ``{"env_id", "count", "backups": backups_list(...)}`` of an active environment, newest first.

    Raises:
        InvalidArguments: unknown environment.
    """
    if await sync_to_async(policy.environment_get)(env_id=args.env_id) is None:
        raise InvalidArguments(f"unknown environment {args.env_id!r}")
    rows = await sync_to_async(backups_list)(env_id=args.env_id, limit=args.limit)
    return {"env_id": args.env_id, "count": len(rows), "backups": rows}
