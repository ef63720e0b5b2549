"""The production shape as processes on this machine (issue 31 item 1): N daphne web processes, M ``db_worker``
processes and nginx in front, on the machine's PostgreSQL and Redis, as ``docker/compose.yaml`` runs them.

``ProdLocal(settings).up()`` runs the image's build step and compose's migrate command, creates the demo logins,
starts the processes (each in its own session, so they outlive the command that started them), waits until each
web process and then nginx answer the image's health check, and records the processes in ``state.json`` under the
stack's directory; ``stop()`` (any later invocation) ends what that file names. Tests and ``bench/load`` use the
same class with their own directory, ports, database and environment, and kill or restart single processes.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import httpx

from scripts.prodlocal import nginx
from scripts.prodlocal.compose import REPO_ROOT, Machine, Plan, plan

READY_TIMEOUT_S = 90.0
STOP_TIMEOUT_S = 10.0


class ProdLocalError(RuntimeError):
    """A step of the shape failed; the message names it and the tail of its log."""


@dataclass
class Settings:
    """Where the shape runs. ``from_environment`` reads the ``PROD_LOCAL_*`` variables (README "Production").

    Attributes:
        directory: state, logs, keys, nginx prefix and the data volume (``PROD_LOCAL_DIR``, ``var/prod-local``).
        port: nginx's port on 127.0.0.1 (``PROD_LOCAL_PORT``, 8310).
        web_ports: one port per web process (``PROD_LOCAL_WEB`` processes from ``PROD_LOCAL_WEB_PORT``, 2 from 8311).
        workers: ``db_worker`` processes (``PROD_LOCAL_WORKERS``, 1).
        database_url: the machine's PostgreSQL database (``PROD_LOCAL_DATABASE_URL``, created when missing).
        redis_url: the machine's Redis database (``PROD_LOCAL_REDIS_URL``).
        overrides: variables set on top of the plan's environment (tests and benches: the LLM, the router).
        seed: create the demo logins (``manage.py seed_demo --force``, compose's documented first-start step).
        build: collect the static files first, as the image's build does (tests skip it: WhiteNoise's finders
            serve them from the checkout, and parallel test workers would write the same ``var/static``).
    """

    directory: Path
    port: int
    web_ports: list[int]
    workers: int = 1
    database_url: str = "postgres://postgres@127.0.0.1:5432/agentchat_prodlocal"
    redis_url: str = "redis://127.0.0.1:6379/13"
    overrides: dict[str, str] = field(default_factory=dict)
    seed: bool = True
    build: bool = True

    @classmethod
    def from_environment(cls, *, web: int | None = None, workers: int | None = None) -> Settings:
        """The settings from ``PROD_LOCAL_*`` variables (defaults above); ``web``/``workers`` override the counts."""
        env = os.environ
        count = web if web is not None else int(env.get("PROD_LOCAL_WEB") or 2)
        first = int(env.get("PROD_LOCAL_WEB_PORT") or 8311)
        return cls(
            directory=Path(env.get("PROD_LOCAL_DIR") or REPO_ROOT / "var" / "prod-local"),
            port=int(env.get("PROD_LOCAL_PORT") or 8310),
            web_ports=[first + i for i in range(count)],
            workers=workers if workers is not None else int(env.get("PROD_LOCAL_WORKERS") or 1),
            database_url=env.get("PROD_LOCAL_DATABASE_URL") or cls.database_url,
            redis_url=env.get("PROD_LOCAL_REDIS_URL") or cls.redis_url,
        )


def _start_ticks(pid: int) -> int | None:
    """When process ``pid`` started (clock ticks since boot, ``/proc/<pid>/stat``), or None when it is gone or a
    zombie. Kept with the pid, it tells the process from a later one that reuses the number."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] == "Z" else int(fields[19])


@dataclass
class Process:
    """One process of the shape: its name (``web1``, ``worker1``, ``nginx``), argv, port (0: none), pid and
    start time (``_start_ticks``)."""

    name: str
    argv: list[str]
    port: int = 0
    pid: int | None = None
    started: int | None = None
    popen: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    def alive(self) -> bool:
        """Whether the recorded pid is still this process (running, not reused by another program)."""
        if self.popen is not None and self.popen.poll() is not None:
            return False
        return self.pid is not None and self.started is not None and _start_ticks(self.pid) == self.started


def _secret(path: Path, make: str) -> str:
    """The key kept in ``path`` (mode 0600), made once with ``make`` ("django" or "fernet")."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        value = secrets.token_urlsafe(50)
        if make == "fernet":
            from cryptography.fernet import Fernet  # noqa: PLC0415 - the project's dependency, needed here only

            value = Fernet.generate_key().decode()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(value)
    return path.read_text().strip()


def _split_assignments(command: str) -> tuple[dict[str, str], list[str]]:
    """``("A=1 B=2 cmd arg")`` → ``({"A": "1", "B": "2"}, ["cmd", "arg"])``: a shell command's leading variable
    assignments and its argv (no shell runs it)."""
    words = shlex.split(command)
    assignments: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        assignments[name] = value
    return assignments, words


def database_ensure(url: str) -> None:
    """Create the PostgreSQL database of ``url`` when it does not exist (on the same server)."""
    import psycopg  # noqa: PLC0415 - the project's dependency, needed here only

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')


class ProdLocal:
    """The shape on this machine (see the module's docstring).

    Args:
        settings: where it runs.
    """

    def __init__(self, settings: Settings):
        self.settings = settings
        self.directory = settings.directory
        self.logs = self.directory / "logs"
        self.processes: dict[str, Process] = {}
        self.plan: Plan | None = None

    @property
    def url(self) -> str:
        """nginx's base URL, ``http://127.0.0.1:<port>``."""
        return f"http://127.0.0.1:{self.settings.port}"

    @property
    def state_file(self) -> Path:
        return self.directory / "state.json"

    def environment(self) -> dict[str, str]:
        """Every process's environment: the plan's (Dockerfile + compose, placed on this machine), the virtualenv
        first on ``PATH`` (the image's ``python``/``daphne``), then ``settings.overrides``. Nothing else of the
        caller's environment is passed on, as nothing of the host's reaches a container."""
        base = {key: os.environ[key] for key in ("HOME", "LANG", "TZ") if key in os.environ}
        path = f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        return {**base, "PATH": path, **self._plan().environment, **self.settings.overrides}

    def _plan(self) -> Plan:
        """The plan of ``up`` (read once from the files, the keys made or read).

        Raises:
            ProdLocalError: used before ``up`` read it.
        """
        if self.plan is None:
            raise ProdLocalError("no plan: call up() first")
        return self.plan

    def _make_plan(self) -> Plan:
        keys = self.directory / "keys"
        machine = Machine(
            database_url=self.settings.database_url,
            redis_url=self.settings.redis_url,
            data_dir=self.directory / "data",
            required={
                "DJANGO_SECRET_KEY": _secret(keys / "django_secret_key", "django"),
                "AGENTCHAT_ENCRYPTION_KEYS": _secret(keys / "encryption_key", "fernet"),
            },
        )
        return plan(machine, dict(os.environ))

    # --- steps ------------------------------------------------------------------------------------------------

    def _run(self, name: str, argv: list[str], extra: dict[str, str] | None = None) -> None:
        """Run one step to its end (its output in ``logs/<name>.log``), ``extra`` added to its environment.

        Raises:
            ProdLocalError: it failed (the log's tail is in the message).
        """
        log = self.logs / f"{name}.log"
        with log.open("wb") as out:
            done = subprocess.run(
                argv,
                cwd=REPO_ROOT,
                env={**self.environment(), **(extra or {})},
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if done.returncode != 0:
            tail = log.read_text(errors="replace")[-2000:]
            raise ProdLocalError(f"{name} failed (exit {done.returncode}), {log}:\n{tail}")

    def _spawn(self, process: Process) -> Process:
        log = self.logs / f"{process.name}.log"
        with log.open("ab") as out:
            process.popen = subprocess.Popen(
                process.argv,
                cwd=REPO_ROOT,
                env=self.environment(),
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # outlives `make prod-local`; stopped by pid
            )
        process.pid = process.popen.pid
        process.started = _start_ticks(process.pid)
        self.processes[process.name] = process
        return process

    def _ready(self, process: Process, url: str) -> None:
        """Wait until ``url`` answers 200 (the image's health check).

        Raises:
            ProdLocalError: the process exited or did not answer within ``READY_TIMEOUT_S``.
        """
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if not process.alive():
                break
            try:
                if httpx.get(url, timeout=5, trust_env=False).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        tail = (self.logs / f"{process.name}.log").read_text(errors="replace")[-2000:]
        raise ProdLocalError(f"{process.name} did not become ready at {url}:\n{tail}")

    def web_argv(self, port: int) -> list[str]:
        """The image's web command on ``port``."""
        return [part.replace("{port}", str(port)) for part in self._plan().web]

    def start_web(self, name: str, port: int, *, wait: bool = True) -> Process:
        """Start (or start again) web process ``name`` on ``port``; with ``wait``, until its health check passes."""
        process = self._spawn(Process(name, self.web_argv(port), port))
        if wait:
            self.web_ready(process)
        return process

    def web_ready(self, process: Process) -> None:
        """Wait until web ``process`` answers the image's health check (``_ready``)."""
        self._ready(process, f"http://127.0.0.1:{process.port}{self._plan().health_path}")

    def start_worker(self, name: str) -> Process:
        """Start (or start again) ``db_worker`` process ``name`` (compose's worker command)."""
        return self._spawn(Process(name, list(self._plan().worker)))

    def up(self) -> None:
        """Build, migrate, seed, start every process and wait until nginx answers; record the state.

        Raises:
            ProdLocalError: a step failed or a process did not become ready; what started is stopped again.
        """
        self.logs.mkdir(parents=True, exist_ok=True)
        if self.state_file.exists():
            self.stop()  # a previous shape of this directory
        self.plan = self._make_plan()
        database_ensure(self.settings.database_url)
        if self.settings.build:
            assignments, argv = _split_assignments(self.plan.build)  # `KEY=value … command`, as RUN's shell does
            self._run("build", argv, assignments)
        self._run("migrate", self.plan.migrate)
        if self.settings.seed:
            self._run("seed", ["python", "manage.py", "seed_demo", "--force"])
        try:
            webs = [self.start_web(f"web{i}", port, wait=False) for i, port in enumerate(self.settings.web_ports, 1)]
            for web in webs:  # they start side by side (each imports Django and the app for seconds)
                self.web_ready(web)
            for i in range(1, self.settings.workers + 1):
                self.start_worker(f"worker{i}")
            config = nginx.write(
                prefix=self.directory / "nginx",
                log_dir=self.logs,
                listen=self.settings.port,
                upstreams=self.settings.web_ports,
            )
            balancer = self._spawn(Process("nginx", [nginx.nginx_binary(), "-c", str(config)], self.settings.port))
            self._ready(balancer, f"{self.url}{self.plan.health_path}")
        except BaseException:
            self.stop()
            raise
        self._save()

    def _save(self) -> None:
        state = {
            "url": self.url,
            "processes": [
                {"name": p.name, "argv": p.argv, "port": p.port, "pid": p.pid, "started": p.started}
                for p in self.processes.values()
            ],
        }
        self.state_file.write_text(json.dumps(state, indent=1))

    def load(self) -> None:
        """Read the processes of a shape started by another invocation (``state.json``)."""
        if not self.state_file.exists():
            return
        state = json.loads(self.state_file.read_text())
        self.processes = {
            p["name"]: Process(p["name"], p["argv"], p["port"], p["pid"], p["started"]) for p in state["processes"]
        }

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` to process ``name`` (SIGKILL: a crash, nothing flushed) and reap it."""
        process = self.processes[name]
        if process.pid is not None and process.alive():
            os.kill(process.pid, sig)
        if process.popen is not None:
            process.popen.wait(STOP_TIMEOUT_S)

    def stop(self) -> list[str]:
        """End every recorded process (nginx first, then the web processes and workers): SIGTERM, SIGKILL after
        ``STOP_TIMEOUT_S``. Returns the names it stopped."""
        if not self.processes:
            self.load()
        order = sorted(self.processes.values(), key=lambda p: p.name != "nginx")
        stopped = []
        for process in order:
            if process.alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGQUIT if process.name == "nginx" else signal.SIGTERM)
                stopped.append(process.name)
        deadline = time.monotonic() + STOP_TIMEOUT_S
        for process in order:
            while process.alive() and time.monotonic() < deadline:
                time.sleep(0.1)
            if process.alive() and process.pid is not None:
                os.kill(process.pid, signal.SIGKILL)
            if process.popen is not None:
                process.popen.wait(STOP_TIMEOUT_S)
        self.processes = {}
        self.state_file.unlink(missing_ok=True)
        return stopped

    def webs(self) -> list[Process]:
        """The web processes, in start order."""
        return [p for name, p in self.processes.items() if name.startswith("web")]

    def status(self) -> list[tuple[str, int | None, int, bool]]:
        """``(name, pid, port, alive)`` of every recorded process."""
        if not self.processes:
            self.load()
        return [(p.name, p.pid, p.port, p.alive()) for p in self.processes.values()]
