"""get_task_status: state, progress and result of a background job (DESIGN §8), and who may see which job.

A user sees the jobs they started; admins (role ``admin`` or superusers) see every job. Someone else's job is
reported exactly like a missing one, so ids reveal nothing.
"""

from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth.models import AnonymousUser, User
from django.utils import translation
from django.utils.translation import gettext as _
from pydantic import Field

from agentchat.context.ids import ObjectId
from agentchat.models import TaskRecord
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


class TaskStatusArgs(ToolArgs):
    task_id: ObjectId = Field(description="Id of the background task (returned by run_backup, execute_migration…).")


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
    ],
    examples_en=[
        "What is the status of task 12?",
        "Has the backup finished yet?",
        "How is the migration going?",
        "Show me the result of task 7",
    ],
)
async def get_task_status(ctx: ToolContext, args: TaskStatusArgs) -> dict[str, Any]:
    """Return the task's status, or a not-found answer.

    Returns:
        ``{"found": true, "task_id", "kind", "state" (queued|running|succeeded|failed), "progress" (0–100),
        "message", "result", "error", "env_id", "created_at", "updated_at"}``, or ``{"found": false, "task_id",
        "message"}`` when there is no such task among those the user may see.
    """
    status = await sync_to_async(task_status_visible)(user=ctx.user, record_id=args.task_id)
    if status is None:
        with translation.override(ctx.language):
            message = _("Task %(id)s not found (or not yours).") % {"id": args.task_id}
        return {"found": False, "task_id": args.task_id, "message": message}
    return {"found": True, **status}
