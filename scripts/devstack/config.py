"""Where the stack lives: the two instances (names, ports, home directories), the virtualenv, settings from env.

Every path here is also what an already running stack left behind (pid files, markers, data files): a checkout
recognises instances started by an earlier one as its own as long as these names do not change.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.devstack.report import StackError

REPO_ROOT = Path(__file__).resolve().parents[2]
REQUIREMENTS_FILE = REPO_ROOT / "requirements" / "superset.txt"
# Superset's own configuration file, loaded by Superset through SUPERSET_CONFIG_PATH (never imported here).
CONFIG_FILE = Path(__file__).resolve().parent / "superset_config.py"

# The stack's own account (Superset role Admin, password ``admin_password()``): the stack seeds through it and
# service-mode environments act as it (``SUPERSET_<ENV>_USERNAME``, DESIGN §15). ``admin`` is a demo person
# (users.py) with the demo password, like ``analyst`` and ``engineer``.
SERVICE_USERNAME = "agentchat_service"
ADMIN_USERNAME = "admin"
HEALTH_TIMEOUT_S = 120.0
# In the virtualenv: the requirements hash it was installed from.
INSTALL_MARKER = ".agentchat-superset-installed"
# In an instance home: the requirements hash its one-time setup ran with.
SETUP_MARKER = ".setup-done"
# In an instance home: the hash of the superset_config.py its running server was started with.
CONFIG_MARKER = ".config-sha256"


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
        """File holding the pid (= process group id) of the ``superset run`` process the stack started."""
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


def stack_dir() -> Path:
    """Return the parent directory of the instance directories.

    Returns:
        ``$SUPERSET_STACK_DIR`` if set, else ``<repo>/var/superset``; absolute.
    """
    configured = os.environ.get("SUPERSET_STACK_DIR")
    return Path(configured).expanduser().resolve() if configured else REPO_ROOT / "var" / "superset"


def admin_password() -> str:
    """Return the password of the stack's service account ``SERVICE_USERNAME``: ``$SUPERSET_ADMIN_PASSWORD`` or
    ``admin`` (an instance set up before that account existed has it on its ``admin`` user until the next seed)."""
    return os.environ.get("SUPERSET_ADMIN_PASSWORD") or "admin"


def bind_host() -> str:
    """Return the address the servers listen on: ``$SUPERSET_BIND_HOST`` or ``127.0.0.1``.

    ``0.0.0.0`` serves other containers too (docker/compose.yaml); the stack itself still talks to loopback.
    """
    return os.environ.get("SUPERSET_BIND_HOST") or "127.0.0.1"


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


def config_hash() -> str:
    """Return the sha256 hex digest of ``superset_config.py`` (a running server started with another is restarted)."""
    return hashlib.sha256(CONFIG_FILE.read_bytes()).hexdigest()


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


def for_each_instance(func: Callable[[Instance], Any]) -> dict[str, Any]:
    """Run ``func(instance)`` for every instance in parallel threads; re-raise the first failure.

    Returns:
        ``{instance name: func(instance)}``.

    Raises:
        Exception: what ``func`` raised, when one instance failed; ``StackError`` with every message when more did.
    """
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
