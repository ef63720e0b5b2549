"""What the agent writes into the audit log is what ``audit_report`` counts (DESIGN §4: ``tool_call`` at the start
of a call; denials with the actor's roles; a card's life; the call's own row with duration and sizes)."""

import uuid

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import AIMessage

from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent
from policies.reports import ReportFilter, audit_report
from tests.support.contexts import DASHBOARD_1
from tests.support.frames import Frames
from tests.support.scripted_llm import scripted

pytestmark = pytest.mark.django_db(transaction=True)
CONTEXT = DASHBOARD_1


def branch_call(name: str) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"id": "call_0", "name": "create_branch", "args": {"env_id": "ss-dev", "name": name}}]
    )


@pytest.fixture(autouse=True)
def _git_dir(settings, tmp_path):
    settings.GIT_REPOS_DIR = str(tmp_path / "git")
    settings.EMBEDDINGS = "off"


async def test_approved_write_and_refused_call_are_reported(users):
    """Engineer: card → approve → ``tool_call`` then ``tool_result``; analyst: the same call is refused."""
    name = f"feature/audit-{uuid.uuid4().hex[:8]}"
    engineer = users["engineer"]
    frames = Frames()
    conversation_id = await AgentTurn(user=engineer, emit=frames, model=scripted(branch_call(name), "ok")).run(
        conversation_id=None, text="создай ветку", context=CONTEXT
    )
    (card,) = [f for f in frames if f["event"] == "confirm_required"]
    model = scripted("Ветка создана.")
    await AgentTurn(user=engineer, emit=Frames(), model=model).decide(
        confirmation_id=card["confirmation_id"], approve=True
    )
    await AgentTurn(user=users["analyst"], emit=Frames(), model=scripted(branch_call(name), "нет прав")).run(
        conversation_id=None, text="создай ветку", context=CONTEXT
    )

    rows = await database_sync_to_async(
        lambda: list(AuditEvent.objects.filter(conversation_id=conversation_id).order_by("id"))
    )()
    kinds = [r.event_type for r in rows]
    assert kinds.index("tool_call") < kinds.index("tool_result")
    (started,) = [r for r in rows if r.event_type == "tool_call"]
    assert (started.tool, started.env_id, started.outcome) == ("create_branch", "ss-dev", "started")
    assert started.args == {"env_id": "ss-dev", "name": name}
    assert started.extra_data["confirmation_id"] == card["confirmation_id"]
    assert started.extra_data["category"] == "write"

    report = await database_sync_to_async(audit_report)(where=ReportFilter())
    assert report["events"]["by_type"]["tool_call"] == 1
    assert report["confirmations"] == {"required": 1, "approved": 1, "denied": 0, "expired": 0, "unknown": 0}
    assert report["permission_denials"]["by_role_tool"] == [{"role": "analyst", "tool": "create_branch", "count": 1}]
    assert report["duration_ms"]["calls"] == 1
    assert report["duration_ms"]["by_tool"][0]["tool"] == "create_branch"
    assert report["output_chars"]["results"] == 1
    assert report["tool_errors"]["total"] == 0
