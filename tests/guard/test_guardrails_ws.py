"""Confirmation cards over the real WebSocket (DESIGN §6, §9): resume after a reconnect, two tabs, client args.

The card is made by a scripted model (``AgentTurn``); everything after it goes through the consumer on the full
ASGI stack, as the page does: ``resume`` on (re)connect, ``confirm`` from one or two tabs.
"""

import asyncio

import pytest
from channels.db import database_sync_to_async

from agentchat.gitstore import repo as gitrepo
from agentchat.models import Message, PendingConfirmation
from agentchat.turn.agent import AgentTurn
from tests.support.contexts import DASHBOARD_1
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse fixture
from tests.support.scripted_llm import scripted, tool_calls_message
from tests.support.users import make_user
from tests.support.websocket import ws_connect

pytestmark = pytest.mark.django_db(transaction=True)
CONTEXT = {**DASHBOARD_1, "objectName": "Отчёт по энергопотреблению"}


@pytest.fixture(autouse=True)
def _git_dir(settings, tmp_path):
    settings.GIT_REPOS_DIR = str(tmp_path / "git")


async def _pending_card(user, branch: str) -> tuple[int, int]:
    """Make a create_branch card in a new conversation; return (conversation id, confirmation id)."""
    frames = []

    async def emit(event):
        frames.append(event.wire())

    model = scripted(tool_calls_message([("create_branch", {"env_id": "ss-dev", "name": branch})], prefix="ws"))
    conversation_id = await AgentTurn(user=user, emit=emit, model=model).run(
        conversation_id=None, text="создай ветку", context=CONTEXT
    )
    [card] = [f for f in frames if f["event"] == "confirm_required"]
    return conversation_id, card["confirmation_id"]


async def _drain(communicator, *, quiet_s: float = 1.5) -> list[dict]:
    """Receive frames until none arrives for ``quiet_s`` seconds."""
    frames = []
    # receive_nothing waits without cancelling the application (a timed-out receive_output would).
    while not await communicator.receive_nothing(timeout=quiet_s, interval=0.02):
        frames.append(await communicator.receive_json_from())
    return frames


def _branches() -> list[str]:
    repo = gitrepo.repo_open(env_id="ss-dev", create=False)
    return gitrepo.branch_names(repo) if repo else []


async def _tool_messages(conversation_id: int) -> int:
    return await Message.objects.filter(conversation_id=conversation_id, role="tool").acount()


async def test_reconnect_resume_re_emits_the_card_once_and_approval_runs_once(users):
    conversation_id, confirmation_id = await _pending_card(users["engineer"], "after-reconnect")

    first, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await first.send_json_to({"type": "resume", "conversation_id": conversation_id})
    frames = await _drain(first)
    assert [(f["event"], f["confirmation_id"]) for f in frames] == [("confirm_required", confirmation_id)]
    await first.disconnect()  # the connection drops while the card is pending

    second, _, _ = await ws_connect(users["engineer"])
    await second.send_json_to({"type": "resume", "conversation_id": conversation_id})
    again = await _drain(second)
    assert [(f["event"], f["confirmation_id"]) for f in again] == [("confirm_required", confirmation_id)]
    assert again[0]["html"] == frames[0]["html"]

    await second.send_json_to({"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"})
    done = await _drain(second, quiet_s=3)
    await second.disconnect()
    assert [f["event"] for f in done].count("tool_started") == 1
    assert any(f["event"] == "message" for f in done)
    row = await PendingConfirmation.objects.aget(pk=confirmation_id)
    assert row.status == PendingConfirmation.Status.EXECUTED
    assert "after-reconnect" in await database_sync_to_async(_branches)()
    assert await _tool_messages(conversation_id) == 1


async def test_two_tabs_approving_execute_once(users):
    conversation_id, confirmation_id = await _pending_card(users["engineer"], "two-tabs")
    tab_a, _, _ = await ws_connect(users["engineer"])
    tab_b, _, _ = await ws_connect(users["engineer"])
    for tab in (tab_a, tab_b):  # both pages are open on the conversation (the page resumes on connect)
        await tab.send_json_to({"type": "resume", "conversation_id": conversation_id})
        await _drain(tab, quiet_s=0.5)
    confirm = {"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"}
    await asyncio.gather(tab_a.send_json_to(confirm), tab_b.send_json_to(confirm))
    frames_a, frames_b = await asyncio.gather(_drain(tab_a, quiet_s=3), _drain(tab_b, quiet_s=3))
    await tab_a.disconnect()
    await tab_b.disconnect()
    started = [f for f in frames_a + frames_b if f["event"] == "tool_started"]
    assert len(started) == 1
    for frames in (frames_a, frames_b):  # each tab ends up showing the card as done, not as still open
        states = [f["status"] for f in frames if f["event"] == "card_state"]
        assert states[-1] == "executed"
    assert await _tool_messages(conversation_id) == 1
    assert (await database_sync_to_async(_branches)()).count("two-tabs") == 1


async def test_arguments_sent_with_an_approval_are_ignored(users):
    """What runs is the stored call, never arguments from the client (DESIGN §9)."""
    conversation_id, confirmation_id = await _pending_card(users["engineer"], "stored-name")
    tab, _, _ = await ws_connect(users["engineer"])
    await tab.send_json_to(
        {
            "type": "confirm",
            "confirmation_id": confirmation_id,
            "decision": "approve",
            "args": {"env_id": "ss-dev", "name": "client-name"},
        }
    )
    await _drain(tab, quiet_s=3)
    await tab.disconnect()
    branches = await database_sync_to_async(_branches)()
    assert "stored-name" in branches
    assert "client-name" not in branches


async def test_another_users_socket_cannot_decide_or_resume(users):
    conversation_id, confirmation_id = await _pending_card(users["engineer"], "not-yours")
    intruder = await database_sync_to_async(make_user)("admin", "intruder")
    tab, _, _ = await ws_connect(intruder)
    await tab.send_json_to({"type": "resume", "conversation_id": conversation_id})
    await tab.send_json_to({"type": "confirm", "confirmation_id": confirmation_id, "decision": "approve"})
    frames = await _drain(tab)
    await tab.disconnect()
    assert [f["event"] for f in frames] == ["error", "error"]
    assert [f["code"] for f in frames] == ["bad_frame", "card_not_found"]
    row = await PendingConfirmation.objects.aget(pk=confirmation_id)
    assert row.status == PendingConfirmation.Status.PENDING
    assert "not-yours" not in await database_sync_to_async(_branches)()


async def test_a_card_expired_by_a_message_from_another_tab_expires_in_every_tab(users):
    conversation_id, confirmation_id = await _pending_card(users["engineer"], "expire-everywhere")
    tab_a, _, _ = await ws_connect(users["engineer"])
    tab_b, _, _ = await ws_connect(users["engineer"])
    for tab in (tab_a, tab_b):
        await tab.send_json_to({"type": "resume", "conversation_id": conversation_id})
        await _drain(tab, quiet_s=0.5)

    await tab_b.send_json_to(
        {"type": "user_message", "conversation_id": conversation_id, "text": "что ты умеешь?", "context": CONTEXT}
    )
    frames_a, frames_b = await asyncio.gather(_drain(tab_a, quiet_s=3), _drain(tab_b, quiet_s=3))
    await tab_a.disconnect()
    await tab_b.disconnect()

    for frames in (frames_a, frames_b):
        expired = [f for f in frames if f["event"] == "cancelled" and f.get("reason") == "expired"]
        assert [f["confirmation_id"] for f in expired] == [confirmation_id]
    row = await PendingConfirmation.objects.aget(pk=confirmation_id)
    assert row.status == PendingConfirmation.Status.EXPIRED
