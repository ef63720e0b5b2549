"""The two ``superset run`` servers: start (or reuse), stop, status.

A server belongs to the stack when its pid file names a live ``superset run`` process; one that answers on the
port without such a pid file (another checkout's, a container's) is reused but never stopped.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from scripts.devstack.client import SupersetClient, dashboard_count, health_ok
from scripts.devstack.config import (
    CONFIG_MARKER,
    HEALTH_TIMEOUT_S,
    INSTALL_MARKER,
    INSTANCES,
    Instance,
    bind_host,
    config_hash,
    for_each_instance,
    requirements_hash,
    stack_dir,
    venv_dir,
)
from scripts.devstack.files import ensure_stack_dir, file_lock, marker_matches, tail
from scripts.devstack.home import setup, superset_env
from scripts.devstack.report import StackError, log


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
        if health_ok(inst):
            return
        exited = proc.poll() is not None if proc is not None else not _is_our_server(pid)
        if exited:
            raise StackError(
                f"[{inst.name}] superset exited at start-up; end of {inst.log_file}:\n{tail(inst.log_file)}"
            )
        time.sleep(0.5)
    raise StackError(
        f"[{inst.name}] {inst.url}/health did not answer within {HEALTH_TIMEOUT_S:.0f} s (pid {pid}); "
        f"last lines of {inst.log_file}:\n{tail(inst.log_file)}"
    )


def _reuse_running(inst: Instance) -> str | None:
    """Return ``"reused"`` when a healthy server (ours or not) or one of ours still starting is there, else None.

    A server of ours started with another ``superset_config.py`` (its marker holds the file's hash) is stopped and
    None returned, so the caller starts it again with the current config; one not started by the stack is reused
    as it is, with a warning.

    Raises:
        StackError: the server answers ``/health`` but admin login fails, or ours did not become healthy.
    """
    if not marker_matches(inst.home / CONFIG_MARKER, config_hash()):
        if _read_pid(inst) is not None:
            log(f"[{inst.name}] superset_config.py changed since this server started: restarting it")
            _stop_instance(inst)
            return None
        if health_ok(inst):
            log(
                f"[{inst.name}] WARNING: the server at {inst.url} was not started by this script; restart it to "
                "apply the current superset_config.py"
            )
    if health_ok(inst):
        try:
            with SupersetClient(inst):
                pass
        except StackError as exc:
            raise StackError(
                f"[{inst.name}] {inst.url} answers /health but admin login fails ({exc}); stop it or set "
                "SUPERSET_ADMIN_PASSWORD"
            ) from None
        log(f"[{inst.name}] already running at {inst.url}, reusing it")
        return "reused"
    pid = _read_pid(inst)
    if pid is not None:
        log(f"[{inst.name}] server (pid {pid}) is starting, waiting for {inst.url}/health")
        _wait_healthy(inst, None, pid)
        return "reused"
    return None


def _start_instance(inst: Instance, venv: Path, digest: str) -> str:
    """Set up (first time) and start one instance, or reuse the one already answering on its port.

    Returns:
        ``"reused"`` or ``"started"``.

    Raises:
        StackError: the port is taken by something that is not this Superset, setup or start-up failed.
    """
    reused = _reuse_running(inst)
    if reused:
        return reused
    if _port_open(inst):
        raise StackError(f"[{inst.name}] port {inst.port} is taken by something else than a healthy Superset")
    inst.home.mkdir(mode=0o700, parents=True, exist_ok=True)
    # superset init registers the permissions of what the config enables (FAB_API_KEY_ENABLED: ApiKey), so a
    # changed config re-runs the (idempotent) setup as a new Superset pin does.
    setup(inst, venv, f"{digest} {config_hash()}")
    started = time.monotonic()
    superset = str(venv / "bin" / "superset")
    cmd = [superset, "run", "-p", str(inst.port), "--host", bind_host(), "--with-threads"]
    with open(inst.log_file, "w") as server_log:
        proc = subprocess.Popen(
            cmd,
            cwd=inst.home,
            env=superset_env(inst),
            stdout=server_log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    inst.pid_file.write_text(f"{proc.pid}\n")
    (inst.home / CONFIG_MARKER).write_text(config_hash() + "\n")
    log(f"[{inst.name}] starting superset on {inst.url} (pid {proc.pid}, log {inst.log_file})")
    _wait_healthy(inst, proc, proc.pid)
    log(f"[{inst.name}] up at {inst.url} after {time.monotonic() - started:.0f} s")
    return "started"


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
    if not marker_matches(venv / INSTALL_MARKER, digest):
        raise StackError(f"Superset is not installed in {venv}: run `python -m scripts.devstack install`")
    ensure_stack_dir()
    with file_lock(stack_dir() / ".lock"):
        return for_each_instance(lambda inst: _start_instance(inst, venv, digest))


def stop() -> dict[str, str]:
    """Stop the instances the stack started (by pid file): SIGTERM to the process group, wait, then SIGKILL.

    No error when an instance is not running; a server not started by the stack is left alone.

    Returns:
        ``{instance name: "stopped" | "not running"}``.
    """
    return {inst.name: _stop_instance(inst) for inst in INSTANCES}


def _stop_instance(inst: Instance) -> str:
    """Stop one instance the stack started (see ``stop``); return ``"stopped"`` or ``"not running"``."""
    pid = _read_pid(inst)
    if pid is None:
        inst.pid_file.unlink(missing_ok=True)
        log(f"[{inst.name}] not running (no server started by this script)")
        return "not running"
    _signal_group(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    while _is_our_server(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if _is_our_server(pid):
        log(f"[{inst.name}] pid {pid} ignored SIGTERM for 15 s, killing it")
        _signal_group(pid, signal.SIGKILL)
        while _is_our_server(pid) and time.monotonic() < deadline + 5:
            time.sleep(0.2)
    while _port_open(inst) and time.monotonic() < deadline + 5:  # the port is free before a restart binds it
        time.sleep(0.2)
    inst.pid_file.unlink(missing_ok=True)
    log(f"[{inst.name}] stopped (pid {pid})")
    return "stopped"


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

    Raises:
        StackError: httpx is not installed.
    """
    results: dict[str, dict[str, Any]] = {}
    for inst in INSTANCES:
        running = health_ok(inst)
        dashboards = dashboard_count(inst) if running else None
        pid = _read_pid(inst)
        results[inst.name] = {"running": running, "url": inst.url, "pid": pid, "dashboards": dashboards}
        state = "running" if running else "not running"
        extra = f", pid {pid}" if pid else (", not started by this script" if running else "")
        count = f", {dashboards} dashboards" if dashboards is not None else ""
        log(f"{inst.name:7} {state:11} {inst.url}{count}{extra}")
    return results
