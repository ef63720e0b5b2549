"""A turn's database cost (issue 17): one unit of database work per phase, at most three transactions per turn.

Counted by PostgreSQL itself, with the production connection settings (kept connections, health checks on): each
transaction of a backend takes the next local number of its virtual transaction id (``pg_locks``), so the number
read on the database thread's connection before and after a turn tells how many transactions the turn made there,
whatever their statements (a ``SELECT 1`` health check counts too). The backend must be the same one throughout.
"""

import pytest
from channels.db import database_sync_to_async
from django.db import connection

from tests.chat.test_database_restart import persistent_connections  # noqa: F401 - fixture
from tests.support.contexts import DASHBOARD_1
from tests.support.websocket import frames_until, ws_connect

pytestmark = pytest.mark.django_db(transaction=True)


def _backend_transaction() -> tuple[int, int]:
    """``(backend pid, local number of this statement's virtual transaction)`` on the database thread."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid, virtualtransaction FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'virtualxid'"
        )
        pid, vxid = cursor.fetchone()
    return pid, int(vxid.split("/")[1])


@pytest.mark.usefixtures("persistent_connections")
async def test_a_turn_without_tool_calls_makes_at_most_three_transactions(users):
    communicator, connected, _ = await ws_connect(users["analyst"])
    assert connected
    read = database_sync_to_async(_backend_transaction)
    await communicator.send_json_to({"type": "user_message", "text": "привет", "context": DASHBOARD_1})
    first = await frames_until(communicator, "message")
    spent = []
    for text in ("ещё раз привет", "и снова привет"):
        pid, before = await read()
        frame = {"type": "user_message", "conversation_id": first[0]["conversation_id"], "text": text}
        await communicator.send_json_to(frame | {"context": DASHBOARD_1})
        answer = await frames_until(communicator, "message")
        after_pid, after = await read()
        assert after_pid == pid  # one kept connection: the numbers are of one backend
        assert [f["event"] for f in answer if f["event"] in ("card_required", "error")] == []
        # ``read`` itself: its health check and its own statement are the last two numbers
        spent.append(after - before - 2)
    await communicator.disconnect()
    assert max(spent) <= 3, spent
    assert spent == [2, 2]  # open the turn (session, context, conversation, history, tools); store the answer


async def _statements_of_turn(communicator, frame: dict) -> list[str]:
    """The SQL of one turn's statements on the database thread's own connection (``connection`` is per thread)."""
    statements: list[str] = []

    def record(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    await database_sync_to_async(lambda: connection.execute_wrappers.insert(0, record))()
    await communicator.send_json_to(frame)
    await frames_until(communicator, "message")
    await database_sync_to_async(lambda: connection.execute_wrappers.remove(record))()
    return statements


@pytest.mark.usefixtures("persistent_connections")
async def test_a_follow_up_turn_without_cards_makes_seven_statements_and_a_new_conversation_six(users):
    """Follow-up: the session check (one query while nothing changed), the conversation with the EXISTS of its
    cards and its messages (one SELECT), both messages in one INSERT, the conversation touched, the policy version
    (no policy table, no identity read), the offer's audit row, the answer stored: seven statements (issue 17).
    A new conversation: no touch and nothing read back (the conversation is inserted: six)."""
    communicator, connected, _ = await ws_connect(users["analyst"])
    assert connected
    await communicator.send_json_to({"type": "user_message", "text": "привет", "context": DASHBOARD_1})
    first = await frames_until(communicator, "message")
    conversation_id = first[0]["conversation_id"]
    follow_up = await _statements_of_turn(
        communicator,
        {"type": "user_message", "conversation_id": conversation_id, "text": "ещё", "context": DASHBOARD_1},
    )
    new = await _statements_of_turn(communicator, {"type": "user_message", "text": "новый", "context": DASHBOARD_1})
    await communicator.disconnect()

    assert len(follow_up) == 7, "\n".join(s[:120] for s in follow_up)
    skipped = ('SELECT "agentchat_supersetidentity"', 'SELECT "agentchat_pendingconfirmation"')
    assert not [s for s in follow_up if s.startswith(skipped)]
    # The conversation and the history: one statement, not the ORM's SELECT of each.
    assert not [s for s in follow_up if s.startswith(('SELECT "agentchat_conversation"', 'SELECT "agentchat_message"'))]
    assert len(new) == 6, "\n".join(s[:120] for s in new)
    assert not [s for s in new if s.startswith(('UPDATE "agentchat_conversation"', "SELECT c."))]
    assert not [s for s in new if 'FROM "agentchat_message"' in s]
