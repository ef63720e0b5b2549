"""What a background job may retry (DESIGN §10): its GETs once, its POST/PUT/DELETE never.

The job's ``ToolContext`` (``runtime.jobs.job_context``) talks to the real ss-dev Superset through the fault proxy on
loopback; requests are counted at the proxy.
"""

import asyncio

import pytest
from asgiref.sync import sync_to_async

from agentchat.errors import StatusUnknown
from agentchat.models import TaskRecord
from agentchat.runtime.jobs import job_context
from tests.support.faultproxy import FAULTY_ENV, Fault
from tests.support.superset_api import chart_ids_named
from tests.support.superset_scratch import charts_delete

pytestmark = pytest.mark.django_db(transaction=True)

CHART_CREATE = r"^/api/v1/chart/$"
DASHBOARD_LIST = r"^/api/v1/dashboard/$"


def _record(user) -> TaskRecord:
    return TaskRecord.objects.create(kind="test", user=user, env_id=FAULTY_ENV, params={"language": "ru"})


async def test_a_job_write_answered_503_is_sent_once_and_its_status_is_unknown(users, faulty_env, fault_proxy):
    """A job's POST answered 503 is not retried (the change may have happened): ``StatusUnknown``, one request."""
    record = await sync_to_async(_record)(users["engineer"])
    name = f"job write probe {record.pk}"
    fault_proxy.inject("POST", CHART_CREATE, Fault.STATUS, status=503)

    async with job_context(record) as ctx:
        client = await ctx.superset(FAULTY_ENV)
        with pytest.raises(StatusUnknown):
            await client.send_json(
                "POST",
                "/api/v1/chart/",
                {"slice_name": name, "viz_type": "table", "datasource_id": 1, "datasource_type": "table"},
            )
        assert ctx.call.retries == 0
        assert ctx.call.mutation_sent

    await asyncio.sleep(1.2)  # a retry would have come by now
    assert fault_proxy.count("POST", CHART_CREATE) == 1
    await sync_to_async(charts_delete)(await sync_to_async(chart_ids_named)(name))


async def test_a_job_read_answered_503_is_retried_once(users, faulty_env, fault_proxy):
    """A job's GET answered 503 once is retried once after 1 s and succeeds."""
    record = await sync_to_async(_record)(users["engineer"])
    fault_proxy.inject("GET", DASHBOARD_LIST, Fault.STATUS, status=503, times=1)

    async with job_context(record) as ctx:
        client = await ctx.superset(FAULTY_ENV)
        body = await client.get_json("/api/v1/dashboard/")
        assert ctx.call.retries == 1
        assert not ctx.call.mutation_sent

    assert "result" in body
    assert fault_proxy.count("GET", DASHBOARD_LIST) == 2
