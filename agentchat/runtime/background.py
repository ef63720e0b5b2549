"""Background jobs of tools (DESIGN §3, §8): a ``TaskRecord`` per job, run by a django-tasks ``db_worker``.

A tool creates the record and enqueues a django-tasks task with the record id (``task_start``); the task body
runs inside ``tracked`` which marks the record running, lets the job report progress and stores the result or
the error. Records live in the database, so any web process and ``get_task_status`` can read them.

A job records the language of the turn that started it (``params["language"]``) and runs under
``translation.override`` of it, so its progress lines, messages and results speak the user's language although
the worker has no request (``job_language``).

A running job holds a lease (``TaskRecord.lease_until``, ``TASK_LEASE_S``) its worker renews with every progress
line and every third of the lease; when the worker is killed (issue 31 item 3) the lease runs out, and the next
read of the job (``task_status``: the page's poll, ``get_task_status``, the migration page) ends it ``failed``
with where it stopped (``task_stopped``): its last progress line, and what it had done (a migration's dashboards)
kept in its result. Nothing resumes it; a re-run redoes the whole job (imports overwrite by uuid: no duplicates).
"""

import asyncio
import logging
import traceback
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.db.models import F
from django.utils import timezone, translation
from django.utils.translation import gettext
from django_tasks.base import Task, TaskResultStatus
from django_tasks_db.models import DBTaskResult

from agentchat.models import TaskRecord
from agentchat.runtime import plans

log = logging.getLogger(__name__)
State = TaskRecord.State
Progress = Callable[[int, str], Awaitable[None]]


def task_start(
    *,
    task: Task[[int], Any],
    kind: str,
    user: User | None,
    env_id: str = "",
    conversation_id: int | None = None,
    params: dict[str, Any] | None = None,
) -> TaskRecord:
    """Create a ``TaskRecord`` and enqueue ``task(record_id)`` on the default django-tasks backend.

    Args:
        task: a django-tasks ``Task`` taking the record id as its only argument.
        kind: short job name (``backup``, ``migration``, ``validation``…).
        user / env_id / conversation_id / params: who started it, where, and its JSON-able parameters;
            ``params["language"]`` is the job's language, the active one (the turn's) when not given.

    Returns:
        The queued record (``task_result_id`` set).
    """
    params = {"language": translation.get_language() or settings.LANGUAGE_CODE, **(params or {})}
    record = TaskRecord.objects.create(
        kind=kind, user=user, env_id=env_id or "", conversation_id=conversation_id, params=params
    )
    result = task.enqueue(record.pk)
    TaskRecord.objects.filter(pk=record.pk).update(task_result_id=str(result.id))
    record.task_result_id = str(result.id)
    return record


def task_lease_deadline() -> datetime:
    """Now plus ``TASK_LEASE_S``: until when a job whose worker reported now counts as running."""
    return timezone.now() + timedelta(seconds=settings.TASK_LEASE_S)


def task_progress(*, record_id: int, progress: int, message: str = "") -> None:
    """Store the progress (0–100 %, clamped) and the latest message of a running job; renews its lease."""
    TaskRecord.objects.filter(pk=record_id).update(
        progress=max(0, min(100, int(progress))),
        message=message[:500],
        state=State.RUNNING,
        lease_until=task_lease_deadline(),
    )


def task_stopped(*, record_id: int) -> bool:
    """End job ``record_id`` ``failed`` if it is ``running`` and its lease ran out (its worker was killed): the
    error and the message say where it stopped (its last progress line), in the job's language; a dict result
    (what it had done) is kept with a ``stopped`` note; django-tasks' own row is failed too and a migration plan
    is released (``failed``). One conditional UPDATE, so two readers end it once. Returns whether it ended it."""
    now = timezone.now()
    record = TaskRecord.objects.filter(pk=record_id, state=State.RUNNING, lease_until__lt=now).first()
    if record is None:
        return False
    with translation.override(job_language(record)):
        step = record.message or gettext("its start")
        note = gettext("Stopped: the worker running this task stopped during: %(step)s. Run it again.") % {"step": step}
    result = {**record.result, "stopped": note} if isinstance(record.result, dict) else {"stopped": note}
    ended = TaskRecord.objects.filter(pk=record_id, state=State.RUNNING, lease_until__lt=now).update(
        state=State.FAILED, error=note, message=note[:500], result=result, lease_until=None
    )
    if not ended:
        return False
    if record.task_result_id:
        DBTaskResult.objects.filter(id=record.task_result_id, status=TaskResultStatus.RUNNING).update(
            status=TaskResultStatus.FAILED, finished_at=now
        )
    plans.migration_run_finished(record_id=record_id)
    log.warning("background job %s ended failed: its worker stopped (lease ran out)", record_id)
    return True


def task_status(*, record_id: int) -> dict[str, Any] | None:
    """Return ``{"task_id", "kind", "state", "progress", "message", "result", "error", "env_id", "created_at",
    "updated_at"}`` of a job, or None if there is no such record. A running job whose worker stopped is ended
    first (``task_stopped``)."""
    task_stopped(record_id=record_id)
    record = TaskRecord.objects.filter(pk=record_id).first()
    if record is None:
        return None
    return {
        "task_id": record.pk,
        "kind": record.kind,
        "state": record.state,
        "progress": record.progress,
        "message": record.message,
        "result": record.result,
        "error": record.error,
        "env_id": record.env_id,
        "created_at": record.created_at.isoformat(),
        "updated_at": record.updated_at.isoformat(),
    }


def job_language(record: TaskRecord) -> str:
    """The language a job speaks: the one recorded when it started (``task_start``), else ``LANGUAGE_CODE``."""
    return str((record.params or {}).get("language") or settings.LANGUAGE_CODE)


async def tracked(record_id: int, job: Callable[[TaskRecord, Progress], Awaitable[Any]]) -> Any:
    """Run ``job(record, progress)`` for a task body: record running → succeeded with its result, or failed.

    ``progress(percent, message)`` stores progress. An exception marks the record failed (its text stored) and is
    re-raised so django-tasks records the failure too. The job runs under ``translation.override`` of its
    language (``job_language``).
    """
    record = await TaskRecord.objects.aget(pk=record_id)
    await TaskRecord.objects.filter(pk=record_id).aupdate(state=State.RUNNING, lease_until=task_lease_deadline())

    async def progress(percent: int, message: str = "") -> None:
        await sync_to_async(task_progress)(record_id=record_id, progress=percent, message=message)

    renewal = asyncio.create_task(_lease_renewed(record_id))
    try:
        with translation.override(job_language(record)):
            result = await job(record, progress)
    except Exception as exc:
        log.exception("background job %s failed", record_id)
        await TaskRecord.objects.filter(pk=record_id).aupdate(
            state=State.FAILED,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            message=traceback.format_exc()[-500:],
            lease_until=None,
        )
        raise
    finally:
        renewal.cancel()
    await TaskRecord.objects.filter(pk=record_id).aupdate(
        state=State.SUCCEEDED, progress=100, result=result, message=F("message"), lease_until=None
    )
    return result


async def _lease_renewed(record_id: int) -> None:
    """Renew the job's lease every third of ``TASK_LEASE_S`` while it runs (between progress lines too: one
    dashboard's export may take longer than the lease). Cancelled when the job ends."""
    while True:
        await asyncio.sleep(settings.TASK_LEASE_S / 3)
        await TaskRecord.objects.filter(pk=record_id, state=State.RUNNING).aupdate(lease_until=task_lease_deadline())
