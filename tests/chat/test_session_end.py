"""A session's end ends its sockets (DESIGN §6, §10; issue 13 item 5).

Logout, a password change and a deactivation close every open socket of the session with 4401 within a second
(a real daphne process on the test database and the Redis channel layer; clients are real WebSockets with a
database session cookie). A frame of any type on a socket whose session is dead gets ``session_expired`` and runs
nothing: an approval of a ``commit_changes`` card (which exports the dashboard from Superset when it runs) makes
zero upstream requests, counted by a loopback proxy in front of the local ss-dev (``tests/support/loopback_proxy``).
"""

import asyncio
import json
import time
from datetime import timedelta

import httpx
import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.sessions.models import Session
from django.test import Client
from django.utils import timezone
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from agentchat.models import PendingConfirmation
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent, Environment
from tests.support.admin_forms import change_form_data
from tests.support.contexts import DASHBOARD_1
from tests.support.loopback_proxy import CountingProxy
from tests.support.processes import DaphneProcess, process_env, session_cookie
from tests.support.processes import database_url as _database_url
from tests.support.scripted_llm import scripted, tool_calls_message
from tests.support.websocket import ws_connect

pytestmark = pytest.mark.django_db(transaction=True)
EXPIRED = {"event": "error", "code": "session_expired", "message": "сессия истекла, обновите страницу"}
PING = {"type": "ping"}  # a malformed frame: answered with ``bad_frame`` while the session lives


def _sessions_of(user) -> list[Session]:
    return [s for s in Session.objects.all() if s.get_decoded().get("_auth_user_id") == str(user.pk)]


def _expire(user) -> None:
    Session.objects.filter(pk__in=[s.pk for s in _sessions_of(user)]).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )


def _delete_sessions(user) -> None:
    Session.objects.filter(pk__in=[s.pk for s in _sessions_of(user)]).delete()


def _deactivate_quietly(user) -> None:
    """Deactivate without a signal (a bulk UPDATE): the socket stays open and only its frame check refuses."""
    get_user_model().objects.filter(pk=user.pk).update(is_active=False)


# --- a frame on a dead session runs nothing (in-process ASGI stack, Redis layer, real Superset behind a proxy)


@pytest.fixture
def proxy(superset_stack, users, settings, tmp_path):
    """ss-dev points at a fresh counting proxy (a new URL: no login token cached for it) and a new git dir."""
    settings.GIT_REPOS_DIR = str(tmp_path / "git")
    with CountingProxy("http://127.0.0.1:8088") as counting:
        Environment.objects.filter(env_id="ss-dev").update(superset_url=counting.url)
        yield counting


async def _commit_card(user, dashboard_id: int) -> int:
    """Put up a commit_changes card for the dashboard (its impact look-up reads Superset); return its id."""
    frames = []

    async def emit(event):
        frames.append(event.wire())

    call = tool_calls_message([("commit_changes", {"env_id": "ss-dev", "dashboard_id": dashboard_id})], prefix="se")
    await AgentTurn(user=user, emit=emit, model=scripted(call)).run(
        conversation_id=None, text="сохрани дашборд в git", context=DASHBOARD_1
    )
    [card] = [f for f in frames if f["event"] == "confirm_required"]
    return card["confirmation_id"]


async def _drain(communicator, quiet_s: float = 1.5) -> list[dict]:
    """The JSON frames sent until none comes for ``quiet_s``; a close of the socket is kept as
    ``{"closed": code}`` (the in-process communicator still delivers later frames to the consumer, which must
    refuse them too)."""
    frames = []
    while not await communicator.receive_nothing(timeout=quiet_s, interval=0.02):
        output = await communicator.receive_output()
        if output["type"] == "websocket.send":
            frames.append(json.loads(output["text"]))
        elif output["type"] == "websocket.close":
            frames.append({"closed": output.get("code")})
    return frames


@pytest.mark.parametrize(
    "end_session", [_expire, _delete_sessions, _deactivate_quietly], ids=["expired", "logged-out", "deactivated"]
)
async def test_approve_on_a_dead_session_runs_nothing(users, proxy, energy_dashboard, end_session):
    """confirm, dismiss, resume and a malformed frame on a dead session: each gets ``session_expired`` and is
    audited; the card stays pending and Superset receives no request."""
    user = users["engineer"]
    confirmation_id = await _commit_card(user, energy_dashboard["id"])
    row = await PendingConfirmation.objects.aget(pk=confirmation_id)
    tab, connected, _ = await ws_connect(user)
    assert connected
    await database_sync_to_async(end_session)(user)
    before = proxy.count

    await tab.send_json_to({"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"})
    await tab.send_json_to({"type": "dismiss", "confirmation_id": confirmation_id})
    await tab.send_json_to({"type": "resume", "conversation_id": row.conversation_id})
    await tab.send_json_to(PING)
    frames = await _drain(tab)
    await tab.disconnect()

    # one answer per frame, unless an expired session's own timer closes the socket in between (a closed socket
    # is sent nothing more; its frames are still refused and audited)
    closes = [f for f in frames if "closed" in f]
    assert [f for f in frames if "closed" not in f] == [EXPIRED] * (len(frames) - len(closes))
    assert closes in ([], [{"closed": 4401}])
    assert closes or len(frames) == 4
    assert proxy.count == before
    await row.arefresh_from_db()
    assert row.status == PendingConfirmation.Status.PENDING
    audited = await database_sync_to_async(list)(
        AuditEvent.objects.filter(event_type=AuditEvent.EventType.SESSION_EXPIRED).order_by("pk")
    )
    assert [(a.actor_id, a.outcome, a.extra_data["frame"]) for a in audited] == [
        (user.pk, "session_expired", "confirm"),
        (user.pk, "session_expired", "dismiss"),
        (user.pk, "session_expired", "resume"),
        (user.pk, "session_expired", "invalid"),
    ]
    assert audited[0].extra_data["confirmation_id"] == confirmation_id
    assert audited[2].extra_data["claimed_conversation_id"] == row.conversation_id


async def test_approve_on_a_live_session_runs_the_call(users, proxy, energy_dashboard):
    """Control: the same approval on a live session exports the dashboard through the proxy and executes."""
    user = users["engineer"]
    confirmation_id = await _commit_card(user, energy_dashboard["id"])
    tab, _, _ = await ws_connect(user)
    before = proxy.count

    await tab.send_json_to({"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"})
    frames = await _drain(tab, quiet_s=3)
    await tab.disconnect()

    assert "tool_started" in [f["event"] for f in frames]
    assert proxy.count > before
    row = await PendingConfirmation.objects.aget(pk=confirmation_id)
    assert row.status == PendingConfirmation.Status.EXECUTED


# --- forbidden references are refused as before and audited


async def test_another_users_card_and_conversation_are_refused_and_audited(users, proxy, energy_dashboard):
    """confirm/dismiss of another user's card and resume/user_message of another user's conversation: refused
    (``card_not_found``, ``bad_frame``) and each audited as ``forbidden_reference`` naming the owner."""
    owner, intruder = users["engineer"], users["admin"]
    confirmation_id = await _commit_card(owner, energy_dashboard["id"])
    row = await PendingConfirmation.objects.aget(pk=confirmation_id)
    tab, _, _ = await ws_connect(intruder)
    before = proxy.count

    await tab.send_json_to({"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"})
    await tab.send_json_to({"type": "dismiss", "confirmation_id": confirmation_id})
    await tab.send_json_to({"type": "resume", "conversation_id": row.conversation_id})
    await tab.send_json_to(
        {"type": "user_message", "conversation_id": row.conversation_id, "text": "привет", "context": None}
    )
    frames = await _drain(tab)
    await tab.disconnect()

    assert sorted(f["code"] for f in frames) == ["bad_frame", "bad_frame", "card_not_found", "card_not_found"]
    assert proxy.count == before
    await row.arefresh_from_db()
    assert row.status == PendingConfirmation.Status.PENDING
    audited = await database_sync_to_async(list)(
        AuditEvent.objects.filter(event_type=AuditEvent.EventType.FORBIDDEN_REFERENCE).order_by("pk")
    )
    assert sorted((a.extra_data["kind"], a.extra_data["id"]) for a in audited) == sorted(
        [
            ("confirmation", confirmation_id),
            ("confirmation", confirmation_id),
            ("conversation", row.conversation_id),
            ("conversation", row.conversation_id),
        ]
    )
    assert {(a.actor_id, a.outcome, a.extra_data["owner_id"], a.conversation_id) for a in audited} == {
        (intruder.pk, "forbidden_reference", owner.pk, row.conversation_id)
    }


# --- the end of a session closes its sockets within a second (real daphne, Redis channel layer)


@pytest.fixture
def web(superset_stack, users, tmp_path):
    """One agentchat daphne process on the test database; it shares this process's Redis prefix, so signals
    sent here (the admin's deactivation) reach its sockets."""
    assert settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("RedisChannelLayer")
    env = process_env(
        DATABASE_URL=_database_url(),
        DJANGO_SECRET_KEY=settings.SECRET_KEY,
        LLM_PROVIDER="offline",
        EMBEDDINGS="off",
        GIT_REPOS_DIR=str(tmp_path / "git"),
    )
    server = DaphneProcess(env, tmp_path / "daphne.log").start()
    yield server
    server.stop()


class Socket:
    """A real chat WebSocket to ``server`` with a session cookie; ``closed_after`` waits for its close."""

    def __init__(self, server: DaphneProcess, cookie: str):
        self.server = server
        self.cookie = cookie

    async def __aenter__(self) -> "Socket":
        host = f"127.0.0.1:{self.server.port}"
        self.ws = await connect(
            f"ws://{host}/ws/agent/", origin=f"http://{host}", additional_headers={"Cookie": self.cookie}
        )
        await self.ws.send(json.dumps(PING))  # answered once connect() is done, so the socket is in its groups
        assert json.loads(await asyncio.wait_for(self.ws.recv(), 10))["code"] == "bad_frame"
        return self

    async def __aexit__(self, *exc) -> None:
        await self.ws.close()

    async def closed(self, wait_s: float = 5) -> tuple[list[dict], int | None, float]:
        """Frames received until the server closes the socket, its close code and the time it closed."""
        frames = []
        try:
            async with asyncio.timeout(wait_s):
                while True:
                    frames.append(json.loads(await self.ws.recv()))
        except ConnectionClosed:
            pass
        return frames, self.ws.close_code, time.monotonic()

    async def alive(self) -> bool:
        await self.ws.send(json.dumps(PING))
        try:
            return json.loads(await asyncio.wait_for(self.ws.recv(), 5))["code"] == "bad_frame"
        except ConnectionClosed:
            return False


@pytest.mark.processes
async def test_logout_closes_every_socket_of_the_session_within_a_second(web, users):
    """Two sockets of one session, a third of another session of the same user: ``POST /accounts/logout/`` from
    an HTTP client of the first session closes both of its sockets with 4401 (after ``session_expired``) within
    1 s; the other session's socket stays open."""
    user = users["engineer"]
    cookie, other = (
        await database_sync_to_async(session_cookie)(user),
        await database_sync_to_async(session_cookie)(user),
    )
    name, value = cookie.split("=", 1)
    async with Socket(web, cookie) as one, Socket(web, cookie) as two, Socket(web, other) as elsewhere:
        async with httpx.AsyncClient(base_url=web.url, cookies={name: value}, timeout=10) as http:
            assert (await http.get("/accounts/login/")).status_code == 200  # sets the CSRF cookie
            started = time.monotonic()
            answer = await http.post(
                "/accounts/logout/", headers={"X-CSRFToken": http.cookies["csrftoken"], "Origin": web.url}
            )
        assert answer.status_code in (200, 302)
        results = await asyncio.gather(one.closed(), two.closed())
        for frames, code, at in results:
            assert frames == [EXPIRED]
            assert code == 4401
            assert at - started < 1.0, f"closed {at - started:.3f} s after the logout"
        assert await elsewhere.alive()
    print(f"logout → both sockets closed in {max(at for _, _, at in results) - started:.3f} s")  # noqa: T201 - the figure


def _admin_change_form(admin, user) -> tuple[Client, str, dict]:
    """The admin opens the user's change page: (the admin's client, the page URL, its form data with «active»
    unticked)."""
    client = Client()
    client.force_login(admin)
    url = f"/admin/auth/user/{user.pk}/change/"
    data = change_form_data(client.get(url))
    data.pop("is_active", None)
    for field in ("date_joined", "last_login"):  # split date/time widgets: two inputs each
        data.pop(field, None)
        value = getattr(user, field)
        if value is not None:
            local = timezone.localtime(value)
            data[f"{field}_0"], data[f"{field}_1"] = local.strftime("%Y-%m-%d"), local.strftime("%H:%M:%S")
    return client, url, data


def _admin_saves(client: Client, url: str, data: dict) -> int:
    """The admin saves the change form (a real admin form post); the status code (302 when saved)."""
    answer = client.post(url, data)
    assert answer.status_code == 302, answer.context["adminform"].form.errors if answer.context else answer.status_code
    return answer.status_code


def _change_password(user) -> None:
    user.set_password("a-new-password")
    user.save()


@pytest.mark.processes
@pytest.mark.parametrize("change", ["deactivate", "password"])
async def test_deactivation_or_password_change_closes_the_users_sockets_within_a_second(web, users, change):
    """The admin deactivates the user (admin change form), or the password changes: every socket of the user
    is closed with 4401 within 1 s; another user's socket stays open."""
    user, bystander = users["engineer"], users["analyst"]
    admin = await database_sync_to_async(get_user_model().objects.create_superuser)("root", "root@example.test", "pw")
    cookie = await database_sync_to_async(session_cookie)(user)
    async with (
        Socket(web, cookie) as one,
        Socket(web, await database_sync_to_async(session_cookie)(bystander)) as other,
    ):
        if change == "deactivate":
            form = await sync_to_async(_admin_change_form)(admin, user)
            started = time.monotonic()
            assert await sync_to_async(_admin_saves)(*form) == 302
        else:
            started = time.monotonic()
            await database_sync_to_async(_change_password)(user)
        frames, code, at = await one.closed()
        assert frames == [EXPIRED]
        assert code == 4401
        assert at - started < 1.0, f"closed {at - started:.3f} s after the change"
        assert await other.alive()
    print(f"{change} → socket closed in {at - started:.3f} s")  # noqa: T201 - the figure


@pytest.mark.processes
async def test_an_expiring_session_closes_its_socket_on_time(web, users):
    """A session that expires 2 s from now: its socket is closed with 4401 within 1 s of the expiry."""
    user = users["engineer"]
    cookie = await database_sync_to_async(session_cookie)(user)
    expires = timezone.now() + timedelta(seconds=2)
    await Session.objects.filter(session_key=cookie.split("=", 1)[1]).aupdate(expire_date=expires)
    async with Socket(web, cookie) as one:
        frames, code, at = await one.closed(wait_s=10)
    late_s = (timezone.now() - expires).total_seconds() - (time.monotonic() - at)
    assert frames == [EXPIRED]
    assert code == 4401
    assert 0 <= late_s < 1.0, f"closed {late_s:.3f} s after the expiry"
