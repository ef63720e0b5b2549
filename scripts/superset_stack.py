"""Local Apache Superset stack for the demo (``make run``), the tests and CI.

Two Superset 6.1 instances run from one dedicated virtualenv: ``ss-dev`` on http://127.0.0.1:8088 and ``prod``
on http://127.0.0.1:8089, each with its own home directory (SQLite metadata database, secret key, logs, pid
file) and the same demo content, seeded through the REST API only.

Usage::

    python scripts/superset_stack.py install   # create the Superset virtualenv (skipped when up to date)
    python scripts/superset_stack.py start     # set up (first time) and start both instances
    python scripts/superset_stack.py seed      # create the demo data and objects (idempotent)
    python scripts/superset_stack.py up        # install + start + seed; seconds when all is up already
    python scripts/superset_stack.py status    # running or not, URL, dashboard count
    python scripts/superset_stack.py stop      # stop the instances this script started

Environment variables:

- ``AGENTCHAT_CACHE``: cache root (default ``~/.cache/agentchat``); the virtualenv is
  ``$AGENTCHAT_CACHE/superset-venv-<12 hex of sha256(requirements/superset.txt)>``, shared by every clone.
- ``SUPERSET_VENV``: use this virtualenv path instead.
- ``SUPERSET_STACK_DIR``: parent of the instance directories (default ``<repo>/var/superset``).
- ``SUPERSET_ADMIN_PASSWORD``: password of the ``admin`` user (default ``admin``), set when an instance is
  created and used to log in.
- ``SUPERSET_BIND_HOST``: address the instances listen on (default ``127.0.0.1``; ``0.0.0.0`` in a container).

Only the standard library and ``httpx`` are used, so the script runs with the project's virtualenv (or any
Python 3.11 with httpx) and never imports Django. The functions below are the same operations for tests.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import datetime as dt
import fcntl
import hashlib
import json
import math
import os
import random
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

try:
    import httpx
except ImportError:  # ``install`` needs only the standard library: make runs it beside the project's pip install
    httpx = None

REPO_ROOT = Path(__file__).resolve().parent.parent
REQUIREMENTS_FILE = REPO_ROOT / "requirements" / "superset.txt"
CONFIG_FILE = REPO_ROOT / "scripts" / "superset_config.py"

ADMIN_USERNAME = "admin"
HEALTH_TIMEOUT_S = 120.0
INSTALL_MARKER = ".agentchat-superset-installed"
SETUP_MARKER = ".setup-done"

ENERGY_DASHBOARD_TITLE = "Отчёт по энергопотреблению"
ENERGY_DASHBOARD_SLUG = "energy-report"
REGIONS_DASHBOARD_TITLE = "Обзор регионов"
REGIONS_DASHBOARD_SLUG = "regions-overview"
DATABASE_NAME = "Energy"


class StackError(RuntimeError):
    """A stack operation failed; the message says what and where to look (log tail included)."""


@dataclass(frozen=True)
class Instance:
    """One local Superset instance.

    Attributes:
        name: instance name, also the environment id used by the project (``ss-dev``, ``prod``).
        port: TCP port on 127.0.0.1.
    """

    name: str
    port: int

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:8088`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def home(self) -> Path:
        """The instance directory: ``$SUPERSET_STACK_DIR/<name>`` (default ``<repo>/var/superset/<name>``)."""
        return stack_dir() / self.name

    @property
    def pid_file(self) -> Path:
        """File holding the pid (= process group id) of the ``superset run`` process this script started."""
        return self.home / "superset.pid"

    @property
    def log_file(self) -> Path:
        """Log of the running web server (rewritten at each start)."""
        return self.home / "superset.log"

    @property
    def setup_log_file(self) -> Path:
        """Log of the one-time setup (db upgrade, create-admin, init)."""
        return self.home / "setup.log"

    @property
    def energy_db(self) -> Path:
        """The SQLite data file registered in Superset as the ``Energy`` database."""
        return self.home / "energy.db"


INSTANCES: tuple[Instance, ...] = (Instance("ss-dev", 8088), Instance("prod", 8089))


_PRINT_LOCK = threading.Lock()


def _log(message: str) -> None:
    """Print one progress line at once (the script runs under make and CI; threads print whole lines)."""
    with _PRINT_LOCK:
        print(message, flush=True)


# ------------------------------------------------------------------------------------------------------------
# Paths and settings


def stack_dir() -> Path:
    """Return the parent directory of the instance directories.

    Returns:
        ``$SUPERSET_STACK_DIR`` if set, else ``<repo>/var/superset``; absolute.
    """
    configured = os.environ.get("SUPERSET_STACK_DIR")
    return Path(configured).expanduser().resolve() if configured else REPO_ROOT / "var" / "superset"


def admin_password() -> str:
    """Return the admin password: ``$SUPERSET_ADMIN_PASSWORD`` or ``admin``."""
    return os.environ.get("SUPERSET_ADMIN_PASSWORD") or "admin"


def instance_urls() -> dict[str, str]:
    """Return the base URL of each instance by name, e.g. ``{"ss-dev": "http://127.0.0.1:8088", ...}``."""
    return {inst.name: inst.url for inst in INSTANCES}


def requirements_hash() -> str:
    """Return the full sha256 hex digest of ``requirements/superset.txt``.

    Raises:
        StackError: the requirements file is missing.
    """
    try:
        return hashlib.sha256(REQUIREMENTS_FILE.read_bytes()).hexdigest()
    except FileNotFoundError:
        raise StackError(f"{REQUIREMENTS_FILE} is missing") from None


def venv_dir() -> Path:
    """Return the Superset virtualenv directory.

    Returns:
        ``$SUPERSET_VENV`` if set, else ``${AGENTCHAT_CACHE:-~/.cache/agentchat}/superset-venv-<hash12>``
        where hash12 is the first 12 hex digits of the requirements file's sha256.
    """
    configured = os.environ.get("SUPERSET_VENV")
    if configured:
        return Path(configured).expanduser().resolve()
    cache = Path(os.environ.get("AGENTCHAT_CACHE") or "~/.cache/agentchat").expanduser().resolve()
    return cache / f"superset-venv-{requirements_hash()[:12]}"


@contextlib.contextmanager
def _file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the ``with`` block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _tail(path: Path, lines: int = 40) -> str:
    """Return the last ``lines`` lines of a text file, or a note that it does not exist."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return f"({path} does not exist)"
    return "\n".join(text.splitlines()[-lines:])


# ------------------------------------------------------------------------------------------------------------
# install


def install() -> Path:
    """Create the Superset virtualenv and install ``requirements/superset.txt`` into it, once per hash.

    Skipped when the marker file in the virtualenv holds the current requirements hash. A half-done
    virtualenv (no marker) is removed and made again. Concurrent calls (two clones) wait on a file lock.
    Takes about 1-2 minutes the first time.

    Returns:
        The virtualenv directory.

    Raises:
        StackError: venv creation or ``pip install`` failed (the pip log tail is in the message).
    """
    digest = requirements_hash()
    venv = venv_dir()
    marker = venv / INSTALL_MARKER
    if _marker_matches(marker, digest):
        _log(f"install: Superset virtualenv up to date ({venv})")
        return venv
    with _file_lock(venv.with_name(venv.name + ".lock")):
        if _marker_matches(marker, digest):
            _log(f"install: Superset virtualenv up to date ({venv})")
            return venv
        if venv.exists():
            _log(f"install: removing incomplete virtualenv {venv}")
            shutil.rmtree(venv)
        started = time.monotonic()
        _log(f"install: creating virtualenv {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        log_path = venv / "install.log"
        requirements = REQUIREMENTS_FILE.relative_to(REPO_ROOT)
        _log(f"install: pip install -r {requirements} (1-2 minutes; log {log_path})")
        python = str(venv / "bin" / "python")
        cmd = [
            python,
            "-m",
            "pip",
            "install",
            "--no-input",
            "--disable-pip-version-check",
            "-r",
            str(REQUIREMENTS_FILE),
        ]
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            while True:
                try:
                    code = proc.wait(timeout=30)
                    break
                except subprocess.TimeoutExpired:
                    _log(f"install: still installing ({time.monotonic() - started:.0f} s)")
        if code != 0 or not (venv / "bin" / "superset").exists():
            raise StackError(f"pip install failed (exit {code}); end of {log_path}:\n{_tail(log_path)}")
        marker.write_text(digest + "\n")
        _log(f"install: done in {time.monotonic() - started:.0f} s")
    return venv


def _marker_matches(marker: Path, digest: str) -> bool:
    """Return whether ``marker`` exists and holds ``digest``."""
    try:
        return marker.read_text().strip() == digest
    except FileNotFoundError:
        return False


# ------------------------------------------------------------------------------------------------------------
# start


def _secret_key(inst: Instance) -> str:
    """Return the instance's SECRET_KEY, generating it once (random, file mode 0600, outside git)."""
    path = inst.home / "secret_key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        os.chmod(path, 0o600)
        key = path.read_text().strip()
        if key:
            return key
        raise StackError(f"{path} is empty: delete it and the instance's superset.db") from None
    key = secrets.token_urlsafe(48)
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key


def _superset_env(inst: Instance) -> dict[str, str]:
    """Return the environment for ``superset`` commands of this instance (config path, secret, DB path)."""
    dropped = {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "FLASK_DEBUG"}
    env = {key: value for key, value in os.environ.items() if key not in dropped}
    env.update(
        FLASK_APP="superset",
        SUPERSET_CONFIG_PATH=str(CONFIG_FILE),
        SUPERSET_HOME=str(inst.home),
        SUPERSET_METADATA_DB=str(inst.home / "superset.db"),
        SUPERSET_SECRET_KEY=_secret_key(inst),
        PYTHONUNBUFFERED="1",
    )
    return env


# Runs db upgrade, fab create-admin and init in one interpreter: importing Superset costs ~8 s per command.
_SETUP_CODE = """
import os
from superset.cli.main import superset
password = os.environ.pop("_STACK_ADMIN_PASSWORD")
for args in (
    ["db", "upgrade"],
    ["fab", "create-admin", "--username", "admin", "--firstname", "Admin", "--lastname", "User",
     "--email", "admin@example.com", "--password", password],
    ["init"],
):
    print("=== superset " + " ".join(args[:2]), flush=True)
    superset.main(args, standalone_mode=False)
"""


def _setup(inst: Instance, venv: Path, digest: str) -> None:
    """Run the one-time setup of an instance (metadata DB migration, admin user, roles), unless done already.

    The marker holds the requirements hash, so a new Superset pin re-runs the (idempotent) setup.

    Raises:
        StackError: a setup command failed (the setup log tail is in the message).
    """
    marker = inst.home / SETUP_MARKER
    if _marker_matches(marker, digest):
        return
    _log(f"[{inst.name}] first-time setup: db upgrade, create-admin, init (~30 s; log {inst.setup_log_file})")
    started = time.monotonic()
    env = _superset_env(inst) | {"_STACK_ADMIN_PASSWORD": admin_password()}
    with open(inst.setup_log_file, "w") as log:
        code = subprocess.call(
            [str(venv / "bin" / "python"), "-c", _SETUP_CODE],
            cwd=inst.home,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    if code != 0:
        raise StackError(
            f"[{inst.name}] setup failed (exit {code}); last lines of {inst.setup_log_file}:\n"
            f"{_tail(inst.setup_log_file)}"
        )
    marker.write_text(digest + "\n")
    _log(f"[{inst.name}] setup done in {time.monotonic() - started:.0f} s")


def _need_httpx() -> None:
    if httpx is None:
        raise StackError("httpx is missing: run this command with the project's .venv/bin/python")


def _health_ok(inst: Instance, timeout: float = 2.0) -> bool:
    """Return whether ``GET /health`` answers 200 ``OK``."""
    _need_httpx()
    try:
        response = httpx.get(f"{inst.url}/health", timeout=timeout, trust_env=False)
    except httpx.HTTPError:
        return False
    return response.status_code == 200 and response.text.strip() == "OK"


def _port_open(inst: Instance) -> bool:
    """Return whether anything accepts TCP connections on the instance's port."""
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex(("127.0.0.1", inst.port)) == 0


def _read_pid(inst: Instance) -> int | None:
    """Return the pid from the instance's pid file if that process is alive and is a Superset server."""
    try:
        pid = int(inst.pid_file.read_text().strip())
    except (FileNotFoundError, ValueError):
        return None
    return pid if _is_our_server(pid) else None


def _is_our_server(pid: int) -> bool:
    """Return whether ``pid`` is alive (not a zombie) and runs ``superset run`` (guards against pid reuse)."""
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, os.WNOHANG)  # reap it if it is our own exited child
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    if "\nState:\tZ" in status:
        return False
    return any(part.endswith(b"superset") for part in cmdline) and b"run" in cmdline


def _wait_healthy(inst: Instance, proc: subprocess.Popen[bytes] | None, pid: int) -> None:
    """Wait until the instance answers ``/health``.

    Args:
        inst: the instance.
        proc: the server process if this call started it (to notice an early exit), else None.
        pid: its pid.

    Raises:
        StackError: the server exited or did not answer within ``HEALTH_TIMEOUT_S`` seconds (with log tail).
    """
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline:
        if _health_ok(inst):
            return
        exited = proc.poll() is not None if proc is not None else not _is_our_server(pid)
        if exited:
            raise StackError(
                f"[{inst.name}] superset exited at start-up; end of {inst.log_file}:\n{_tail(inst.log_file)}"
            )
        time.sleep(0.5)
    raise StackError(
        f"[{inst.name}] {inst.url}/health did not answer within {HEALTH_TIMEOUT_S:.0f} s (pid {pid}); "
        f"last lines of {inst.log_file}:\n{_tail(inst.log_file)}"
    )


def _start_instance(inst: Instance, venv: Path, digest: str) -> str:
    """Set up (first time) and start one instance, or reuse the one already answering on its port.

    Returns:
        ``"reused"`` or ``"started"``.

    Raises:
        StackError: the port is taken by something that is not this Superset, setup or start-up failed.
    """
    if _health_ok(inst):
        try:
            with SupersetClient(inst):
                pass
        except StackError as exc:
            raise StackError(
                f"[{inst.name}] {inst.url} answers /health but admin login fails ({exc}); stop it or set "
                "SUPERSET_ADMIN_PASSWORD"
            ) from None
        _log(f"[{inst.name}] already running at {inst.url}, reusing it")
        return "reused"
    pid = _read_pid(inst)
    if pid is not None:
        _log(f"[{inst.name}] server (pid {pid}) is starting, waiting for {inst.url}/health")
        _wait_healthy(inst, None, pid)
        return "reused"
    if _port_open(inst):
        raise StackError(f"[{inst.name}] port {inst.port} is taken by something else than a healthy Superset")
    inst.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    _setup(inst, venv, digest)
    started = time.monotonic()
    superset = str(venv / "bin" / "superset")
    # SUPERSET_BIND_HOST=0.0.0.0 serves other containers too (docker/compose.yaml); the script still uses loopback.
    host = os.environ.get("SUPERSET_BIND_HOST") or "127.0.0.1"
    cmd = [superset, "run", "-p", str(inst.port), "--host", host, "--with-threads"]
    with open(inst.log_file, "w") as log:
        proc = subprocess.Popen(
            cmd,
            cwd=inst.home,
            env=_superset_env(inst),
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    inst.pid_file.write_text(f"{proc.pid}\n")
    _log(f"[{inst.name}] starting superset on {inst.url} (pid {proc.pid}, log {inst.log_file})")
    _wait_healthy(inst, proc, proc.pid)
    _log(f"[{inst.name}] up at {inst.url} after {time.monotonic() - started:.0f} s")
    return "started"


def _ensure_stack_dir() -> None:
    """Create the stack directory with a ``.gitignore`` so secrets, databases and logs never reach git."""
    root = stack_dir()
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Local Superset instances (secrets, databases, logs): never commit.\n*\n")


def start() -> dict[str, str]:
    """Set up and start both instances in parallel (reusing any that already run), waiting for ``/health``.

    Needs the virtualenv (``install()``); does not install it.

    Returns:
        ``{instance name: "started" | "reused"}``.

    Raises:
        StackError: the virtualenv is missing or an instance could not be started.
    """
    venv = venv_dir()
    digest = requirements_hash()
    if not _marker_matches(venv / INSTALL_MARKER, digest):
        raise StackError(f"Superset is not installed in {venv}: run `scripts/superset_stack.py install`")
    _ensure_stack_dir()
    with _file_lock(stack_dir() / ".lock"):
        return _run_parallel(lambda inst: _start_instance(inst, venv, digest))


def _run_parallel(func: Callable[[Instance], Any]) -> dict[str, Any]:
    """Run ``func(instance)`` for every instance in parallel threads; re-raise the first failure."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(INSTANCES)) as pool:
        futures = {inst.name: pool.submit(func, inst) for inst in INSTANCES}
        results, errors = {}, []
        for name, future in futures.items():
            try:
                results[name] = future.result()
            except Exception as exc:  # collected, re-raised below
                errors.append(exc)
    if errors:
        if len(errors) == 1:
            raise errors[0]
        raise StackError("\n\n".join(str(err) for err in errors))
    return results


# ------------------------------------------------------------------------------------------------------------
# stop and status


def stop() -> dict[str, str]:
    """Stop the instances this script started (by pid file): SIGTERM to the process group, wait, then SIGKILL.

    No error when an instance is not running; a server not started by this script is left alone.

    Returns:
        ``{instance name: "stopped" | "not running"}``.
    """
    results = {}
    for inst in INSTANCES:
        pid = _read_pid(inst)
        if pid is None:
            inst.pid_file.unlink(missing_ok=True)
            _log(f"[{inst.name}] not running (no server started by this script)")
            results[inst.name] = "not running"
            continue
        _signal_group(pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while _is_our_server(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _is_our_server(pid):
            _log(f"[{inst.name}] pid {pid} ignored SIGTERM for 15 s, killing it")
            _signal_group(pid, signal.SIGKILL)
            while _is_our_server(pid) and time.monotonic() < deadline + 5:
                time.sleep(0.2)
        inst.pid_file.unlink(missing_ok=True)
        _log(f"[{inst.name}] stopped (pid {pid})")
        results[inst.name] = "stopped"
    return results


def _signal_group(pid: int, sig: signal.Signals) -> None:
    """Send ``sig`` to the process group led by ``pid`` (falling back to the process alone)."""
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def status() -> dict[str, dict[str, Any]]:
    """Print and return the state of each instance.

    Returns:
        ``{name: {"running": bool, "url": str, "pid": int | None, "dashboards": int | None}}``; the dashboard
        count is None when the instance is down or admin login fails.
    """
    results: dict[str, dict[str, Any]] = {}
    for inst in INSTANCES:
        running = _health_ok(inst)
        dashboards = None
        if running:
            with contextlib.suppress(StackError, httpx.HTTPError):
                with SupersetClient(inst) as client:
                    dashboards = client.get("/api/v1/dashboard/", params={"q": "(page_size:1)"})["count"]
        pid = _read_pid(inst)
        results[inst.name] = {"running": running, "url": inst.url, "pid": pid, "dashboards": dashboards}
        state = "running" if running else "not running"
        extra = f", pid {pid}" if pid else (", not started by this script" if running else "")
        count = f", {dashboards} dashboards" if dashboards is not None else ""
        _log(f"{inst.name:7} {state:11} {inst.url}{count}{extra}")
    return results


# ------------------------------------------------------------------------------------------------------------
# REST client


def rison(value: Any) -> str:
    """Encode a JSON-like value as Rison (the ``q`` parameter format of Superset's list endpoints).

    Args:
        value: dict, list, str, int, float, bool or None.

    Returns:
        The Rison text; strings are always quoted, which every Rison parser accepts.
    """
    if value is None:
        return "!n"
    if value is True:
        return "!t"
    if value is False:
        return "!f"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return "'" + value.replace("!", "!!").replace("'", "!'") + "'"
    if isinstance(value, (list, tuple)):
        return "!(" + ",".join(rison(item) for item in value) + ")"
    if isinstance(value, dict):
        return "(" + ",".join(f"{rison(str(k))}:{rison(v)}" for k, v in value.items()) + ")"
    raise TypeError(f"cannot encode {type(value).__name__} as Rison")


class SupersetClient:
    """A logged-in REST client for one instance (JWT bearer; CSRF is off in the local config).

    Use as a context manager. Methods return the decoded JSON body and raise ``StackError`` with the status
    and body on any non-2xx answer.
    """

    def __init__(self, inst: Instance, timeout: float = 60.0) -> None:
        """Log in as admin.

        Args:
            inst: the instance.
            timeout: per-request timeout in seconds.

        Raises:
            StackError: login failed.
        """
        _need_httpx()
        self.inst = inst
        self.http = httpx.Client(base_url=inst.url, timeout=timeout, trust_env=False)  # loopback: no proxy
        body = {"username": ADMIN_USERNAME, "password": admin_password(), "provider": "db", "refresh": True}
        try:
            token = self._request("POST", "/api/v1/security/login", json=body)["access_token"]
        except Exception:
            self.http.close()
            raise
        self.http.headers["Authorization"] = f"Bearer {token}"

    def __enter__(self) -> SupersetClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.http.close()

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise StackError(f"[{self.inst.name}] {method} {path}: {exc}") from exc
        if response.status_code >= 300:
            answer = f"{response.status_code}: {response.text[:1000]}"
            raise StackError(f"[{self.inst.name}] {method} {path} -> {answer}")
        return response.json() if response.content else None

    def get(self, path: str, **kwargs: Any) -> Any:
        """GET ``path`` and return the JSON body."""
        return self._request("GET", path, **kwargs)

    def post(self, path: str, body: dict[str, Any]) -> Any:
        """POST a JSON body to ``path`` and return the JSON answer."""
        return self._request("POST", path, json=body)

    def put(self, path: str, body: dict[str, Any]) -> Any:
        """PUT a JSON body to ``path`` and return the JSON answer."""
        return self._request("PUT", path, json=body)

    def find(self, resource: str, **equals: Any) -> list[dict[str, Any]]:
        """List objects of a resource whose columns equal the given values.

        Args:
            resource: ``database``, ``dataset``, ``chart`` or ``dashboard``.
            equals: column name → value, each an ``eq`` filter (e.g. ``slug="energy-report"``).

        Returns:
            The matching rows (first 100).
        """
        filters = [{"col": col, "opr": "eq", "value": value} for col, value in equals.items()]
        query = rison({"filters": filters, "page_size": 100})
        return self.get(f"/api/v1/{resource}/", params={"q": query})["result"]


# ------------------------------------------------------------------------------------------------------------
# Demo data (SQLite)

# region, federal district, population (Rosstat, 1 January 2024, rounded)
REGIONS: tuple[tuple[str, str, int], ...] = (
    ("Москва", "Центральный", 13_150_000),
    ("Санкт-Петербург", "Северо-Западный", 5_600_000),
    ("Краснодарский край", "Южный", 5_820_000),
    ("Республика Татарстан", "Приволжский", 4_000_000),
    ("Свердловская область", "Уральский", 4_240_000),
    ("Новосибирская область", "Сибирский", 2_780_000),
)
# source → tariff in roubles per MWh (2024)
SOURCES: dict[str, float] = {"Газ": 2900.0, "Уголь": 2600.0, "Атом": 2300.0, "Гидро": 1600.0, "ВИЭ": 4800.0}
# region → share of each source in its supply (sums to 1)
SOURCE_MIX: dict[str, dict[str, float]] = {
    "Москва": {"Газ": 0.72, "Уголь": 0.03, "Атом": 0.17, "Гидро": 0.05, "ВИЭ": 0.03},
    "Санкт-Петербург": {"Газ": 0.55, "Уголь": 0.02, "Атом": 0.33, "Гидро": 0.07, "ВИЭ": 0.03},
    "Краснодарский край": {"Газ": 0.60, "Уголь": 0.05, "Атом": 0.15, "Гидро": 0.10, "ВИЭ": 0.10},
    "Республика Татарстан": {"Газ": 0.80, "Уголь": 0.02, "Атом": 0.08, "Гидро": 0.08, "ВИЭ": 0.02},
    "Свердловская область": {"Газ": 0.58, "Уголь": 0.27, "Атом": 0.10, "Гидро": 0.02, "ВИЭ": 0.03},
    "Новосибирская область": {"Газ": 0.20, "Уголь": 0.55, "Атом": 0.00, "Гидро": 0.22, "ВИЭ": 0.03},
}
DATA_START_YEAR = 2024
DATA_YEARS = 2


def _decades() -> Iterator[tuple[dt.date, int]]:
    """Yield (first day, length in days) of each ten-day period («декада»: 1-10, 11-20, 21-end of month)."""
    for year in range(DATA_START_YEAR, DATA_START_YEAR + DATA_YEARS):
        for month in range(1, 13):
            next_month = dt.date(year + month // 12, month % 12 + 1, 1)
            month_days = (next_month - dt.date(year, month, 1)).days
            for first, length in ((1, 10), (11, 10), (21, month_days - 20)):
                yield dt.date(year, month, first), length


def build_energy_db(path: Path) -> int:
    """Create the demo SQLite data file (deterministic: fixed random seed), atomically.

    Tables: ``energy_consumption(date, region, source, consumption_mwh, cost_rub)``: consumption of each
    region from each of its sources per ten-day period («декада», ``date`` = its first day) over 2024-2025
    (2,088 rows), with a winter peak, a small growth trend, tariff inflation and noise; and
    ``regions(region, federal_district, population)`` (6 rows).

    Args:
        path: target file; replaced atomically (written beside it, then renamed).

    Returns:
        The number of ``energy_consumption`` rows.
    """
    rng = random.Random(20240101)
    rows = []
    for day, length in _decades():
        years = (day - dt.date(DATA_START_YEAR, 1, 1)).days / 365.25
        season = 1 + 0.22 * math.cos(2 * math.pi * (day.timetuple().tm_yday + length / 2 - 20) / 365.25)
        trend = 1 + 0.015 * years
        inflation = 1 + 0.09 * years
        for region, _district, population in REGIONS:
            total = population * 7.1 / 365.25 * length * season * trend  # ~7.1 MWh per person and year
            for source, tariff in SOURCES.items():
                share = SOURCE_MIX[region][source]
                if share == 0:
                    continue
                mwh = round(total * share * rng.gauss(1.0, 0.03), 1)
                cost = round(mwh * tariff * inflation * rng.gauss(1.0, 0.02), 2)
                rows.append((day.isoformat(), region, source, mwh, cost))
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(tmp)) as conn, conn:
        conn.executescript(
            """
            CREATE TABLE energy_consumption (
                date DATE NOT NULL,
                region TEXT NOT NULL,
                source TEXT NOT NULL,
                consumption_mwh REAL NOT NULL,
                cost_rub REAL NOT NULL
            );
            CREATE TABLE regions (
                region TEXT PRIMARY KEY,
                federal_district TEXT NOT NULL,
                population INTEGER NOT NULL
            );
            """
        )
        conn.executemany("INSERT INTO energy_consumption VALUES (?, ?, ?, ?, ?)", rows)
        conn.executemany("INSERT INTO regions VALUES (?, ?, ?)", REGIONS)
    os.replace(tmp, path)
    return len(rows)


def _energy_file_ok(path: Path) -> bool:
    """True when ``path`` is an SQLite file whose ``energy_consumption`` table has rows."""
    if not path.is_file():
        return False
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(path)) as conn:
        return conn.execute("SELECT count(*) FROM energy_consumption").fetchone()[0] > 0
    return False


def _ensure_energy_db(inst: Instance) -> bool:
    """Create the instance's ``energy.db`` unless a complete one exists. Returns whether it was created."""
    path = inst.energy_db
    if _energy_file_ok(path):
        return False
    inst.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    build_energy_db(path)
    return True


# ------------------------------------------------------------------------------------------------------------
# Demo objects (REST API)


def _metric(column: str, label: str, aggregate: str = "SUM") -> dict[str, Any]:
    """Return an ad-hoc SIMPLE metric ``aggregate(column)`` labelled ``label``, as the explore UI saves it."""
    return {
        "expressionType": "SIMPLE",
        "column": {"column_name": column},
        "aggregate": aggregate,
        "label": label,
        "hasCustomLabel": True,
        "optionName": f"metric_{aggregate.lower()}_{column}",
        "sqlExpression": None,
    }


CONSUMPTION = _metric("consumption_mwh", "Потребление, МВт·ч")


def _query_context(dataset_id: int, params: dict[str, Any], query: dict[str, Any]) -> dict[str, Any]:
    """Return a chart's saved ``query_context`` (what ``GET /api/v1/chart/<id>/data/`` runs).

    Args:
        dataset_id: the chart's dataset.
        params: the chart's form data (saved as ``params`` too).
        query: the one query object (columns, metrics, orderby, row_limit, post_processing ...).
    """
    base_query = {
        "filters": [],
        "extras": {"having": "", "where": ""},
        "applied_time_extras": {},
        "orderby": [],
        "annotation_layers": [],
        "row_limit": 10000,
        "series_limit": 0,
        "order_desc": True,
        "url_params": {},
        "custom_params": {},
        "custom_form_data": {},
        "time_range": "No filter",
    }
    return {
        "datasource": {"id": dataset_id, "type": "table"},
        "force": False,
        "queries": [base_query | query],
        "form_data": params,
        "result_format": "json",
        "result_type": "full",
    }


def _chart_specs(datasets: dict[str, int]) -> list[dict[str, Any]]:
    """Return the demo charts: name, dataset, viz type, description, form data and query context.

    Args:
        datasets: dataset id by table name (``energy_consumption``, ``regions``).
    """
    energy, regions = datasets["energy_consumption"], datasets["regions"]
    common = {"adhoc_filters": [], "color_scheme": "supersetColors", "extra_form_data": {}, "dashboards": []}
    label = CONSUMPTION["label"]

    line = common | {
        "datasource": f"{energy}__table",
        "viz_type": "echarts_timeseries_line",
        "x_axis": "date",
        "time_grain_sqla": "P1M",
        "x_axis_sort_asc": True,
        "metrics": [CONSUMPTION],
        "groupby": [],
        "row_limit": 10000,
        "truncate_metric": True,
        "show_legend": True,
        "legendType": "scroll",
        "legendOrientation": "top",
        "rich_tooltip": True,
        "y_axis_format": "SMART_NUMBER",
        "x_axis_time_format": "smart_date",
        "markerEnabled": True,
        "zoomable": True,
        "time_range": "No filter",
    }
    line_axis = {
        "timeGrain": "P1M",
        "columnType": "BASE_AXIS",
        "sqlExpression": "date",
        "label": "date",
        "expressionType": "SQL",
    }
    line_query = {
        "columns": [line_axis],
        "metrics": [CONSUMPTION],
        "orderby": [[CONSUMPTION, False]],
        "series_columns": [],
        "post_processing": [
            {
                "operation": "pivot",
                "options": {
                    "index": ["date"],
                    "columns": [],
                    "aggregates": {label: {"operator": "mean"}},
                    "drop_missing_columns": False,
                },
            },
            {"operation": "flatten"},
        ],
    }

    bar = common | {
        "datasource": f"{energy}__table",
        "viz_type": "echarts_timeseries_bar",
        "x_axis": "region",
        "metrics": [CONSUMPTION],
        "groupby": [],
        "orientation": "horizontal",
        "x_axis_sort": label,
        "x_axis_sort_asc": True,
        "row_limit": 10000,
        "show_legend": False,
        "show_value": False,
        "rich_tooltip": True,
        "y_axis_format": "SMART_NUMBER",
        "time_range": "No filter",
    }
    bar_axis = {
        "columnType": "BASE_AXIS",
        "sqlExpression": "region",
        "label": "region",
        "expressionType": "SQL",
    }
    bar_query = {
        "columns": [bar_axis],
        "metrics": [CONSUMPTION],
        "orderby": [[CONSUMPTION, False]],
        "series_columns": [],
        "post_processing": [
            {
                "operation": "pivot",
                "options": {
                    "index": ["region"],
                    "columns": [],
                    "aggregates": {label: {"operator": "mean"}},
                    "drop_missing_columns": False,
                },
            },
            {"operation": "sort", "options": {"by": label, "ascending": True}},
            {"operation": "flatten"},
        ],
    }

    pie = common | {
        "datasource": f"{energy}__table",
        "viz_type": "pie",
        "groupby": ["source"],
        "metric": CONSUMPTION,
        "row_limit": 100,
        "sort_by_metric": True,
        "donut": True,
        "innerRadius": 40,
        "outerRadius": 70,
        "show_labels": True,
        "labels_outside": True,
        "label_type": "key_percent",
        "number_format": "SMART_NUMBER",
        "show_legend": True,
        "time_range": "No filter",
    }
    pie_query = {
        "columns": ["source"],
        "metrics": [CONSUMPTION],
        "orderby": [[CONSUMPTION, False]],
        "row_limit": 100,
    }

    table = common | {
        "datasource": f"{regions}__table",
        "viz_type": "table",
        "query_mode": "raw",
        "all_columns": ["region", "federal_district", "population"],
        "order_by_cols": ['["population", false]'],
        "row_limit": 1000,
        "server_page_length": 10,
        "table_timestamp_format": "smart_date",
        "show_cell_bars": True,
        "include_search": False,
        "time_range": "No filter",
    }
    table_query = {
        "columns": ["region", "federal_district", "population"],
        "metrics": [],
        "orderby": [["population", False]],
        "row_limit": 1000,
    }

    return [
        {
            "slice_name": "Потребление по месяцам",
            "table": "energy_consumption",
            "params": line,
            "query": line_query,
            "description": "Суммарное потребление электроэнергии по месяцам, МВт·ч.",
        },
        {
            "slice_name": "Потребление по регионам",
            "table": "energy_consumption",
            "params": bar,
            "query": bar_query,
            "description": "Суммарное потребление по регионам за весь период, МВт·ч.",
        },
        {
            "slice_name": "Структура по источникам",
            "table": "energy_consumption",
            "params": pie,
            "query": pie_query,
            "description": "Доля источников генерации в потреблении.",
        },
        {
            "slice_name": "Регионы и население",
            "table": "regions",
            "params": table,
            "query": table_query,
            "description": "Регионы, федеральные округа и численность населения.",
        },
    ]


# table → dataset metadata set when the dataset is created: description, main datetime column, column verbose
# names and descriptions, saved metrics (name, SQL expression, verbose name, d3 format).
DATASETS: dict[str, dict[str, Any]] = {
    "energy_consumption": {
        "description": "Потребление электроэнергии по регионам и источникам генерации за каждую декаду "
        "2024-2025 годов: объём (МВт·ч) и стоимость (руб.).",
        "main_dttm_col": "date",
        "columns": {
            "date": ("Дата", "Первый день декады (1, 11 или 21 число месяца)."),
            "region": ("Регион", "Субъект Российской Федерации."),
            "source": ("Источник", "Источник генерации: Газ, Уголь, Атом, Гидро, ВИЭ."),
            "consumption_mwh": ("Потребление, МВт·ч", "Объём потребления за декаду."),
            "cost_rub": ("Стоимость, руб.", "Стоимость потреблённой электроэнергии за декаду."),
        },
        "metrics": [
            ("total_consumption", "SUM(consumption_mwh)", "Потребление, МВт·ч", ",.0f"),
            ("total_cost", "SUM(cost_rub)", "Стоимость, руб.", ",.0f"),
            ("avg_price", "SUM(cost_rub) / SUM(consumption_mwh)", "Средняя цена, руб./МВт·ч", ",.2f"),
        ],
    },
    "regions": {
        "description": "Справочник регионов: федеральный округ и численность населения (на 1 января 2024).",
        "main_dttm_col": None,
        "columns": {
            "region": ("Регион", "Субъект Российской Федерации."),
            "federal_district": ("Федеральный округ", None),
            "population": ("Население, чел.", "Численность постоянного населения."),
        },
        "metrics": [("total_population", "SUM(population)", "Население, чел.", ",d")],
    },
}

_COLUMN_FIELDS = ("id", "column_name", "type", "is_dttm", "filterable", "groupby", "expression")
_METRIC_FIELDS = ("id", "metric_name", "expression", "metric_type", "verbose_name", "d3format", "description")


def _dataset_update(detail: dict[str, Any]) -> dict[str, Any]:
    """Return the PUT body that adds the ``DATASETS`` metadata to a freshly created dataset.

    Args:
        detail: ``GET /api/v1/dataset/<id>`` answer (its columns and metrics carry the ids the PUT must keep:
            a PUT with ``columns``/``metrics`` replaces the whole lists).
    """
    result = detail["result"]
    spec = DATASETS[result["table_name"]]
    columns = []
    for col in result["columns"]:
        entry = {key: col[key] for key in _COLUMN_FIELDS if col.get(key) is not None}
        verbose, description = spec["columns"].get(col["column_name"], (None, None))
        entry |= {"verbose_name": verbose, "description": description}
        if col["column_name"] == spec["main_dttm_col"]:
            entry["is_dttm"] = True
        columns.append(entry)
    metrics = [{key: m[key] for key in _METRIC_FIELDS if m.get(key) is not None} for m in result["metrics"]]
    have = {m["metric_name"] for m in metrics}
    metrics += [
        {"metric_name": name, "expression": expression, "verbose_name": verbose, "d3format": d3format}
        for name, expression, verbose, d3format in spec["metrics"]
        if name not in have
    ]
    body: dict[str, Any] = {"description": spec["description"], "columns": columns, "metrics": metrics}
    if spec["main_dttm_col"]:
        body["main_dttm_col"] = spec["main_dttm_col"]
    return body


# dashboard slug → (title, rows of (chart name, width in grid columns of 12))
DASHBOARDS: dict[str, tuple[str, list[list[tuple[str, int]]]]] = {
    ENERGY_DASHBOARD_SLUG: (
        ENERGY_DASHBOARD_TITLE,
        [
            [("Потребление по месяцам", 12)],
            [("Потребление по регионам", 6), ("Структура по источникам", 6)],
        ],
    ),
    REGIONS_DASHBOARD_SLUG: (
        REGIONS_DASHBOARD_TITLE,
        [
            [("Регионы и население", 6), ("Потребление по регионам", 6)],
        ],
    ),
}


def position_json(title: str, rows: list[list[tuple[int, str, str, int]]]) -> dict[str, Any]:
    """Return a dashboard layout (``position_json``, v2) with one grid row per list of charts.

    Args:
        title: the dashboard title (header).
        rows: rows of ``(chart id, chart uuid, chart name, width)``; widths of a row add up to at most 12.

    Returns:
        The layout as a dict (serialise with ``json.dumps`` for the API).
    """
    layout: dict[str, Any] = {
        "DASHBOARD_VERSION_KEY": "v2",
        "ROOT_ID": {"type": "ROOT", "id": "ROOT_ID", "children": ["GRID_ID"]},
        "GRID_ID": {"type": "GRID", "id": "GRID_ID", "children": [], "parents": ["ROOT_ID"]},
        "HEADER_ID": {"id": "HEADER_ID", "type": "HEADER", "meta": {"text": title}},
    }
    for row_no, row in enumerate(rows, start=1):
        row_id = f"ROW-{row_no}"
        layout["GRID_ID"]["children"].append(row_id)
        layout[row_id] = {
            "type": "ROW",
            "id": row_id,
            "children": [],
            "parents": ["ROOT_ID", "GRID_ID"],
            "meta": {"background": "BACKGROUND_TRANSPARENT"},
        }
        for chart_id, chart_uuid, name, width in row:
            node_id = f"CHART-{chart_id}"
            layout[row_id]["children"].append(node_id)
            layout[node_id] = {
                "type": "CHART",
                "id": node_id,
                "children": [],
                "parents": ["ROOT_ID", "GRID_ID", row_id],
                "meta": {
                    "chartId": chart_id,
                    "uuid": chart_uuid,
                    "sliceName": name,
                    "width": width,
                    "height": 50,
                },
            }
    return layout


def layout_chart_ids(position: str | None) -> list[int]:
    """Return the chart ids of a stored ``position_json`` in layout order (empty when there is none)."""
    try:
        layout = json.loads(position or "{}")
    except json.JSONDecodeError:
        return []
    return [
        node["meta"]["chartId"]
        for node in layout.values()
        if isinstance(node, dict) and node.get("type") == "CHART" and "chartId" in node.get("meta", {})
    ]


class _Seeder:
    """Creates or reuses the demo objects of one instance and records what it did."""

    def __init__(self, inst: Instance, client: SupersetClient) -> None:
        self.inst = inst
        self.client = client
        self.created: list[str] = []
        self.reused: list[str] = []
        self.updated: list[str] = []

    def _note(self, action: str, what: str, obj_id: int) -> None:
        label = f"{what} #{obj_id}"
        {"created": self.created, "reused": self.reused, "updated": self.updated}[action].append(label)
        if action != "reused":
            _log(f"[{self.inst.name}] {action} {label}")

    def database(self) -> int:
        uri = f"sqlite:///{self.inst.energy_db}"
        found = self.client.find("database", database_name=DATABASE_NAME)
        if found:
            db_id = found[0]["id"]
            # GET /database/<id> omits the URI in 6.1; /connection has it (password masked, none here).
            current = self.client.get(f"/api/v1/database/{db_id}/connection")["result"].get("sqlalchemy_uri") or ""
            in_use = Path(current.removeprefix("sqlite:///")) if current.startswith("sqlite:///") else None
            if current == uri or (in_use is not None and _energy_file_ok(in_use)):
                # A running instance started from another checkout keeps its own data file: re-pointing it
                # here would break it for everyone else once this checkout goes away.
                self._note("reused", f"database {DATABASE_NAME}", db_id)
            else:  # the data file is gone: point the database at this checkout's copy
                self.client.put(f"/api/v1/database/{db_id}", {"sqlalchemy_uri": uri})
                self._note("updated", f"database {DATABASE_NAME} (uri)", db_id)
            return db_id
        body = {
            "database_name": DATABASE_NAME,
            "sqlalchemy_uri": uri,
            "expose_in_sqllab": True,
            "allow_dml": False,
            "allow_ctas": False,
            "allow_cvas": False,
            "allow_run_async": False,
        }
        db_id = self.client.post("/api/v1/database/", body)["id"]
        self._note("created", f"database {DATABASE_NAME}", db_id)
        return db_id

    def dataset(self, database_id: int, table: str) -> int:
        found = [
            row
            for row in self.client.find("dataset", table_name=table)
            if row.get("database", {}).get("id") == database_id
        ]
        if found:
            self._note("reused", f"dataset {table}", found[0]["id"])
            return found[0]["id"]
        body = {"database": database_id, "schema": "main", "table_name": table}
        ds_id = self.client.post("/api/v1/dataset/", body)["id"]
        detail = self.client.get(f"/api/v1/dataset/{ds_id}")
        self.client.put(f"/api/v1/dataset/{ds_id}", _dataset_update(detail))
        self._note("created", f"dataset {table}", ds_id)
        return ds_id

    def dashboard(self, slug: str, title: str) -> dict[str, Any]:
        found = self.client.find("dashboard", slug=slug)
        if found:
            dash = self.client.get(f"/api/v1/dashboard/{found[0]['id']}")["result"]
            self._note("reused", f"dashboard «{title}»", dash["id"])
            return dash
        body = {"dashboard_title": title, "slug": slug, "published": True}
        dash_id = self.client.post("/api/v1/dashboard/", body)["id"]
        self._note("created", f"dashboard «{title}»", dash_id)
        return self.client.get(f"/api/v1/dashboard/{dash_id}")["result"]

    def chart(self, spec: dict[str, Any], dataset_id: int, dashboard_ids: list[int]) -> dict[str, Any]:
        name = spec["slice_name"]
        found = self.client.find("chart", slice_name=name)
        if found:
            chart = self.client.get(f"/api/v1/chart/{found[0]['id']}")["result"]
            have = {d["id"] for d in chart.get("dashboards", [])}
            if not set(dashboard_ids) <= have:
                wanted = sorted(have | set(dashboard_ids))
                self.client.put(f"/api/v1/chart/{chart['id']}", {"dashboards": wanted})
                self._note("updated", f"chart «{name}» (dashboards)", chart["id"])
            else:
                self._note("reused", f"chart «{name}»", chart["id"])
            return chart
        params = spec["params"] | {"dashboards": dashboard_ids}
        query_context = _query_context(dataset_id, params, spec["query"])
        body = {
            "slice_name": name,
            "description": spec["description"],
            "viz_type": params["viz_type"],
            "datasource_id": dataset_id,
            "datasource_type": "table",
            "params": json.dumps(params, ensure_ascii=False),
            "query_context": json.dumps(query_context, ensure_ascii=False),
            "query_context_generation": True,
            "dashboards": dashboard_ids,
        }
        chart_id = self.client.post("/api/v1/chart/", body)["id"]
        self._note("created", f"chart «{name}»", chart_id)
        return self.client.get(f"/api/v1/chart/{chart_id}")["result"]

    def layout(self, dash: dict[str, Any], title: str, rows: list[list[tuple[int, str, str, int]]]) -> None:
        wanted = [chart_id for row in rows for chart_id, *_ in row]
        if layout_chart_ids(dash.get("position_json")) == wanted:
            return
        body = {"position_json": json.dumps(position_json(title, rows), ensure_ascii=False)}
        self.client.put(f"/api/v1/dashboard/{dash['id']}", body)
        self._note("updated", f"dashboard «{title}» (layout)", dash["id"])


def seed_instance(inst: Instance) -> dict[str, Any]:
    """Ensure the demo data and objects exist in one running instance (REST API only; idempotent).

    Args:
        inst: the instance (must be running).

    Returns:
        ``{"database": id, "datasets": {table: id}, "charts": {name: id}, "dashboards": {slug: id},
        "created": [...], "updated": [...], "reused": [...]}``; the lists hold "kind name #id" labels.

    Raises:
        StackError: login or an API call failed.
    """
    if _ensure_energy_db(inst):
        _log(f"[{inst.name}] created data file {inst.energy_db}")
    with SupersetClient(inst) as client:
        seeder = _Seeder(inst, client)
        database_id = seeder.database()
        datasets = {table: seeder.dataset(database_id, table) for table in DATASETS}
        dashboards = {slug: seeder.dashboard(slug, title) for slug, (title, _rows) in DASHBOARDS.items()}
        charts: dict[str, dict[str, Any]] = {}
        for spec in _chart_specs(datasets):
            on = [
                dashboards[slug]["id"]
                for slug, (_title, rows) in DASHBOARDS.items()
                if any(name == spec["slice_name"] for row in rows for name, _width in row)
            ]
            charts[spec["slice_name"]] = seeder.chart(spec, datasets[spec["table"]], on)
        for slug, (title, rows) in DASHBOARDS.items():
            placed = [[(charts[n]["id"], str(charts[n]["uuid"]), n, wide) for n, wide in row] for row in rows]
            seeder.layout(dashboards[slug], title, placed)
    summary = f"created {len(seeder.created)}, updated {len(seeder.updated)}, reused {len(seeder.reused)}"
    reused = f": {', '.join(seeder.reused)}" if seeder.reused else ""
    _log(f"[{inst.name}] seed: {summary}{reused}")
    return {
        "database": database_id,
        "datasets": datasets,
        "charts": {name: chart["id"] for name, chart in charts.items()},
        "dashboards": {slug: dash["id"] for slug, dash in dashboards.items()},
        "created": seeder.created,
        "updated": seeder.updated,
        "reused": seeder.reused,
    }


def seed() -> dict[str, dict[str, Any]]:
    """Seed both running instances (see ``seed_instance``); instances in parallel.

    Returns:
        ``{instance name: seed_instance result}``.

    Raises:
        StackError: an instance is down or an API call failed.
    """
    _ensure_stack_dir()
    with _file_lock(stack_dir() / ".seed.lock"):
        return _run_parallel(seed_instance)


def up() -> dict[str, dict[str, Any]]:
    """Install (if needed), start (or reuse) and seed both instances: the one call for ``make run`` and tests.

    Returns:
        The ``seed()`` result, by instance name.

    Raises:
        StackError: any step failed.
    """
    install()
    start()
    return seed()


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit code (1 on a ``StackError``, with its message on stderr)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["install", "start", "seed", "up", "stop", "status"])
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        if args.command == "status":
            status()
            return 0
        {"install": install, "start": start, "seed": seed, "up": up, "stop": stop}[args.command]()
    except StackError as exc:
        print(f"superset_stack {args.command}: {exc}", file=sys.stderr, flush=True)
        return 1
    if args.command == "up":
        urls = ", ".join(f"{name} {url}" for name, url in instance_urls().items())
        _log(f"up: Superset ready in {time.monotonic() - started:.1f} s: {urls} (login {ADMIN_USERNAME})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
