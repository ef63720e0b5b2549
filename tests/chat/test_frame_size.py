"""Oversized frames on a real daphne socket (DESIGN §6; issue 13 item 6): a frame of 1 MiB or more gets the same
«сообщение слишком большое» error as a smaller oversized one, and the socket stays open."""

import asyncio
import json

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from websockets.asyncio.client import connect

from tests.support.processes import DaphneProcess, process_env, session_cookie
from tests.support.processes import database_url as _database_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]
TOO_LARGE = "Некорректное сообщение: сообщение слишком большое"


@pytest.fixture
def web(superset_stack, users, tmp_path):
    env = process_env(
        DATABASE_URL=_database_url(), DJANGO_SECRET_KEY=settings.SECRET_KEY, LLM_PROVIDER="offline", EMBEDDINGS="off"
    )
    server = DaphneProcess(env, tmp_path / "daphne.log").start()
    yield server
    server.stop()


def _frame(size_bytes: int) -> str:
    """A user_message frame of ``size_bytes`` bytes (ASCII)."""
    head = '{"type": "user_message", "context": null, "text": "'
    return head + "x" * (size_bytes - len(head) - 2) + '"}'


async def test_frames_of_a_mebibyte_and_more_get_the_oversized_error_and_the_socket_stays_open(web, users):
    cookie = await database_sync_to_async(session_cookie)(users["analyst"])
    host = f"127.0.0.1:{web.port}"
    async with connect(
        f"ws://{host}/ws/agent/", origin=f"http://{host}", additional_headers={"Cookie": cookie}, max_size=None
    ) as ws:
        answers = []
        for size in (100 * 1024, 1024 * 1024, 1024 * 1024 + 1, 4 * 1024 * 1024):
            await ws.send(_frame(size))
            answers.append(json.loads(await asyncio.wait_for(ws.recv(), 30)))
        await ws.send(json.dumps({"type": "ping"}))  # still open and answering
        after = json.loads(await asyncio.wait_for(ws.recv(), 10))
    assert {(a["code"], a["message"]) for a in answers} == {("bad_frame", TOO_LARGE)}
    assert len(answers) == 4
    assert after["code"] == "bad_frame"
    assert "слишком большое" not in after["message"]
