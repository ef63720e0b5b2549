"""Timings of the git tools' building blocks on the local Superset: export fetch, status, commit (prints figures).

Run: ``DATABASE_URL=… .venv/bin/python bench/git_export.py [env_id] [dashboard_id] [rounds]``. Uses a temporary
GIT_REPOS_DIR, so no real repository is touched; the dashboard is only read.
"""

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402

from agentchat.gitstore import repo as gitrepo  # noqa: E402
from agentchat.superset.call import CallState  # noqa: E402
from agentchat.superset.client import SupersetClient  # noqa: E402
from agentchat.superset.dashboard_export import dashboard_export_files  # noqa: E402
from tests.support.superset_api import SERVICE_PASSWORD, SERVICE_USERNAME, URLS  # noqa: E402


def ms(samples: list[float]) -> str:
    return f"median {statistics.median(samples) * 1000:.1f} ms, max {max(samples) * 1000:.1f} ms"


async def main(env_id: str, dashboard_id: int, rounds: int) -> None:
    client = SupersetClient(
        env_id=env_id,
        base_url=URLS[env_id],
        username=SERVICE_USERNAME,
        password=SERVICE_PASSWORD,
        call=CallState(retry_transient=False),
        timeout_s=30,
    )
    export, status, commit = [], [], []
    async with client:
        for i in range(rounds):
            started = time.perf_counter()
            files = await dashboard_export_files(client, dashboard_id)
            export.append(time.perf_counter() - started)
            started = time.perf_counter()
            gitrepo.export_status(env_id=env_id, dashboard_id=dashboard_id, branch="main", files=files)
            status.append(time.perf_counter() - started)
            started = time.perf_counter()
            # alternate a marker file so every round really commits
            files = {**files, "bench.txt": str(i).encode()}
            gitrepo.export_commit(
                env_id=env_id,
                dashboard_id=dashboard_id,
                branch="main",
                files=files,
                author=b"bench <bench@agentchat.local>",
                message=f"bench {i}",
            )
            commit.append(time.perf_counter() - started)
    size = sum(len(content) for content in files.values())
    print(f"dashboard {dashboard_id} in {env_id}: {len(files)} files, {size} bytes unpacked, {rounds} rounds")
    print(f"export fetch + unpack + normalise: {ms(export)}")
    print(f"status (diff against main):        {ms(status)}")
    print(f"commit (tree + commit + ref CAS):  {ms(commit)}")


if __name__ == "__main__":
    env = sys.argv[1] if len(sys.argv) > 1 else "ss-dev"
    dashboard = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    with tempfile.TemporaryDirectory() as tmp:
        settings.GIT_REPOS_DIR = Path(tmp)
        asyncio.run(main(env, dashboard, count))
