"""``python -m scripts.prodlocal up [--web N] [--workers N] [--no-seed] | stop | status`` (``make prod-local``,
``make prod-local-stop``). Ports, database, Redis and directory from ``PROD_LOCAL_*`` (README "Production");
exit code 1 with the failing step's log tail on stderr."""

from __future__ import annotations

import argparse
import sys
import time

from scripts.prodlocal import PlanError, ProdLocal, ProdLocalError, Settings


def main(argv: list[str] | None = None) -> int:
    """Run one command; return the exit code."""
    parser = argparse.ArgumentParser(prog="python -m scripts.prodlocal", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["up", "stop", "status"])
    parser.add_argument("--web", type=int, default=None, help="web processes (PROD_LOCAL_WEB, default 2)")
    parser.add_argument("--workers", type=int, default=None, help="db_worker processes (PROD_LOCAL_WORKERS, 1)")
    parser.add_argument("--no-seed", action="store_true", help="do not create the demo logins")
    args = parser.parse_args(argv)
    settings = Settings.from_environment(web=args.web, workers=args.workers)
    settings.seed = not args.no_seed
    stack = ProdLocal(settings)
    if args.command == "stop":
        stopped = stack.stop()
        print(f"prod-local: stopped {', '.join(stopped) or 'nothing (not running)'}")
        return 0
    if args.command == "status":
        rows = stack.status()
        for name, pid, port, alive in rows:
            print(f"{name:8s} pid {pid} {'port ' + str(port) if port else '':10s} {'running' if alive else 'GONE'}")
        return 0 if rows and all(row[3] for row in rows) else 1
    began = time.monotonic()
    try:
        stack.up()
    except (ProdLocalError, PlanError, FileNotFoundError) as exc:
        print(f"prod-local up: {exc}", file=sys.stderr)
        return 1
    webs = ", ".join(f"{p.name} :{p.port} pid {p.pid}" for p in stack.processes.values() if p.name.startswith("web"))
    workers = sum(1 for name in stack.processes if name.startswith("worker"))
    print(f"prod-local: {stack.url}/ in {time.monotonic() - began:.0f} s — nginx → {webs}; {workers} db_worker")
    print(f"  database {settings.database_url.rsplit('/', 1)[-1]}, Redis {settings.redis_url}; logs {stack.logs}")
    print("  logins analyst / engineer / admin (DEMO_PASSWORD, default demo); stop: make prod-local-stop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
