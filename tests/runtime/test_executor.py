"""Tool execution under faults (DESIGN §10, issue 4): the real executor and Superset client, the real ss-dev
Superset behind a fault-injecting proxy on loopback, requests counted at the proxy."""

import asyncio
import socket
import time
import uuid
from datetime import UTC, datetime

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from pydantic import BaseModel

from agentchat.runtime.executor import tool_execute
from agentchat.runtime.registry import tool_spec
from agentchat.runtime.spec import ToolSpec
from agentchat.superset.client import retry_after_seconds
from tests.support.faultproxy import FAULTY_ENV, Fault
from tests.support.superset_api import chart_ids_named
from tests.support.superset_scratch import charts_delete
from tests.support.tool_runs import aset_tool_timeout
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)
STATUS_UNKNOWN = "%(tool)s: operation status unknown — check the status."  # msgid of the catalogue

DASHBOARD_LIST = r"^/api/v1/dashboard/$"
LOGIN = r"^/api/v1/security/login$"
CHART_CREATE = r"^/api/v1/chart/$"


class CreateChartArgs(BaseModel):
    env_id: str
    name: str


async def _create_chart(ctx, args: CreateChartArgs) -> dict:
    client = await ctx.superset(args.env_id)
    body = await client.send_json(
        "POST",
        "/api/v1/chart/",
        {"slice_name": args.name, "viz_type": "table", "datasource_id": 1, "datasource_type": "table"},
    )
    return {"id": body["id"]}


class SqlArgs(BaseModel):
    env_id: str
    sql: str


async def _run_sql(ctx, args: SqlArgs) -> dict:
    client = await ctx.superset(args.env_id)
    return await client.send_json("POST", "/api/v1/sqllab/execute/", {"database_id": 1, "sql": args.sql})


# Test-only tools, never registered in the global registry.
CREATE_CHART = ToolSpec(
    name="test_create_chart",
    category="write",
    env_specific=True,
    args_schema=CreateChartArgs,
    description_ru="Создаёт график (только для тестов).",
    description_en="Creates a chart (tests only).",
    examples_ru=(),
    examples_en=(),
    func=_create_chart,
)
RUN_SQL = ToolSpec(
    name="test_run_sql",
    category="read",
    env_specific=True,
    args_schema=SqlArgs,
    description_ru="Выполняет SQL в SQL Lab (только для тестов).",
    description_en="Runs SQL in SQL Lab (tests only).",
    examples_ru=(),
    examples_en=(),
    func=_run_sql,
)


async def run(spec: ToolSpec, user, language: str = "ru", **args):
    return await tool_execute(spec=spec, args=args, user=user, conversation_id=None, ui_context=None, language=language)


async def search(user, language: str = "ru"):
    return await run(tool_spec("search_dashboards"), user, language, env_id=FAULTY_ENV)


@pytest.fixture
def probe_chart_name(superset_stack):
    """A unique chart name; any chart of that name is deleted from ss-dev after the test."""
    name = f"faultprobe-{uuid.uuid4().hex[:12]}"
    yield name
    charts_delete(chart_ids_named(name))


async def warm_token(user) -> None:
    """One successful call through the proxy, so the JWT is cached and deadlines below cover no login."""
    outcome = await search(user)
    assert outcome.ok, outcome.error_message


async def wait_for_charts(name: str, *, wait_s: float = 10.0) -> list[int]:
    """Poll Superset until a chart called ``name`` exists (a committed write may land after the deadline)."""
    deadline = time.monotonic() + wait_s
    while True:
        ids = await sync_to_async(chart_ids_named)(name)
        if ids or time.monotonic() > deadline:
            return ids
        await asyncio.sleep(0.2)


def _gaps(hits) -> list[float]:
    return [b.at - a.at for a, b in zip(hits, hits[1:], strict=False)]


@pytest.mark.parametrize(("fault", "status"), [(Fault.STATUS, 503), (Fault.RESET, None)])
async def test_read_transient_failure_once_is_retried_once_a_second_later(
    users, faulty_env, fault_proxy, fault, status
):
    """One 503 (or reset), then success: exactly 2 upstream requests about 1 s apart, and the real result."""
    fault_proxy.inject("GET", DASHBOARD_LIST, fault, status=status, times=1)

    outcome = await search(users["analyst"])

    assert outcome.ok, outcome.error_message
    assert any(d["title"] == "Отчёт по энергопотреблению" for d in outcome.result["dashboards"])
    hits = fault_proxy.hits("GET", DASHBOARD_LIST)
    assert [h.fault for h in hits] == [fault.value, "forward"]
    assert 0.95 <= _gaps(hits)[0] <= 1.6
    assert outcome.retries == 1
    assert outcome.retry_events[0]["path"] == "/api/v1/dashboard/"


@pytest.mark.parametrize(("fault", "status"), [(Fault.STATUS, 503), (Fault.STATUS, 502), (Fault.RESET, None)])
async def test_read_persistent_failure_stops_after_two_requests_with_clear_error(
    users, faulty_env, fault_proxy, fault, status
):
    """Always failing: exactly 2 requests (1 s apart), then ``upstream_unavailable`` in plain words."""
    fault_proxy.inject("GET", DASHBOARD_LIST, fault, status=status)

    outcome = await search(users["analyst"])

    assert not outcome.ok
    assert outcome.error_code == "upstream_unavailable"
    assert fault_proxy.count("GET", DASHBOARD_LIST) == 2
    assert 0.95 <= _gaps(fault_proxy.hits("GET", DASHBOARD_LIST))[0] <= 1.6
    head, tail = text("ru", "Superset is unavailable (%(detail)s), try again later.", detail="\0").split("\0")
    assert outcome.error_message.startswith(head + "faulty: ")
    expected = f"HTTP {status}" if status else "connection reset"
    assert expected in outcome.error_message
    assert outcome.error_message.endswith(tail)


async def test_write_with_503_is_sent_once_and_never_retried(users, faulty_env, fault_proxy, probe_chart_name):
    """A write answered 503: one request, no retry, ``status_unknown`` (the client cannot know it failed)."""
    fault_proxy.inject("POST", CHART_CREATE, Fault.STATUS, status=503)

    outcome = await run(CREATE_CHART, users["engineer"], env_id=FAULTY_ENV, name=probe_chart_name)

    assert not outcome.ok
    assert outcome.error_code == "status_unknown"
    assert outcome.error_message == text("ru", STATUS_UNKNOWN, tool="test_create_chart")
    assert fault_proxy.count("POST", CHART_CREATE) == 1
    assert outcome.retries == 0
    await asyncio.sleep(1.2)  # a retry would have come by now
    assert fault_proxy.count("POST", CHART_CREATE) == 1
    assert await sync_to_async(chart_ids_named)(probe_chart_name) == []


async def test_write_committed_then_hang_is_status_unknown_and_exists_once(
    users, faulty_env, fault_proxy, probe_chart_name, settings
):
    """Superset applies the write, the answer never comes: ``status_unknown`` at the deadline, one chart."""
    await warm_token(users["engineer"])
    settings.TOOL_TIMEOUT_S = 3.0
    fault_proxy.inject("POST", CHART_CREATE, Fault.COMMIT_THEN_HANG)

    started = time.monotonic()
    outcome = await run(CREATE_CHART, users["engineer"], env_id=FAULTY_ENV, name=probe_chart_name)
    elapsed = time.monotonic() - started

    assert outcome.error_code == "status_unknown"
    assert outcome.timed_out
    assert 3.0 <= elapsed <= 4.0
    unknown = text("ru", STATUS_UNKNOWN, tool="").strip(": .")
    assert unknown in outcome.error_message
    assert fault_proxy.count("POST", CHART_CREATE) == 1
    assert len(await wait_for_charts(probe_chart_name)) == 1
    await asyncio.sleep(1.2)  # no second attempt arrives later
    assert fault_proxy.count("POST", CHART_CREATE) == 1
    assert len(await sync_to_async(chart_ids_named)(probe_chart_name)) == 1


async def test_write_committed_then_502_is_status_unknown_and_exists_once(
    users, faulty_env, fault_proxy, probe_chart_name
):
    """Superset applies the write, the proxy answers 502: ``status_unknown``, one request, one chart."""
    fault_proxy.inject("POST", CHART_CREATE, Fault.COMMIT_THEN_STATUS, status=502)

    outcome = await run(CREATE_CHART, users["engineer"], "en", env_id=FAULTY_ENV, name=probe_chart_name)

    assert outcome.error_code == "status_unknown"
    assert not outcome.timed_out
    assert outcome.error_message == "test_create_chart: operation status unknown — check the status."
    assert fault_proxy.count("POST", CHART_CREATE) == 1
    assert len(await sync_to_async(chart_ids_named)(probe_chart_name)) == 1


async def test_write_without_faults_creates_the_chart_once(users, faulty_env, fault_proxy, probe_chart_name):
    """Control: the same write through the proxy succeeds and creates exactly one chart."""
    outcome = await run(CREATE_CHART, users["engineer"], env_id=FAULTY_ENV, name=probe_chart_name)

    assert outcome.ok, outcome.error_message
    assert await sync_to_async(chart_ids_named)(probe_chart_name) == [outcome.result["id"]]


async def test_write_to_unreachable_superset_is_unavailable_not_unknown(users, policy_defaults, probe_chart_name):
    """A refused connection never carried the write: ``upstream_unavailable``, not ``status_unknown``."""
    from policies.models import Environment

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed again before the call: nothing listens there
    await database_sync_to_async(Environment.objects.create)(
        env_id="down",
        name="down",
        tier="dev",
        superset_url=f"http://127.0.0.1:{port}",
        credentials_env="SUPERSET_DOWN",
        auth_mode="service",
    )

    outcome = await run(CREATE_CHART, users["engineer"], env_id="down", name=probe_chart_name)

    assert outcome.error_code == "upstream_unavailable"
    assert "connection refused" in outcome.error_message


async def test_read_hang_times_out_within_deadline_plus_one_second(users, faulty_env, fault_proxy):
    """A hanging read ends as ``timeout`` within its ``Tool.timeout_s`` + 1 s, without a retry."""
    await warm_token(users["analyst"])
    hits_before = fault_proxy.count("GET", DASHBOARD_LIST)
    await aset_tool_timeout("search_dashboards", 1.5)
    fault_proxy.inject("GET", DASHBOARD_LIST, Fault.HANG)

    started = time.monotonic()
    outcome = await search(users["analyst"])
    elapsed = time.monotonic() - started

    assert outcome.error_code == "timeout"
    assert outcome.timed_out
    assert 1.5 <= elapsed <= 2.5
    assert outcome.error_message == text(
        "ru", "Tool %(tool)s did not answer within %(timeout_s)s s.", tool="search_dashboards", timeout_s=1.5
    )
    assert fault_proxy.count("GET", DASHBOARD_LIST) == hits_before + 1


async def test_superset_401_twice_is_session_expired_after_at_most_two_logins(users, faulty_env, fault_proxy):
    """401, token refresh, 401 again: ``session_expired``, ≤ 2 logins, 2 requests, no tool retry."""
    fault_proxy.inject("GET", DASHBOARD_LIST, Fault.STATUS, status=401)

    outcome = await search(users["analyst"])

    assert outcome.error_code == "session_expired"
    assert outcome.error_message == text("ru", "Superset session in %(env)s expired, reload the page.", env=faulty_env)
    assert fault_proxy.count("POST", LOGIN) <= 2
    assert fault_proxy.count("GET", DASHBOARD_LIST) == 2
    assert outcome.retries == 0
    await asyncio.sleep(1.2)  # nothing else arrives later either
    assert fault_proxy.count("GET", DASHBOARD_LIST) == 2


async def test_expired_jwt_is_refreshed_once_and_the_call_succeeds(users, faulty_env, fault_proxy):
    """One 401 (an expired access token): one new login, the request repeated once, success."""
    first = await search(users["analyst"])  # caches a token for the proxy's URL
    logins_before = fault_proxy.count("POST", LOGIN)
    fault_proxy.inject("GET", DASHBOARD_LIST, Fault.STATUS, status=401, times=1)

    outcome = await search(users["analyst"])

    assert first.ok
    assert outcome.ok
    assert fault_proxy.count("POST", LOGIN) == logins_before + 1
    assert fault_proxy.count("GET", DASHBOARD_LIST) == 3
    assert outcome.retries == 0


async def test_429_is_rate_limited_with_retry_after_and_one_request(users, faulty_env, fault_proxy):
    """429 with ``Retry-After: 7``: ``rate_limited`` whose message names the 7 seconds; one request only."""
    fault_proxy.inject("GET", DASHBOARD_LIST, Fault.STATUS, status=429, retry_after="7")

    outcome = await search(users["analyst"])

    assert outcome.error_code == "rate_limited"
    retry_in = text("ru", "Too many requests to Superset, retry in %(retry_after)s s.", retry_after=7)
    assert outcome.error_message == retry_in
    assert fault_proxy.count("GET", DASHBOARD_LIST) == 1
    await asyncio.sleep(1.2)
    assert fault_proxy.count("GET", DASHBOARD_LIST) == 1


async def test_hundred_parallel_reads_against_failing_upstream_make_at_most_two_requests_each(
    users, faulty_env, fault_proxy
):
    """100 concurrent read calls, every upstream request fails: at most 2 requests per call, all fail cleanly."""
    fault_proxy.inject("*", r"^/", Fault.STATUS, status=503)

    outcomes = await asyncio.gather(*(search(users["analyst"]) for _ in range(100)))

    assert {o.error_code for o in outcomes} == {"upstream_unavailable"}
    per_call: dict[str, int] = {}
    for hit in fault_proxy.hits():
        per_call[hit.call] = per_call.get(hit.call, 0) + 1
    assert set(per_call) == {o.trace_id for o in outcomes}
    assert max(per_call.values()) <= 2
    assert fault_proxy.count() <= 200
    assert all(o.requests <= 2 and o.retries <= 1 for o in outcomes)


async def test_deterministic_superset_500_is_not_retried(users, faulty_env, fault_proxy):
    """Superset's HTTP 500 ``DML_NOT_ALLOWED_ERROR`` (refused DML) is an error of the request: 1 request."""
    outcome = await run(RUN_SQL, users["analyst"], env_id=FAULTY_ENV, sql="DELETE FROM energy_consumption WHERE 1=0")

    assert outcome.error_code == "upstream_error"
    read_only = "The database in %(env)s allows reading only: a query that changes data was refused."
    assert outcome.error_message == text("ru", read_only, env=FAULTY_ENV)
    assert fault_proxy.count("POST", r"^/api/v1/sqllab/execute/$") == 1
    assert outcome.retries == 0


async def test_4xx_is_not_retried(users, faulty_env, fault_proxy):
    """A 404 of a missing dashboard is answered once, never retried."""
    outcome = await run(tool_spec("get_health_summary"), users["analyst"], env_id=FAULTY_ENV, dashboard_id=999999)

    assert outcome.error_code == "upstream_error"
    assert fault_proxy.count("GET", r"^/api/v1/dashboard/999999") >= 1
    assert all(fault_proxy.count("GET", f"^/api/v1/dashboard/999999{tail}$") <= 1 for tail in ("", "/charts"))
    assert outcome.retries == 0


async def test_read_call_retries_at_most_once_however_many_requests_it_makes(users, faulty_env, fault_proxy):
    """get_health_summary sends 3 requests at once; all fail: the call's single retry is spent once (≤ 4 sent)."""
    await warm_token(users["analyst"])
    before = fault_proxy.count("GET", r"^/api/v1/dashboard/1")
    fault_proxy.inject("GET", r"^/api/v1/dashboard/1", Fault.STATUS, status=503)

    outcome = await run(tool_spec("get_health_summary"), users["analyst"], env_id=FAULTY_ENV, dashboard_id=1)

    assert outcome.error_code == "upstream_unavailable"
    assert outcome.retries == 1
    await asyncio.sleep(1.5)  # requests still in flight when the call ended have arrived by now
    sent = fault_proxy.hits("GET", r"^/api/v1/dashboard/1")[before:]
    assert {h.call for h in sent} == {outcome.trace_id}
    assert len(sent) <= 4


async def test_429_without_retry_after_says_later(users, faulty_env, fault_proxy):
    fault_proxy.inject("GET", DASHBOARD_LIST, Fault.STATUS, status=429)

    outcome = await search(users["analyst"], "en")

    assert outcome.error_code == "rate_limited"
    assert outcome.error_message == "Too many requests to Superset, try again later."
    assert fault_proxy.count("GET", DASHBOARD_LIST) == 1


def test_retry_after_is_read_as_seconds_or_http_date():
    now = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)

    assert retry_after_seconds("120") == 120
    assert retry_after_seconds("Sun, 29 Nov 2026 12:01:30 GMT", now=now) == 90
    assert retry_after_seconds("Sun, 29 Nov 2026 11:00:00 GMT", now=now) == 0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None


async def test_crashing_tool_becomes_internal_error_not_an_exception(users, policy_defaults):
    async def broken(ctx, args):
        return {}["missing"]

    spec = ToolSpec(
        name="test_broken",
        category="read",
        env_specific=False,
        args_schema=BaseModel,
        description_ru="Сломан.",
        description_en="Broken.",
        examples_ru=(),
        examples_en=(),
        func=broken,
    )

    outcome = await run(spec, users["analyst"])

    expected = (False, "internal", text("ru", "Internal server error."))
    assert (outcome.ok, outcome.error_code, outcome.error_message) == expected
