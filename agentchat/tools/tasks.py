"""get_task_status: state, progress and result of a background job (DESIGN §8), and who may see which job.

A user sees the jobs they started; admins (role ``admin`` or superusers) see every job. Someone else's job is
reported exactly like a missing one, so ids reveal nothing.
"""

from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser, User
from django.utils import translation
from django.utils.translation import gettext as _
from pydantic import Field

from agentchat.context.ids import ObjectId
from agentchat.models import TaskRecord, task_kind_label
from agentchat.runtime.background import task_status
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from policies import services as policy


def task_status_visible(*, user: User | AnonymousUser | None, record_id: int) -> dict[str, Any] | None:
    """Return ``background.task_status`` of job ``record_id`` if ``user`` may see it, else None.

    Args:
        user: the asking Django user (own jobs; all jobs for admins).
        record_id: the ``TaskRecord`` id (the ``task_id`` tools return).
    """
    record = TaskRecord.objects.filter(pk=record_id).only("user_id").first()
    if record is None or user is None or not user.is_authenticated:
        return None
    if record.user_id != user.pk and not (user.is_superuser or "admin" in policy.user_roles(user=user)):
        return None
    return task_status(record_id=record_id)


def task_latest(*, user: User | AnonymousUser | None, kind: str | None, migration_id: int | None) -> int | None:
    """The id of the latest run of the saved migration plan ``migration_id`` (whoever started it: its visibility is
    judged by ``task_status_visible``), else of ``user``'s own latest background task (of ``kind`` when given), or
    None (issue 29 item 4: «статус моей последней задачи» needs no id). Admins see every job by id, but "my last
    task" is their own."""
    if user is None or not user.is_authenticated:
        return None
    if migration_id is not None:
        runs = TaskRecord.objects.filter(migrations__pk=migration_id)
        return runs.order_by("-created_at", "-id").values_list("pk", flat=True).first()
    rows = TaskRecord.objects.filter(user_id=user.pk)
    if kind:
        rows = rows.filter(kind=kind)
    return rows.order_by("-created_at", "-id").values_list("pk", flat=True).first()


TaskKind = Literal["backup", "migration", "validation", "documentation"]


class TaskStatusArgs(ToolArgs):
    task_id: ObjectId | None = Field(None, description="Task id (omit: the user's latest).")
    kind: TaskKind | None = Field(None, description="No task_id: the latest of this kind.")
    migration_id: ObjectId | None = Field(None, description="No task_id: this migration's latest run.")


@assistant_tool(
    name="get_task_status",
    category="read",
    env_specific=False,
    args=TaskStatusArgs,
    description_ru=(
        "Сообщает состояние фоновой задачи (резервная копия, миграция, проверка): в очереди, выполняется, "
        "готово или ошибка, процент выполнения, последнее сообщение и результат."
    ),
    description_en=("State of a background task (backup, migration, validation): progress, latest message and result."),
    examples_ru=[
        "Какой статус у задачи 12?",
        "Бэкап уже закончился?",
        "Как идёт миграция?",
        "Покажи результат задачи 7",
        "Статус моей последней задачи",
    ],
    examples_en=[
        "What is the status of task 12?",
        "Has the backup finished yet?",
        "How is the migration going?",
        "Show me the result of task 7",
        "Check the status of my last job",
    ],
)
async def get_task_status(ctx: ToolContext, args: TaskStatusArgs) -> dict[str, Any]:
    """Return the task's status, or a not-found answer; without ``task_id`` the latest run of the saved migration
    ``migration_id`` (on a migration page the page's: ``runtime.plans.plan_arguments``), else the user's own latest
    task (of ``kind``), marked ``latest`` (issue 29 item 4).

    Returns:
        ``{"found": true, "task_id", "kind", "state" (queued|running|succeeded|failed), "progress" (0–100),
        "message", "result", "error", "env_id", "created_at", "updated_at", "latest"}``, or ``{"found": false,
        "task_id", "message"}`` when there is no such task among those the user may see (``task_id`` None: the
        user has no task of that kind).
    """
    task_id = args.task_id
    if task_id is None:
        task_id = await sync_to_async(task_latest)(user=ctx.user, kind=args.kind, migration_id=args.migration_id)
    status = None if task_id is None else await sync_to_async(task_status_visible)(user=ctx.user, record_id=task_id)
    if status is None:
        with translation.override(ctx.language):
            if task_id is not None:
                message = _("Task %(id)s not found (or not yours).") % {"id": task_id}
            elif args.migration_id is not None:
                message = _("Saved migration #%(id)s has not been run yet.") % {"id": args.migration_id}
            elif args.kind:
                message = _("You have started no background task of this kind (%(kind)s) yet.") % {
                    "kind": task_kind_label(args.kind)
                }
            else:
                message = _("You have started no background task yet (backups, migrations, reviews).")
        return {"found": False, "task_id": task_id, "message": message}
    return {"found": True, **status, "latest": args.task_id is None}
