"""Background jobs run in a real db_worker process and report state, progress and results (DESIGN §3)."""

import time

import pytest
from django.contrib.auth import get_user_model

from agentchat.runtime.background import task_start, task_status
from tests.support.background_jobs import count_to

pytestmark = pytest.mark.django_db(transaction=True)


def _wait_done(record_id: int, deadline_s: float = 30) -> dict:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        status = task_status(record_id=record_id)
        if status["state"] in ("succeeded", "failed"):
            return status
        time.sleep(0.1)
    raise AssertionError(f"job {record_id} not finished: {task_status(record_id=record_id)}")


def test_job_runs_in_worker_and_stores_result(task_worker):
    user = get_user_model().objects.create(username="runner")
    record = task_start(task=count_to, kind="count", user=user, params={"n": 5})
    assert task_status(record_id=record.pk)["state"] == "queued"
    status = _wait_done(record.pk)
    assert status["state"] == "succeeded"
    assert status["progress"] == 100
    assert status["result"] == {"counted": 5}
    assert status["message"] == "5/5"


def test_failed_job_is_marked_failed_with_its_error(task_worker):
    record = task_start(task=count_to, kind="count", user=None, params={"n": 2, "fail": True})
    status = _wait_done(record.pk)
    assert status["state"] == "failed"
    assert "asked to fail" in status["error"]
