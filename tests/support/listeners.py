"""Which process listens on a loopback port, and what that process was started with (issue 31 item 6).

Tests that need something only the running server knows (the local Superset's JWT signing key) read it from the
process that answers on the port, not from this checkout's files: on a shared machine the pair is often started
by another checkout (``make run`` there), whose ``var/superset`` this checkout does not have or has stale.
Linux only (``/proc``).
"""

import os
from pathlib import Path

LISTEN = "0A"  # TCP state LISTEN in /proc/net/tcp


def _listening_inodes(port: int) -> set[str]:
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state, inode = fields[1], fields[3], fields[9]
            if state == LISTEN and int(local.rsplit(":", 1)[1], 16) == port:
                inodes.add(inode)
    return inodes


def listening_pid(port: int) -> int | None:
    """The pid of a process that listens on TCP ``port`` (any local address), or None when none is found or
    its file descriptors cannot be read (another user's process, without the rights to look)."""
    sockets = {f"socket:[{inode}]" for inode in _listening_inodes(port)}
    if not sockets:
        return None
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for fd in (entry / "fd").iterdir():
                if os.readlink(fd) in sockets:
                    return int(entry.name)
        except OSError:
            continue  # gone, or not ours to read
    return None


def process_environment(pid: int) -> dict[str, str]:
    """The environment process ``pid`` was started with (``/proc/<pid>/environ``).

    Raises:
        PermissionError: the process belongs to another user.
    """
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode(errors="replace"): value.decode(errors="replace") for key, value in pairs}
