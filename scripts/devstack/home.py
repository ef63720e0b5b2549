"""An instance's home directory: its secret key, the environment of its ``superset`` commands, one-time setup."""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from pathlib import Path

from scripts.devstack.config import CONFIG_FILE, SETUP_MARKER, Instance, admin_password
from scripts.devstack.files import marker_matches, tail
from scripts.devstack.report import StackError, log


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


def superset_env(inst: Instance) -> dict[str, str]:
    """Return the environment for ``superset`` commands of this instance.

    Returns:
        This process's environment without Python path settings (Superset runs from its own virtualenv), plus
        ``SUPERSET_CONFIG_PATH`` (``scripts/devstack/superset_config.py``), the instance's home, metadata
        database path and secret key (the variables that config file reads).

    Raises:
        StackError: the instance's secret key file is empty.
    """
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


# Runs db upgrade, fab create-admin (the stack's service account, config.SERVICE_USERNAME) and init in one
# interpreter: importing Superset costs ~8 s per command.
_SETUP_CODE = """
import os
from superset.cli.main import superset
password = os.environ.pop("_STACK_ADMIN_PASSWORD")
for args in (
    ["db", "upgrade"],
    ["fab", "create-admin", "--username", "agentchat_service", "--firstname", "agentchat", "--lastname", "service",
     "--email", "agentchat_service@example.com", "--password", password],
    ["init"],
):
    print("=== superset " + " ".join(args[:2]), flush=True)
    superset.main(args, standalone_mode=False)
"""


def setup(inst: Instance, venv: Path, digest: str) -> None:
    """Run the one-time setup of an instance (metadata DB migration, admin user, roles), unless done already.

    The marker holds ``digest``, so a new Superset pin or config file re-runs the (idempotent) setup.

    Args:
        inst: the instance (its home must exist).
        venv: the Superset virtualenv.
        digest: the requirements hash and the config hash (``config.requirements_hash()``, ``config_hash()``).

    Raises:
        StackError: a setup command failed (the setup log tail is in the message).
    """
    marker = inst.home / SETUP_MARKER
    if marker_matches(marker, digest):
        return
    log(f"[{inst.name}] first-time setup: db upgrade, create-admin, init (~30 s; log {inst.setup_log_file})")
    started = time.monotonic()
    env = superset_env(inst) | {"_STACK_ADMIN_PASSWORD": admin_password()}
    with open(inst.setup_log_file, "w") as setup_log:
        code = subprocess.call(
            [str(venv / "bin" / "python"), "-c", _SETUP_CODE],
            cwd=inst.home,
            env=env,
            stdout=setup_log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    if code != 0:
        raise StackError(
            f"[{inst.name}] setup failed (exit {code}); last lines of {inst.setup_log_file}:\n"
            f"{tail(inst.setup_log_file)}"
        )
    marker.write_text(digest + "\n")
    log(f"[{inst.name}] setup done in {time.monotonic() - started:.0f} s")
