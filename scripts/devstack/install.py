"""The cached Superset virtualenv: made once per hash of ``requirements/superset.txt``, shared by every clone.

Standard library only: ``make superset-install`` runs it with the system Python beside the project's pip install.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from scripts.devstack.config import INSTALL_MARKER, REPO_ROOT, REQUIREMENTS_FILE, requirements_hash, venv_dir
from scripts.devstack.files import file_lock, marker_matches, tail
from scripts.devstack.report import StackError, log


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
    if marker_matches(marker, digest):
        log(f"install: Superset virtualenv up to date ({venv})")
        return venv
    with file_lock(venv.with_name(venv.name + ".lock")):
        if marker_matches(marker, digest):
            log(f"install: Superset virtualenv up to date ({venv})")
            return venv
        if venv.exists():
            log(f"install: removing incomplete virtualenv {venv}")
            shutil.rmtree(venv)
        started = time.monotonic()
        log(f"install: creating virtualenv {venv}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        code = _pip_install(venv, started)
        log_path = venv / "install.log"
        if code != 0 or not (venv / "bin" / "superset").exists():
            raise StackError(f"pip install failed (exit {code}); end of {log_path}:\n{tail(log_path)}")
        marker.write_text(digest + "\n")
        log(f"install: done in {time.monotonic() - started:.0f} s")
    return venv


def _pip_install(venv: Path, started: float) -> int:
    """Run ``pip install -r requirements/superset.txt`` in ``venv`` (log in ``install.log``); return its exit code.

    Prints a line every 30 s so make and CI show the install is alive.
    """
    log_path = venv / "install.log"
    requirements = REQUIREMENTS_FILE.relative_to(REPO_ROOT)
    log(f"install: pip install -r {requirements} (1-2 minutes; log {log_path})")
    python = str(venv / "bin" / "python")
    cmd = [python, "-m", "pip", "install", "--no-input", "--disable-pip-version-check", "-r", str(REQUIREMENTS_FILE)]
    with open(log_path, "w") as log_file:
        proc = subprocess.Popen(cmd, stdout=log_file, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        while True:
            try:
                return proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                log(f"install: still installing ({time.monotonic() - started:.0f} s)")
