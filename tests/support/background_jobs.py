"""A django-tasks task used only by the tests (the db_worker imports it by its dotted path, ``tests.support.…``)."""

from django_tasks import task

from agentchat.runtime.background import tracked


@task()
async def count_to(record_id: int) -> dict:
    """Count to ``params["n"]`` reporting progress; fail when ``params["fail"]`` is set."""

    async def job(record, progress):
        n = int(record.params["n"])
        for i in range(1, n + 1):
            await progress(int(i * 100 / n), f"{i}/{n}")
        if record.params.get("fail"):
            raise RuntimeError("asked to fail")
        return {"counted": n}

    return await tracked(record_id, job)
