"""How the stack talks back: one progress line at a time (``log``) and failures (``StackError``)."""

from __future__ import annotations

import threading


class StackError(RuntimeError):
    """A stack operation failed; the message says what and where to look (log tail included)."""


_PRINT_LOCK = threading.Lock()


def log(message: str) -> None:
    """Print one progress line at once (the stack runs under make and CI; threads print whole lines)."""
    with _PRINT_LOCK:
        print(message, flush=True)
