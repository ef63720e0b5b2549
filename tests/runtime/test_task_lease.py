"""A background job whose worker stopped (issue 31 item 3; ``runtime.background``): once its lease has run out,
the next read ends it ``failed`` with where it stopped — once, in the job's language, its result kept, its saved
plan released — and a job whose worker still renews its lease is left running."""

from datetime import timedelta

import pytest
from django.utils import timezone

from agentchat.models import Migration, TaskRecord
from agentchat.runtime import plans
from agentchat.runtime.background import task_status, task_stopped
from tests.support.wording import text

pytestmark = pytest.mark.django_db

STOPPED = "Stopped: the worker running this task stopped during: %(step)s. Run it again."


def running(*, lease_s: float, language: str = "ru", **fields) -> TaskRecord:
    return TaskRecord.objects.create(
        kind="migration",
        state=TaskRecord.State.RUNNING,
        message="2/4: «Б» → prod",
        params={"language": language},
        lease_until=timezone.now() + timedelta(seconds=lease_s),
        **fields,
    )


def test_a_job_whose_lease_ran_out_ends_failed_with_where_it_stopped(users):
    done = {"total": 4, "deployed": [{"id": 1, "title": "А"}], "failed": []}
    record = running(lease_s=-1, result=done)

    status = task_status(record_id=record.pk)

    note = text("ru", STOPPED, step="2/4: «Б» → prod")
    assert status["state"] == "failed"
    assert status["error"] == status["message"] == note
    assert status["result"] == {**done, "stopped": note}
    assert task_stopped(record_id=record.pk) is False  # ended once


def test_a_job_whose_worker_renews_its_lease_stays_running(users):
    record = running(lease_s=20)

    assert task_stopped(record_id=record.pk) is False
    assert task_status(record_id=record.pk)["state"] == "running"


def test_the_note_speaks_the_jobs_language_and_its_plan_is_released(users):
    plan = plans.migration_create(
        user=users["admin"], name="p", source_env_id="ss-dev", target_env_id="prod", dashboards=[]
    )
    Migration.objects.filter(pk=plan.pk).update(status=Migration.Status.RUNNING)
    record = TaskRecord.objects.create(
        kind="migration",
        state=TaskRecord.State.RUNNING,
        message="",
        params={"language": "en", "migration_id": plan.pk},
        lease_until=timezone.now() - timedelta(seconds=1),
    )
    plan.runs.add(record)

    assert task_stopped(record_id=record.pk) is True

    record.refresh_from_db()
    assert record.error == STOPPED % {"step": "its start"}
    assert Migration.objects.get(pk=plan.pk).status == Migration.Status.FAILED
