"""Shared fixtures (policy defaults, demo users, the local Superset pair and scratch objects in it, a task worker),
the markers that split the suite, and the channel-layer prefix of each parallel worker.

Markers (registered in pyproject.toml; ``make test-fast`` runs what carries none of them):

- ``superset``: the test needs the local Superset pair — set here for every test whose fixture closure holds
  ``superset_stack`` (the fixtures that reach Superset depend on it);
- ``processes``: the test starts processes — set here for every test using ``task_worker`` (db_worker);

tests that reach Superset or start processes (daphne, an embeddings server, lint-imports, a pool of writers)
without those fixtures carry the marker themselves (``pytestmark`` or a decorator);
- ``browser``: the Playwright tests of ``tests/e2e``;
- ``slow``: set by hand on the few tests that take more than 10 s on their own (the fuzz runs).
"""

import inspect
import os
import sqlite3
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import Client
from hypothesis import settings as hypothesis_settings

from tests.support import superset_api
from tests.support.people import SignIns
from tests.support.processes import ROOT, database_url
from tests.support.superset_scratch import SupersetScratch, scratch
from tests.support.users import ensure_policy_defaults, make_user

# Property tests check behaviour, not speed: on a loaded 2-core machine one example can take > 200 ms.
hypothesis_settings.register_profile("agentchat", deadline=None)
hypothesis_settings.load_profile("agentchat")

SUPERSET_FIXTURES = frozenset({"superset_stack"})
PROCESS_FIXTURES = frozenset({"task_worker"})
E2E = Path(__file__).resolve().parent / "e2e"


def pytest_configure(config):
    """Give this pytest-xdist worker its own channel-layer prefix, for itself and the processes it starts.

    Parallel workers share one Redis but each has its own test database, so the same conversation id names
    different conversations: without a prefix per worker, one worker's consumer would receive another's
    card-state events. Settings read only ``CHANNELS_PREFIX``; the worker id is test plumbing and stays here.
    """
    worker = getattr(config, "workerinput", {}).get("workerid")
    if not worker:
        return
    prefix = f"{os.environ.get('CHANNELS_PREFIX') or 'agentchat'}-{worker}"
    os.environ["CHANNELS_PREFIX"] = prefix  # inherited by db_worker and daphne processes (process_env)
    layer = django_settings.CHANNEL_LAYERS["default"]
    if "CONFIG" in layer:  # the Redis layer; no channel layer has been built yet
        layer["CONFIG"]["prefix"] = prefix


def pytest_collection_modifyitems(config, items):
    """Mark ``superset``, ``processes`` and ``browser`` from each test's fixture closure and place.

    Raises ``pytest.UsageError`` for a test whose body reaches Superset through ``superset_api`` without the
    ``superset_stack`` fixture: it would be collected as fast and fail in CI's fast tier, where Superset is not up
    yet (a CI run failed so on three tests of ``tests/turn/test_guided.py``). Browser tests run after ``make
    superset`` (``test-e2e``) and are not checked.
    """
    unmarked = []
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if not fixtures & SUPERSET_FIXTURES and E2E not in item.path.parents and _reaches_superset(item):
            unmarked.append(item.nodeid)
        if fixtures & SUPERSET_FIXTURES:
            item.add_marker(pytest.mark.superset)
        if fixtures & PROCESS_FIXTURES:
            item.add_marker(pytest.mark.processes)
        if E2E in item.path.parents:
            item.add_marker(pytest.mark.browser)
    if unmarked:
        raise pytest.UsageError(f"tests call superset_api without the superset_stack fixture: {sorted(set(unmarked))}")


def _reaches_superset(item) -> bool:
    """Whether the test function's own source calls ``superset_api.`` (helpers it calls are not read)."""
    function = getattr(item, "function", None)
    if function is None:
        return False
    try:
        return "superset_api." in inspect.getsource(function)
    except (OSError, TypeError):
        return False


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix):
    """Tests close each connection after its unit of work (``CONN_MAX_AGE`` 0): async tests run database calls in
    worker threads, whose persistent connections would outlive the test database and block its removal.

    On PostgreSQL the tests use ``tests.support.postgresql``, whose flush after a transactional test deletes rows
    instead of truncating tables (about 0.1 s instead of 1 s per test on the CI machine; see that module).
    """
    from django.db import connections

    database = connections.settings["default"]
    database["CONN_MAX_AGE"] = 0
    if database["ENGINE"] == "django.db.backends.postgresql":
        database["ENGINE"] = "tests.support.postgresql"
        connections["default"].close()
        del connections["default"]  # this thread's wrapper was built with the old engine; the next use rebuilds it


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database's environments (from the data migration) act as the shared service account, committed:
    tests about something else than whom the agent acts as use service mode explicitly, and the executor reads
    them from its own thread's connection. The identity tests switch to password mode (DESIGN §15)."""
    from policies.models import AuthMode, Environment

    with django_db_blocker.unblock():
        Environment.objects.update(auth_mode=AuthMode.SERVICE)


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


@pytest.fixture(name="scratch")
def scratch_objects(superset_stack) -> Iterator[SupersetScratch]:
    """A ``SupersetScratch`` in the local pair; everything it made (and everything tagged) is deleted afterwards."""
    with scratch() as made:
        yield made


@pytest.fixture
def scratch_database(superset_stack, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A SQLite file with one uniquely named table, registered in ss-dev as a uniquely named database.

    Yields ``{"id", "name", "table", "path"}``; afterwards its datasets and the database are deleted.
    """
    suffix = uuid.uuid4().hex[:8]
    path = tmp_path / f"scratch_{suffix}.db"
    table = f"meters_{suffix}"
    with sqlite3.connect(path) as connection:
        connection.execute(f"CREATE TABLE {table} (meter_id INTEGER, reading REAL)")
        connection.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(i, i * 1.5) for i in range(1, 8)])
    name = f"agentchat_test_{suffix}"
    with scratch() as made:
        database_id = made.database("ss-dev", name, f"sqlite:///{path}")
        yield {"id": database_id, "name": name, "table": table, "path": path}


@pytest.fixture
def virtual_dataset(superset_stack) -> Iterator[dict[str, Any]]:
    """A uniquely named virtual dataset on the Energy database in ss-dev only; deleted afterwards."""
    name = f"agentchat_virtual_{uuid.uuid4().hex[:8]}"
    with scratch() as made:
        dataset_id = made.virtual_dataset("ss-dev", name, "SELECT region, population FROM regions", schema="main")
        yield {"id": dataset_id, "name": name}


@pytest.fixture
def policy_defaults(db):
    """Default policy rows of DESIGN §8 and the environments, present for this test."""
    ensure_policy_defaults()


@pytest.fixture
def root_client(policy_defaults) -> Client:
    """A Django test client signed in as a fresh superuser ``root`` (the admin's pages)."""
    client = Client()
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.test", "pw"))
    return client


@pytest.fixture(scope="session")
def superset_sign_ins(superset_stack) -> SignIns:
    """The demo people's sign-ins to the local pair, made once per test process (``tests.support.people``)."""
    return SignIns()


@pytest.fixture
def users(request, policy_defaults) -> dict:
    """Users ``analyst``, ``engineer`` and ``admin`` in their groups (password ``demo``).

    In a test that reaches the local Superset pair they act as themselves, as in the demo (DESIGN §15, issue 13):
    the pair's environments are in ``password`` mode and each user has the password identities a sign-in stores,
    so Superset's own permissions apply (analyst: energy_consumption only; engineer: Alpha; admin: Admin). Tests
    marked ``service_mode`` keep the shared account instead.
    """
    with transaction.atomic():  # one commit in transactional tests
        people = {role: make_user(role) for role in ("analyst", "engineer", "admin")}
    if "superset_stack" in request.fixturenames and request.node.get_closest_marker("service_mode") is None:
        sign_ins: SignIns = request.getfixturevalue("superset_sign_ins")
        with transaction.atomic():
            sign_ins.act_as_people(list(people.values()))
    return people


@pytest.fixture
def backup_dir(tmp_path, monkeypatch, settings, request) -> Path:
    """BACKUP_DIR in a temporary folder for this process and the task worker (started after it is set)."""
    folder = tmp_path / "backups"
    monkeypatch.setenv("BACKUP_DIR", str(folder))
    settings.BACKUP_DIR = folder
    request.getfixturevalue("task_worker")
    return folder


@pytest.fixture
def task_worker(transactional_db, tmp_path):
    """A real ``manage.py db_worker`` process on the test database (tests using it must be transactional)."""
    log = tmp_path / "db_worker.log"
    env = {**os.environ, "DATABASE_URL": database_url(), "DEBUG": "0"}
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
        cwd=ROOT,
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


def pytest_terminal_summary(terminalreporter):
    """Print the counts the fault tests of the production shape recorded (issue 31: the ``fault_counts`` property,
    from pytest-xdist workers too), after the run."""
    lines = [
        value
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for name, value in getattr(report, "user_properties", ())
        if name == "fault_counts"
    ]
    if lines:
        terminalreporter.section("faults on the production shape (issue 31)")
        for line in lines:
            terminalreporter.write_line(line)
