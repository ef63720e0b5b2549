"""What the load is aimed at (issue 31 item 2): one daphne process (issues 9, 17), the production shape started per
count of web processes (``--web 1,2,4``: nginx in front of N daphne and a ``db_worker``, ``scripts.prodlocal``), or
a running shape's URL (``--target``). ``Target`` names the URL and the processes whose CPU a turn costs; the
side-by-side table compares the web counts."""

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bench.load.figures import ms, share
from scripts.prodlocal import ProdLocal, Settings


@dataclass
class Target:
    """Where the chats go.

    Attributes:
        name: shown in the headings (``daphne``, ``nginx → 2 web``).
        url: the HTTP base URL (``http://127.0.0.1:8310``); the socket is ``ws://…/ws/agent/`` on it.
        pids: the agent's processes (their CPU is the turn's; one for the single daphne).
        balancer: nginx's processes (master and workers), shown apart; empty without nginx.
        web: web processes behind the URL (1 for the single daphne).
    """

    name: str
    url: str
    pids: list[int]
    balancer: list[int] = field(default_factory=list)
    web: int = 1

    @property
    def host(self) -> str:
        return self.url.split("//", 1)[1].rstrip("/")


def children(pid: int) -> list[int]:
    """The direct children of process ``pid`` (nginx's workers of its master)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@contextmanager
def production_shape(
    web: int, *, database_url: str, redis_url: str, env: dict[str, str], logs: Path
) -> Iterator[Target]:
    """Start nginx in front of ``web`` daphne processes and one ``db_worker`` (``scripts.prodlocal``: compose's
    commands and environment, ``env`` on top) on the bench's database; yield its ``Target``; stop it.

    Ports: ``PROD_LOCAL_PORT`` / ``PROD_LOCAL_WEB_PORT`` (8310, 8311…), as ``make prod-local``."""
    settings = Settings.from_environment(web=web, workers=1)
    settings.directory = logs / f"shape-{web}web"
    settings.database_url, settings.redis_url = database_url, redis_url
    settings.overrides, settings.seed = env, False
    shape = ProdLocal(settings)
    shape.up()
    try:
        master = shape.processes["nginx"].pid or 0
        pids = [p.pid for name, p in shape.processes.items() if name.startswith("web") and p.pid]
        yield Target(f"nginx → {web} web", shape.url, pids, [master, *children(master)], web)
    finally:
        shape.stop()


def running_target(url: str, state: Path) -> Target:
    """A shape someone else started at ``url``; its processes from ``state`` (``scripts.prodlocal``'s
    ``state.json``) when that file describes it, else none (CPU figures then read 0)."""
    pids: list[int] = []
    balancer: list[int] = []
    if state.exists() and json.loads(state.read_text()).get("url", "").rstrip("/") == url.rstrip("/"):
        for process in json.loads(state.read_text())["processes"]:
            if process["name"].startswith("web"):
                pids.append(process["pid"])
            elif process["name"] == "nginx":
                balancer = [process["pid"], *children(process["pid"])]
    return Target(f"target {url}", url, pids, balancer, web=len(pids) or 1)


def print_side_by_side(rows: list[dict]) -> None:
    """One line per count of chats, one column group per target (the web counts side by side)."""
    targets = list(dict.fromkeys(row["target"] for row in rows))
    counts = sorted({row["n"] for row in rows})
    print("\nside by side (same run; turns/s = answered turns per second; CPU = the web processes' per answered turn)")
    header = f"{'chats':>6s} | " + " | ".join(f"{t:^66s}" for t in targets)
    print(header)
    print("-" * len(header))
    for n in counts:
        cells = []
        for target in targets:
            row = next((r for r in rows if r["target"] == target and r["n"] == n), None)
            if row is None:
                cells.append(f"{'—':^66s}")
                continue
            f = row["figures"]
            cells.append(
                f"{f['turns_s']:6.1f}/s ans {share(f['answered'], f['sent'])} busy {share(f['busy'], f['sent'])} "
                f"lost {f['lost']:3d} p99 {ms(f['final_p99'])} ms CPU {row['cpu_ms']:5.1f} ms".ljust(66)
            )
        print(f"{n:6d} | " + " | ".join(cells))
    print("cores busy while sending (machine of " + str(os.cpu_count()) + " / web processes / nginx / load generator):")
    for n in counts:
        cells = []
        for target in targets:
            row = next((r for r in rows if r["target"] == target and r["n"] == n), None)
            cells.append(
                f"{'—':^66s}"
                if row is None
                else f"{row['cores']['machine']:.2f} / {row['cores']['agent']:.2f} / {row['cores']['balancer']:.2f} / "
                f"{row['cores']['generator']:.2f}".center(66)
            )
        print(f"{n:6d} | " + " | ".join(cells))
