"""The production shape for the fault tests (issue 31 item 3): ``scripts.prodlocal`` — nginx with
``docker/nginx.conf`` in front of daphne web processes and a ``db_worker``, compose's commands and environment —
on the test's PostgreSQL database, on free loopback ports, with a scripted OpenAI-compatible model.

Each test counts what happened to every message (``tests.support.page_client.Ledger``) and records the line as the
``fault_counts`` property; ``tests/conftest.py`` prints those lines at the end of the run (also from xdist workers).
"""

import os
import re
import uuid
from collections.abc import Callable, Iterator

import pytest
from django.conf import settings

from scripts.prodlocal import ProdLocal, Settings
from tests.support.chat_server import Call, ChatServer, Recorded, Reply
from tests.support.processes import database_url, free_port, session_cookie
from tests.support.users import make_user

# A turn whose process died counts as interrupted this long after it last renewed its lease (s): short, so the
# tests see it soon; the turns here renew every second.
LEASE_S = "3"
BRANCH = re.compile(r"создай ветку (\S+)")


def scripted_model(request: Recorded) -> Reply:
    """The model of the fault tests: «создай ветку X» → a ``create_branch`` call (a write: a card), after the tool
    «Ветка создана.»; anything else → a short answer streamed over about a second (so turns are in flight when a
    process is killed)."""
    last = request.last
    if last.get("role") == "tool":
        return Reply(text="Ветка создана.")
    asked = request.last_user_text()
    found = BRANCH.search(asked)
    if found:
        call = Call("create_branch", {"env_id": "ss-dev", "name": found.group(1)}, id=f"c_{uuid.uuid4().hex[:8]}")
        return Reply(calls=[call])
    return Reply(text=f"Ответ на «{asked[:40]}»: всё в порядке.", chunk_chars=4, chunk_delay_s=0.08)


@pytest.fixture
def llm() -> Iterator[ChatServer]:
    with ChatServer(default=scripted_model) as server:  # HTTP/1.0: chunks streamed with their delays
        yield server


@pytest.fixture
def shape(tmp_path, llm) -> Iterator[Callable[..., ProdLocal]]:
    """A factory: ``shape(web=2, workers=1, redis_url=None, **env)`` starts the production shape on the test
    database (``TURN_LEASE_S`` and ``TASK_LEASE_S`` 3 s; the test's keys, so sessions and identities made here are
    read there) and returns it; every shape started is stopped afterwards."""
    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    started: list[ProdLocal] = []

    def start(*, web: int = 2, workers: int = 1, redis_url: str | None = None, **env: str) -> ProdLocal:
        overrides = {
            "DJANGO_SECRET_KEY": settings.SECRET_KEY,
            "AGENTCHAT_ENCRYPTION_KEYS": ",".join(settings.ENCRYPTION_KEYS),
            "CHANNELS_PREFIX": f"shape-{uuid.uuid4().hex[:8]}",
            "LLM_PROVIDER": "openai",
            "LLM_BASE_URL": llm.url,
            "LLM_API_KEY": "test-key",
            "LLM_MODEL": llm.model,
            "LLM_TIMEOUT_S": "20",
            "EMBEDDINGS": "off",
            # Each chat here sends faster than its answers come (turns queue behind each other): the per-user bounds
            # would refuse them busy, which tests/turn/test_bounds.py shows; the subject here is the fault.
            "USER_MAX_TURNS": "0",
            "USER_MESSAGES_PER_MINUTE": "0",
            "TURN_LEASE_S": LEASE_S,
            "TASK_LEASE_S": LEASE_S,
            "GIT_REPOS_DIR": str(tmp_path / "git"),
            "BACKUP_DIR": str(tmp_path / "backups"),
            "LOG_LEVEL": "WARNING",
            **env,
        }
        stack = ProdLocal(
            Settings(
                directory=tmp_path / f"shape-{len(started)}",
                port=free_port(),
                web_ports=[free_port() for _ in range(web)],
                workers=workers,
                database_url=database_url(),
                redis_url=redis_url or os.environ["REDIS_URL"],
                overrides=overrides,
                seed=False,
                build=False,
            )
        )
        started.append(stack)
        stack.up()
        return stack

    yield start
    for stack in started:
        stack.stop()


def talker_cookies(count: int) -> list[str]:
    """Session cookies of ``count`` engineers of their own (``talker0``…): each chat a different person, as in
    production — one person's many chats would meet the per-user bounds (``turn.bounds``), not the fault."""
    return [session_cookie(make_user("engineer", f"talker{n}")) for n in range(count)]
