"""A web process killed (SIGKILL) while chats run through nginx on the production shape (issue 31 item 3).

Two daphne processes behind nginx; page clients (``tests.support.page_client``, as ``frontend/js/agent.js``) send
messages whose answers stream for about a second, two of them hold a pending card. One process is killed: its
sockets drop, reconnect through nginx to the other one and ``resume``. Every message sent must be answered or
explicitly failed with a resend offered (interrupted: its turn died with the process; not received), none answered
twice, none lost; the cards come back with the same ids and an approval runs the write once.
"""

import asyncio

import pytest
from channels.db import database_sync_to_async
from dulwich.repo import Repo

from agentchat.models import PendingConfirmation
from tests.prodlocal.conftest import talker_cookies
from tests.support.contexts import DASHBOARD_1
from tests.support.page_client import PageClient, ledger, talk
from tests.support.processes import session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.processes]

TALKERS = 8  # chats that keep talking across the kill
MESSAGES = 6  # each sends this many, one every 0.4 s (queued behind its running turn: several in flight)


def branches(git_dir) -> list[str]:
    repo = git_dir / "ss-dev"
    return sorted(r.decode() for r in Repo(str(repo)).refs.keys(b"refs/heads/")) if (repo / "HEAD").exists() else []


async def test_a_killed_web_process_loses_no_message_and_no_card(
    users, superset_stack, shape, tmp_path, record_property
):
    stack = await asyncio.to_thread(shape, web=2)
    cookie = await database_sync_to_async(session_cookie)(users["engineer"])
    talkers = await database_sync_to_async(talker_cookies)(TALKERS)
    clients = [await PageClient(stack.url, talker, context=DASHBOARD_1).start() for talker in talkers]
    holders = [await PageClient(stack.url, cookie, context=DASHBOARD_1).start() for _ in range(2)]
    for i, holder in enumerate(holders):
        await holder.message(f"создай ветку feature/kill-{i}-{id(holder) % 10000}")
        await holder.until(lambda f: f.get("event") == "confirm_required")
    cards = [holder.cards[0] for holder in holders]

    talking = [asyncio.create_task(talk(client, f"c{i}", MESSAGES, 0.4)) for i, client in enumerate(clients)]
    await asyncio.sleep(1.0)  # turns stream on both processes, more messages wait behind them
    victim = stack.processes["web1"]
    await asyncio.to_thread(stack.kill, "web1")
    await asyncio.gather(*talking)
    settled = [await client.settled(60) for client in [*clients, *holders]]

    counts = ledger([*clients, *holders])
    record_property("fault_counts", counts.line("web process killed (SIGKILL), 2 web"))
    assert not victim.alive()
    assert all(settled), counts.line("not settled")
    assert counts.duplicated == 0
    assert counts.lost == 0
    assert counts.sent == TALKERS * MESSAGES + 2
    assert counts.answered + counts.failed == counts.sent
    assert counts.reasons.get("interrupted", 0) >= 1  # turns in flight on the killed process were told so
    moved = [c for c in [*clients, *holders] if c.reconnects]
    assert moved  # sockets of the killed process reconnected through nginx
    assert all(c.close_codes.count(1011) == 0 for c in [*clients, *holders])

    # The cards: a holder whose socket moved got its card again (same id), and approving it runs the write once.
    for holder, card in zip(holders, cards, strict=True):
        again = [f["confirmation_id"] for f in holder.frames if f.get("event") == "confirm_required"]
        assert again.count(card) == (2 if holder.reconnects else 1)
    holder = holders[0]
    await holder.send({"type": "confirm", "confirmation_id": cards[0], "decision": "approve"})
    await holder.until(lambda f: f.get("event") == "card_state" and f.get("status") == "executed")
    await holder.send({"type": "confirm", "confirmation_id": cards[0], "decision": "approve"})
    await asyncio.sleep(1)
    statuses = await database_sync_to_async(
        lambda: list(PendingConfirmation.objects.filter(pk__in=cards).order_by("pk").values_list("status", flat=True))
    )()
    assert statuses == ["executed", "pending"]
    assert len([b for b in branches(tmp_path / "git") if b.startswith("feature/kill-0-")]) == 1
    for client in [*clients, *holders]:
        await client.close()
