"""Command line of the local Superset stack: ``python -m scripts.devstack install|start|seed|up|stop|status``.

Exit code 0 on success, 1 on a ``StackError`` (its message on stderr); progress lines go to stdout.
"""

from __future__ import annotations

import argparse
import sys
import time

from scripts.devstack import SERVICE_USERNAME, StackError, install, instance_urls, seed, start, status, stop, up
from scripts.devstack import __doc__ as package_doc
from scripts.devstack.report import log

COMMANDS = {"install": install, "start": start, "seed": seed, "up": up, "stop": stop, "status": status}


def main(argv: list[str] | None = None) -> int:
    """Run one command; return the exit code (1 on a ``StackError``, with its message on stderr)."""
    parser = argparse.ArgumentParser(prog="python -m scripts.devstack", description=package_doc.split("\n\n")[0])
    parser.add_argument("command", choices=list(COMMANDS))
    args = parser.parse_args(argv)
    started = time.monotonic()
    try:
        COMMANDS[args.command]()
    except StackError as exc:
        print(f"devstack {args.command}: {exc}", file=sys.stderr, flush=True)
        return 1
    if args.command == "up":
        urls = ", ".join(f"{name} {url}" for name, url in instance_urls().items())
        log(f"up: Superset ready in {time.monotonic() - started:.1f} s: {urls} (login {SERVICE_USERNAME})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
