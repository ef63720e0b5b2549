"""Real processes on loopback for multi-process tests and benches (DESIGN §14): daphne, their databases, a session.

``DaphneProcess`` starts ``python -m daphne`` on a free port with the given environment and waits for ``/healthz``
to answer 200 (so the database, the channel layer and the Superset checks pass before a test uses it); ``kill``
ends it abruptly (SIGKILL, a crashed worker), ``stop`` politely. ``session_cookie`` logs a user in through the
database session store shared by every process. ``database_url`` is the URL of the test process's own database
for the processes a test starts on it (the ``task_worker`` fixture's db_worker, daphne). Django and psycopg are
imported inside the functions that need them: benches use the rest without setting Django up.
"""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

ROOT = Path(__file__).resolve().parents[2]
# As scripts/run_local.sh and docker/Dockerfile start daphne: 8 MiB WebSocket messages reach the app (DESIGN §6).
WS_LIMITS = ("--websocket-max-message-size", "8388608", "--websocket-max-frame-size", "8388608")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url() -> str:
    """The URL of the database the test process is using (the pytest-django test database)."""
    from django.db import connection

    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{db['USER']}{password}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def fresh_database(base_url: str, suffix: str) -> str:
    """Drop and create the PostgreSQL database named like the one of ``base_url`` plus ``suffix`` (``agentchat`` →
    ``agentchat_e2e``) on the same server; return its URL."""
    import psycopg

    parts = urlsplit(base_url)
    name = f"{parts.path.lstrip('/') or 'agentchat'}{suffix}"
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path=f"/{name}"))


class DaphneProcess:
    """One daphne process serving ``agentchat.asgi:application`` (or ``app``) on ``127.0.0.1:<port>``.

    Args:
        env: the full process environment (``DATABASE_URL``, ``REDIS_URL``, ``LLM_*``, …).
        log: file that receives the process's stdout and stderr.
        port: the port; a free one when None (kept across ``start`` calls, so a restart serves the same URL).
        app: the ASGI application path.
        ready_path: polled until it answers 200 (``/healthz`` for agentchat).
    """

    def __init__(
        self,
        env: dict[str, str],
        log: Path,
        *,
        port: int | None = None,
        app: str = "agentchat.asgi:application",
        ready_path: str = "/healthz",
    ):
        self.env = env
        self.log = log
        self.port = port or free_port()
        self.app = app
        self.ready_path = ready_path
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self, timeout_s: float = 60) -> "DaphneProcess":
        """Start the process and wait until ``ready_path`` answers 200.

        Raises:
            RuntimeError: it exited or did not become ready within ``timeout_s`` (the log's tail is included).
        """
        self.log.parent.mkdir(parents=True, exist_ok=True)
        command = [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), *WS_LIMITS, self.app]
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(command, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                if httpx.get(self.url + self.ready_path, timeout=5).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        tail = self.log.read_text(errors="replace")[-3000:]
        self.kill()
        raise RuntimeError(f"daphne on :{self.port} did not become ready:\n{tail}")

    def kill(self) -> None:
        """SIGKILL the process (a crash: nothing is flushed or closed) and reap it."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def process_env(**overrides: str) -> dict[str, str]:
    """The current environment plus ``overrides`` (DEBUG off, as in production)."""
    return {**os.environ, "DEBUG": "0", "DJANGO_SETTINGS_MODULE": "agentchat.settings", **overrides}


def session_cookie(user) -> str:
    """Log ``user`` in through the database session store; return the ``Cookie`` header value."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"
