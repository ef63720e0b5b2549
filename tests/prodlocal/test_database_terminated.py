"""PostgreSQL backends terminated across the processes of the production shape (issue 31 item 3; one process:
``tests/chat/test_database_restart.py``).

Two daphne processes and a ``db_worker`` behind nginx on the test database; page clients keep sending while every
backend of that database but the test's own is terminated three times (as a restart or a failover does). Every
message is answered or explicitly failed with a resend offered (``database_unavailable`` naming it), none twice,
none lost; no socket ends with 1011; handshakes after each termination are accepted (no HTTP 500), and both web
processes answer afterwards.
"""

import asyncio

import httpx
import pytest
from channels.db import database_sync_to_async
from django.db import connection
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.prodlocal.conftest import talker_cookies
from tests.support.contexts import DASHBOARD_1
from tests.support.db_outage import backends_terminate
from tests.support.page_client import PageClient, ledger, talk
from tests.support.processes import database_url, session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]

TALKERS = 8
MESSAGES = 8  # one every 0.3 s each
TERMINATIONS = 3


async def handshake(url: str, cookie: str) -> int:
    """Open and close one socket through nginx; 101, or the HTTP status of a refused upgrade."""
    host = url.split("//", 1)[1]
    try:
        ws = await connect(f"ws://{host}/ws/agent/", origin=url, additional_headers={"Cookie": cookie})
    except InvalidStatus as exc:
        return exc.response.status_code
    await ws.close()
    return 101


@pytest.fixture
def own_backend(transactional_db) -> set[int]:
    """The test thread's own backend: spared, since pytest-django flushes the database through it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return {cursor.fetchone()[0]}


async def test_terminated_backends_lose_no_message_on_any_process(users, shape, own_backend, record_property):
    stack = await asyncio.to_thread(shape, web=2)
    cookie = await database_sync_to_async(session_cookie)(users["engineer"])
    keep = own_backend
    talkers = await database_sync_to_async(talker_cookies)(TALKERS)
    clients = [await PageClient(stack.url, talker, context=DASHBOARD_1).start() for talker in talkers]

    talking = [asyncio.create_task(talk(client, f"c{i}", MESSAGES, 0.3)) for i, client in enumerate(clients)]
    terminated, statuses = [], []
    for _ in range(TERMINATIONS):
        await asyncio.sleep(0.7)
        terminated.append(await asyncio.to_thread(backends_terminate, database_url(), keep=keep))
        statuses += [await handshake(stack.url, cookie) for _ in range(3)]
    await asyncio.gather(*talking)
    settled = [await client.settled(60) for client in clients]
    async with httpx.AsyncClient(timeout=10, trust_env=False) as http:
        health = [(await http.get(f"http://127.0.0.1:{p.port}/healthz?superset=0")) for p in stack.webs()]

    counts = ledger(clients)
    record_property(
        "fault_counts",
        counts.line(f"PostgreSQL backends terminated {TERMINATIONS}× ({sum(terminated)} backends), 2 web")
        + f" | handshakes after: {statuses.count(101)} of {len(statuses)} accepted",
    )
    assert all(n >= 1 for n in terminated)  # the web processes' and the worker's connections
    assert all(settled), counts.line("not settled")
    assert counts.duplicated == 0
    assert counts.lost == 0
    assert counts.sent == TALKERS * MESSAGES
    assert counts.answered + counts.failed == counts.sent
    assert set(counts.reasons) <= {"database_unavailable"}  # the only failure, and each with its resend
    assert counts.answered >= counts.sent // 2
    assert statuses == [101] * len(statuses)  # no HTTP 500
    assert [r.status_code for r in health] == [200, 200], [r.text for r in health]
    assert all(1011 not in client.close_codes and not client.reconnects for client in clients)
    for client in clients:
        await client.close()
