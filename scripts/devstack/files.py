"""File operations shared by install, processes and seed: locks, marker files, log tails, the stack directory."""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

from scripts.devstack.config import stack_dir


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created if missing) for the ``with`` block.

    Two checkouts (or ``make -j``) may run the stack at once; the lock makes them take turns.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def tail(path: Path, lines: int = 40) -> str:
    """Return the last ``lines`` lines of a text file, or a note that it does not exist."""
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return f"({path} does not exist)"
    return "\n".join(text.splitlines()[-lines:])


def marker_matches(marker: Path, digest: str) -> bool:
    """Return whether ``marker`` exists and holds ``digest`` (the requirements hash a step was done with)."""
    try:
        return marker.read_text().strip() == digest
    except FileNotFoundError:
        return False


def ensure_stack_dir() -> None:
    """Create the stack directory with a ``.gitignore`` so secrets, databases and logs never reach git."""
    root = stack_dir()
    root.mkdir(parents=True, exist_ok=True)
    ignore = root / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# Local Superset instances (secrets, databases, logs): never commit.\n*\n")
