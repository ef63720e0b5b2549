"""``GET /healthz`` (DESIGN §14): database, channel layer and each active Superset; 200 when all pass, else 503.

Real dependencies: the test PostgreSQL, the Redis channel layer (``REDIS_URL``), the local Superset pair. Faults
are real loopback sockets: a port nobody listens on (refused) and a listener that never answers (hang).
"""

import asyncio
import socket
import time

import pytest
from django.test import AsyncClient

from policies.models import Environment

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def silent_port():
    """A loopback listener that accepts connections (backlog) and never answers: a hanging Superset."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def get_health():
    response = await AsyncClient().get("/healthz")
    return response.status_code, response.json()


async def test_all_checks_pass_without_login(policy_defaults, superset_stack, settings):
    """Anonymous request, real PostgreSQL, Redis and both Superset instances: 200 and one entry per check."""
    assert "RedisChannelLayer" in settings.CHANNEL_LAYERS["default"]["BACKEND"]  # the real layer is checked

    status, body = await get_health()

    assert status == 200
    assert body["status"] == "ok"
    active = {
        f"superset:{env_id}"
        async for env_id in Environment.objects.filter(is_active=True).values_list("env_id", flat=True)
    }
    assert set(body["checks"]) == {"database", "channel_layer", *active}
    assert {"superset:ss-dev", "superset:prod"} <= active
    assert all(check["ok"] and check["ms"] >= 0 for check in body["checks"].values())


async def test_a_hanging_superset_fails_its_check_within_the_deadline(
    policy_defaults, superset_stack, settings, silent_port
):
    """One environment hangs: 503 within about ``HEALTH_TIMEOUT_S``, only its check fails, the others are still
    checked (concurrently, so the total is not the sum)."""
    settings.HEALTH_TIMEOUT_S = 1.0
    await Environment.objects.filter(env_id="staging").aupdate(superset_url=f"http://127.0.0.1:{silent_port}")

    started = time.monotonic()
    status, body = await get_health()
    elapsed = time.monotonic() - started

    assert status == 503
    assert body["status"] == "fail"
    assert body["checks"]["superset:staging"] == {
        "ok": False,
        "error": "timeout after 1 s",
        "ms": pytest.approx(1000, abs=300),
    }
    assert body["checks"]["superset:ss-dev"]["ok"] is True
    assert body["checks"]["database"]["ok"] is True
    assert elapsed < 2.0


async def test_liveness_probe_leaves_superset_out(policy_defaults):
    """``?superset=0`` (the container's health check): a dead Superset does not make the process unhealthy."""
    await Environment.objects.filter(env_id="staging").aupdate(superset_url=f"http://127.0.0.1:{closed_port()}")

    response = await AsyncClient().get("/healthz", {"superset": "0"})

    assert response.status_code == 200
    assert set(response.json()["checks"]) == {"database", "channel_layer"}


async def test_refused_superset_and_inactive_environments(policy_defaults, superset_stack):
    """A refused connection fails the check; an inactive environment is not checked at all."""
    port = closed_port()
    await Environment.objects.filter(env_id="staging").aupdate(superset_url=f"http://127.0.0.1:{port}")
    await Environment.objects.filter(env_id="prod").aupdate(is_active=False)

    status, body = await get_health()

    assert status == 503
    assert body["checks"]["superset:staging"]["ok"] is False
    assert "ConnectError" in body["checks"]["superset:staging"]["error"]
    assert "superset:prod" not in body["checks"]


async def test_unreachable_channel_layer_fails_its_check(policy_defaults, superset_stack, settings):
    settings.HEALTH_TIMEOUT_S = 1.0
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [f"redis://127.0.0.1:{closed_port()}/0"]},
        }
    }

    status, body = await get_health()

    assert status == 503
    assert body["checks"]["channel_layer"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True


async def test_wrong_status_from_superset_fails(policy_defaults, superset_stack):
    """A server that answers, but not Superset's health page (404 on the login page's /health sibling)."""
    await Environment.objects.filter(env_id="staging").aupdate(superset_url="http://127.0.0.1:8088/nothing-here")

    status, body = await get_health()

    assert status == 503
    assert body["checks"]["superset:staging"]["error"] == "RuntimeError: HTTP 404"


async def test_the_channel_layer_check_passes_while_a_chat_socket_is_open(users):
    """Issue 31 (found on the production shape): with a socket open, the process's one blocking receive of its
    process-local channels is held by that socket, and a check on a channel of another prefix («healthz.») waited
    behind it until its deadline: /healthz said 503 whenever anyone was chatting."""
    from agentchat.web.health import check_channel_layer
    from tests.support.websocket import ws_connect

    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await asyncio.sleep(0.3)  # the socket's receive holds the layer's blocking pop now
    try:
        async with asyncio.timeout(3):
            await check_channel_layer()
    finally:
        await communicator.disconnect()
