"""Decided cards (issue 28 item 6): one deny is one cancellation line — its card, which keeps what was declined —
and the model answers after a deny only what else of that step ran."""

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import AIMessage

from agentchat.models import Message, PendingConfirmation
from agentchat.turn.agent import AgentTurn
from tests.guard.test_guardrails import _audit, _branch_call, _history, _turn
from tests.support.frames import Frames
from tests.support.history_check import history_errors
from tests.support.scripted_llm import scripted
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)
Status = PendingConfirmation.Status


@pytest.fixture(autouse=True)
def _git_dir(settings, tmp_path):
    settings.GIT_REPOS_DIR = str(tmp_path / "git")


async def test_a_deny_is_one_cancellation_line_that_keeps_what_was_declined(users):
    """issue 28 item 6: one deny → one line (the card), no system line, no answer after a «no»; the card keeps the
    environment, the arguments and who decided, live and from the history."""
    model = scripted(_branch_call("never-made"), "Хорошо, не создаю.")
    conversation_id, frames = await _turn(users["engineer"], model)
    card = frames.of("confirm_required")[0]
    asked = len(model.seen)

    decided = Frames()
    await AgentTurn(user=users["engineer"], emit=decided, model=model).decide(
        confirmation_id=card["confirmation_id"], approve=False
    )
    assert [f["event"] for f in decided] == ["cancelled"]
    cancelled = decided.of("cancelled")[0]
    assert cancelled["confirmation_id"] == card["confirmation_id"]
    assert text("ru", "Operation cancelled") in cancelled["html"]
    assert "never-made" in cancelled["html"]
    assert "ss-dev" in cancelled["html"]
    assert text("ru", "decided by %(who)s, %(when)s", who="engineer", when="")[:-2] in cancelled["html"]
    assert len(model.seen) == asked  # the model is not asked to answer a «no»
    row = await PendingConfirmation.objects.aget(pk=card["confirmation_id"])
    assert row.status == Status.DENIED
    assert not await Message.objects.filter(conversation_id=conversation_id, role="system").aexists()
    tool_message = await Message.objects.aget(conversation_id=conversation_id, role="tool")
    assert "declined" in tool_message.content
    assert "Do not retry" in tool_message.content
    for event in ("denied", "cancelled"):
        assert len(await database_sync_to_async(_audit)(conversation_id, event)) == 1
    assert not history_errors(await database_sync_to_async(_history)(conversation_id))


async def test_a_deny_beside_a_call_that_ran_lets_the_model_answer_that_one(users):
    """The same step also read something: after the deny the model answers what did run (once)."""
    step = AIMessage(
        content="",
        tool_calls=[
            {"id": "c_read", "name": "show_capabilities", "args": {}},
            {"id": "c_card", "name": "create_branch", "args": {"env_id": "ss-dev", "name": "never-made-2"}},
        ],
    )
    model = scripted(step, "Ветку не создаю; вот что я умею.")
    _conversation_id, frames = await _turn(users["engineer"], model)
    card = frames.of("confirm_required")[0]

    decided = Frames()
    await AgentTurn(user=users["engineer"], emit=decided, model=model).decide(
        confirmation_id=card["confirmation_id"], approve=False
    )
    assert [f["event"] for f in decided] == ["cancelled", "message"]
    assert decided.of("message")[-1]["text"] == "Ветку не создаю; вот что я умею."
    assert not history_errors(model.seen[-1])
