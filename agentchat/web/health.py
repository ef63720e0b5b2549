"""``GET /healthz`` (DESIGN §14): is this web process able to serve? No login; for load balancers and orchestrators.

Checks, run concurrently, each under ``HEALTH_TIMEOUT_S``: the database (one query), the channel layer (a message
sent to a fresh channel of this process and received back — with Redis that is a real round trip), and
``GET <superset_url>/health`` of every active ``Environment`` (left out with ``?superset=0``). 200 when all pass,
503 otherwise; the body names each check: ``{"status": "ok"|"fail", "checks": {"database": {"ok": true, "ms": 1.3},
"superset:prod": {"ok": false, "ms": 2000.4, "error": "timeout"}, …}}``. Errors name the failure's kind, never
credentials.
"""

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable

import httpx
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse

from agentchat.turn.admission import turn_admission
from policies import services as policy

ERROR_MAX_CHARS = 200


def _database_ping() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


async def check_database() -> None:
    """One ``SELECT 1`` on the default database (in a worker thread).

    Raises:
        django.db.Error: the database cannot be reached or answered with an error.
    """
    await database_sync_to_async(_database_ping)()


async def check_channel_layer() -> None:
    """Send a message to a new channel of this process and receive it back.

    Raises:
        RuntimeError: no channel layer is configured, or a different message came back.
        Exception: the layer's own failure (e.g. Redis refused the connection).
    """
    layer = get_channel_layer()
    if layer is None:
        raise RuntimeError("no channel layer configured")
    # A process-local channel of the sockets' own kind (``specific.``): channels-redis receives every process-local
    # channel of one prefix with one blocking pop, which the sockets' receive holds while any is open; a channel of
    # another prefix ("healthz.") waited behind it and timed out, so /healthz said 503 while sockets were open
    # (issue 31, found on the production shape).
    channel = await layer.new_channel()
    nonce = uuid.uuid4().hex
    await layer.send(channel, {"type": "healthz.ping", "nonce": nonce})
    message = await layer.receive(channel)
    if message.get("nonce") != nonce:
        raise RuntimeError("channel layer returned another message")


def check_superset(url: str, client: httpx.AsyncClient) -> Callable[[], Awaitable[None]]:
    """Return a check of ``GET <url>/health`` (Superset answers ``OK`` with 200).

    Raises (from the check):
        RuntimeError: another status; httpx.HTTPError: no answer.
    """

    async def check() -> None:
        response = await client.get(url.rstrip("/") + "/health")
        if response.status_code != 200:
            raise RuntimeError(f"HTTP {response.status_code}")

    return check


async def _timed(check: Callable[[], Awaitable[None]], timeout_s: float) -> dict:
    started = time.perf_counter()
    try:
        async with asyncio.timeout(timeout_s):
            await check()
        result: dict = {"ok": True}
    except TimeoutError:
        result = {"ok": False, "error": f"timeout after {timeout_s:g} s"}
    except Exception as exc:  # any failure of a dependency is a failed check, never a 500
        result = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:ERROR_MAX_CHARS]}
    result["ms"] = round((time.perf_counter() - started) * 1000, 1)
    return result


async def health_checks(*, superset: bool = True) -> dict:
    """Run every check concurrently.

    Args:
        superset: also check each active environment's Superset (False: this process's own dependencies only,
            the container liveness probe).

    Returns:
        ``{"status": "ok"|"fail", "checks": {name: {"ok", "ms", "error"?}}, "turns": {...}}`` — ``turns``: this
        process's turn queue (``turn.admission.TurnAdmission.depth``: running, queued, refused, limits) — with
        names ``database``,
        ``channel_layer`` and ``superset:<env_id>`` per active environment (``environments`` instead when they
        cannot be listed).
    """
    timeout_s = settings.HEALTH_TIMEOUT_S
    checks: dict[str, Callable[[], Awaitable[None]]] = {
        "database": check_database,
        "channel_layer": check_channel_layer,
    }
    timeout = httpx.Timeout(timeout_s)
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
        environments = []
        try:
            if superset:
                async with asyncio.timeout(timeout_s):
                    environments = await database_sync_to_async(policy.environments_active)()
        except Exception as exc:  # the database check reports the cause; the listing itself failed
            checks["environments"] = _failing(exc)
        for environment in environments:
            checks[f"superset:{environment.env_id}"] = check_superset(environment.superset_url, client)
        names = list(checks)
        results = await asyncio.gather(*(_timed(checks[name], timeout_s) for name in names))
    outcome = dict(zip(names, results, strict=True))
    status = "ok" if all(r["ok"] for r in results) else "fail"
    return {"status": status, "checks": outcome, "turns": turn_admission.depth()}


def _failing(exc: Exception) -> Callable[[], Awaitable[None]]:
    async def check() -> None:
        raise exc

    return check


async def healthz(request: HttpRequest) -> JsonResponse:
    """``GET /healthz``: 200 with the checks when all pass, else 503 (no login, no session).

    ``?superset=0`` leaves the Superset checks out (liveness of the process itself: docker/Dockerfile).
    """
    report = await health_checks(superset=request.GET.get("superset") != "0")
    return JsonResponse(report, status=200 if report["status"] == "ok" else 503)
