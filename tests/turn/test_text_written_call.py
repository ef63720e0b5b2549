"""A tool call a small model writes as its answer's text takes the path of every call (issue 16: the local 1.5B
model answered «создай ветку feature/summer» as an analyst with ``{"name": "create_branch", …}`` as text)."""

import itertools
import json

import pytest
from langchain_core.messages import AIMessage

from agentchat.models import Message
from agentchat.turn.agent import AgentTurn
from agentchat.turn.reply import text_written_call
from policies.models import AuditEvent
from tests.support.contexts import DASHBOARD_1
from tests.support.scripted_llm import ScriptedChatModel

CALL = '{"name": "create_branch", "arguments": {"env_id": "ss-dev", "branch_name": "feature/summer"}}'


@pytest.mark.parametrize("text", [CALL, f"```json\n{CALL}\n```", f"  {CALL}\n"])
def test_a_call_written_as_the_whole_answer_is_read_as_a_call(text):
    assert text_written_call(text) == {
        "id": "call_text_0",
        "name": "create_branch",
        "args": {"env_id": "ss-dev", "branch_name": "feature/summer"},
    }


@pytest.mark.parametrize(
    "text",
    [
        f"Here is the call: {CALL}",  # prose around it: an answer
        '{"name": "create_branch"}',  # no arguments
        '{"name": "x", "arguments": [1]}',  # arguments not an object
        '{"name": "x", "arguments": {}, "extra": 1}',  # other keys
        '[{"name": "x", "arguments": {}}]',
        '{"name": "create_branch", "arguments": {"branch_name": "feat',  # cut off
        "Дашборд «Отчёт» содержит 6 графиков.",
    ],
)
def test_anything_else_stays_an_answer(text):
    assert text_written_call(text) is None


@pytest.mark.django_db(transaction=True)
async def test_an_analyst_s_written_branch_call_is_refused_by_policy_not_shown_as_json(users):
    frames = []

    async def emit(event):
        frames.append(event.wire())

    model = ScriptedChatModel(messages=itertools.chain([AIMessage(content=CALL)], itertools.repeat(AIMessage("ok"))))
    await AgentTurn(user=users["analyst"], emit=emit, model=model).run(
        conversation_id=None, text="создай ветку feature/summer", context=DASHBOARD_1
    )

    denied = [f for f in frames if f["event"] == "permission_denied"]
    assert [f["tool"] for f in denied] == ["create_branch"]
    assert not [f for f in frames if f["event"] == "message" and '"create_branch"' in (f.get("text") or "")]
    streamed = {f["message_id"] for f in frames if f["event"] == "token" and '"create_branch"' in f["text"]}
    final = {f["message_id"]: f["text"] for f in frames if f["event"] == "message"}
    assert all(final.get(row) == "" for row in streamed)  # what streamed of the JSON was cleared on the page
    assert not await Message.objects.filter(content__contains='"arguments"').aexists()
    refused = AuditEvent.objects.filter(tool="create_branch", event_type=AuditEvent.EventType.PERMISSION_DENIED)
    assert await refused.aexists()


@pytest.mark.parametrize("name", ["create branch", "functions.create_branch", "создать_ветку", "x" * 65, ""])
def test_a_name_an_openai_api_would_refuse_is_no_call(name):
    """Stored and replayed, such a name would make every later call of the conversation fail (HTTP 400)."""
    assert text_written_call(json.dumps({"name": name, "arguments": {}})) is None
