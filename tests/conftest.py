"""Shared fixtures: policy defaults, demo users, the local Superset pair, WebSocket connections."""

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from hypothesis import settings as hypothesis_settings

from tests import superset_api

# Property tests check behaviour, not speed: on a loaded 2-core machine one example can take > 200 ms.
hypothesis_settings.register_profile("agentchat", deadline=None)
hypothesis_settings.load_profile("agentchat")

ORIGIN = b"http://localhost"
HOST = b"localhost"


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Tests close each connection after its unit of work (``CONN_MAX_AGE`` 0): async tests run database calls in
    worker threads, whose persistent connections would outlive the test database and block its removal."""
    from django.db import connections

    connections.settings["default"]["CONN_MAX_AGE"] = 0


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    """Hashing demo passwords with PBKDF2 costs ~0.3 s per user; tests need no strong hashes."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session")
def superset_stack():
    """The local Superset pair must be up (``make test`` runs ``python -m scripts.devstack up`` first)."""
    down = [env for env in ("ss-dev", "prod") if not superset_api.is_up(env)]
    if down:
        pytest.fail(f"local Superset not running for {down}: run `make superset`", pytrace=False)
    return superset_api


@pytest.fixture
def energy_dashboard(superset_stack) -> dict:
    """The seeded «Отчёт по энергопотреблению» dashboard in ss-dev, as Superset has it."""
    return superset_stack.dashboard_by_slug("ss-dev", "energy-report")


def _ensure_defaults():
    # Transactional tests flush the tables the data migration filled; put the defaults back.
    from django.apps import apps

    from agentchat.runtime.catalogue import sync_tool_catalogue
    from policies.seeding import seed_default_policies, seed_risk_rules

    seed_default_policies(apps)
    seed_risk_rules(apps)
    sync_tool_catalogue()


@pytest.fixture
def policy_defaults(db):
    """Default policy rows of DESIGN §8 and the environments, present for this test."""
    _ensure_defaults()


def make_user(role: str, username: str | None = None):
    user_model = get_user_model()
    user, _ = user_model.objects.get_or_create(username=username or role)
    user.set_password("demo")
    user.save()
    user.groups.set([Group.objects.get(name=role)])
    return user


@pytest.fixture
def users(policy_defaults) -> dict:
    """Users ``analyst``, ``engineer`` and ``admin`` in their groups (password ``demo``)."""
    return {role: make_user(role) for role in ("analyst", "engineer", "admin")}


async def ws_connect(user=None, *, origin: bytes = ORIGIN, host: bytes = HOST):
    """Open a WebsocketCommunicator on the full ASGI app, logged in as ``user`` (anonymous when None)."""
    from channels.testing import WebsocketCommunicator
    from django.test import Client

    from agentchat.asgi import application

    headers = [(b"origin", origin), (b"host", host)]
    if user is not None:
        client = Client()
        await sync_to_async(client.force_login)(user)
        headers.append((b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()))
    communicator = WebsocketCommunicator(application, "/ws/agent/", headers=headers)
    connected, code = await communicator.connect(timeout=10)
    return communicator, connected, code


async def frames_until(communicator, event: str, *, wait_s: float = 60) -> list[dict]:
    """Receive frames until one with ``event`` arrives (inclusive); fail on timeout."""
    frames = []
    while True:
        frame = await communicator.receive_json_from(timeout=wait_s)
        frames.append(frame)
        if frame.get("event") == event:
            return frames


def _database_url() -> str:
    """The URL of the database the test process is using (the pytest-django test database)."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


@pytest.fixture
def task_worker(transactional_db, tmp_path):
    """A real ``manage.py db_worker`` process on the test database (tests using it must be transactional)."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    log = tmp_path / "db_worker.log"
    env = {**os.environ, "DATABASE_URL": _database_url(), "DEBUG": "0"}
    process = subprocess.Popen(
        [
            sys.executable,
            "manage.py",
            "db_worker",
            "--interval",
            "0.1",
            "--no-startup-delay",
            "--no-reload",
            "--queue-name",
            "*",
        ],
        cwd=root,
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    yield process
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
    if process.returncode not in (0, -15, None):
        print(log.read_text()[-3000:])  # noqa: T201 - surfaced in the failing test's output
