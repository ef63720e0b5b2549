"""A tool call a small model writes as its answer's text takes the path of every call (issue 16: the local 1.5B
model answered «создай ветку feature/summer» as an analyst with ``{"name": "create_branch", …}`` as text; such models
also write ``parameters`` for ``arguments``, the Qwen/Hermes ``<tool_call>`` tags and a ```json fence)."""

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
PARAMETERS = CALL.replace('"arguments"', '"parameters"')
# Each shape a model writes a call in, as the whole answer; all mean the same call.
SHAPES = {
    "bare": CALL,
    "parameters": PARAMETERS,
    "tool_call_tags": f"<tool_call>\n{CALL}\n</tool_call>",
    "tool_call_tags_parameters": f"  <tool_call>{PARAMETERS}</tool_call>\n",
    "json_fence": f"```json\n{CALL}\n```",
    "json_fence_parameters": f"```json\n  {PARAMETERS}\n```\n",
    "bare_fence": f"```\n{CALL}\n```",
    "whitespace": f"  {CALL}\n",
    "upper_case_fence": f"```JSON\n{CALL}\n```",
    "arguments_as_json_text": json.dumps(
        {"name": "create_branch", "arguments": json.dumps({"env_id": "ss-dev", "branch_name": "feature/summer"})}
    ),
}


@pytest.mark.parametrize("text", SHAPES.values(), ids=SHAPES.keys())
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
        f"{CALL}\nI will create the branch now.",
        f"Calling it:\n<tool_call>\n{CALL}\n</tool_call>",
        f"<tool_call>\n{CALL}\n</tool_call> done",
        f"Run this:\n```json\n{CALL}\n```",
        '{"name": "create_branch"}',  # no arguments
        '{"name": "create_branch", "arguments": [1]}',  # arguments not an object
        '{"name": "create_branch", "parameters": "[1]"}',  # a JSON text that is not an object
        '{"name": "create_branch", "parameters": "{not json"}',
        '{"name": "energy_consumption", "parameters": {"rows": 2088}}',  # a dataset described as JSON: no tool
        '```json\n{"name": "Alice", "arguments": {}}\n```',
        '{"name": "create_branch", "arguments": {}, "extra": 1}',  # other keys
        '{"name": "create_branch", "arguments": {}, "parameters": {}}',  # both: which one?
        '{"name": "create_branch", "args": {}}',  # a key no model convention uses
        '{"tool": "x", "arguments": {}}',
        '[{"name": "x", "arguments": {}}]',
        f"<tool_call>[{CALL}]</tool_call>",  # a list in the tags
        f"{CALL}\n{CALL}",  # several objects
        f"<tool_call>\n{CALL}\n</tool_call>\n<tool_call>\n{PARAMETERS}\n</tool_call>",
        f"```json\n{CALL}\n```\n```json\n{CALL}\n```",
        f"<tool_call>\n{CALL}",  # a wrapper left open
        f"```json\n{CALL}",
        f"<tool_call>\n{CALL}\n```",  # wrappers that do not pair
        f"```json\n<tool_call>{CALL}</tool_call>\n```",  # one wrapper, not two
        "<tool_call></tool_call>",
        '{"name": "create_branch", "arguments": {"branch_name": "feat',  # cut off
        '<tool_call>\n{"name": "create_branch", "parameters": {"branch_name": "feat',
        "Дашборд «Отчёт» содержит 6 графиков.",
    ],
)
def test_anything_else_stays_an_answer(text):
    assert text_written_call(text) is None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("shape", ["bare", "parameters", "tool_call_tags", "json_fence"])
async def test_an_analyst_s_written_branch_call_is_refused_by_policy_not_shown_as_json(users, shape):
    frames = []

    async def emit(event):
        frames.append(event.wire())

    replies = itertools.chain([AIMessage(content=SHAPES[shape])], itertools.repeat(AIMessage("ok")))
    model = ScriptedChatModel(messages=replies)
    await AgentTurn(user=users["analyst"], emit=emit, model=model).run(
        conversation_id=None, text="создай ветку feature/summer", context=DASHBOARD_1
    )

    denied = [f for f in frames if f["event"] == "permission_denied"]
    assert [f["tool"] for f in denied] == ["create_branch"]
    assert not [f for f in frames if f["event"] == "message" and '"create_branch"' in (f.get("text") or "")]
    streamed = {f["message_id"] for f in frames if f["event"] == "token" and '"create_branch"' in f["text"]}
    final = {f["message_id"]: f["text"] for f in frames if f["event"] == "message"}
    assert all(final.get(row) == "" for row in streamed)  # what streamed of the JSON was cleared on the page
    assert not await Message.objects.filter(content__contains='"create_branch"').aexists()
    stored = [m.tool_calls async for m in Message.objects.filter(role=Message.Role.ASSISTANT).exclude(tool_calls=[])]
    assert [[(c["name"], c["args"]) for c in calls] for calls in stored] == [
        [("create_branch", {"env_id": "ss-dev", "branch_name": "feature/summer"})]
    ]
    refused = AuditEvent.objects.filter(tool="create_branch", event_type=AuditEvent.EventType.PERMISSION_DENIED)
    assert await refused.aexists()


@pytest.mark.parametrize("name", ["create branch", "functions.create_branch", "создать_ветку", "x" * 65, "", 7])
@pytest.mark.parametrize("key", ["arguments", "parameters"])
def test_a_name_an_openai_api_would_refuse_is_no_call(name, key):
    """Stored and replayed, such a name would make every later call of the conversation fail (HTTP 400)."""
    call = json.dumps({"name": name, key: {}})
    assert text_written_call(call) is None
    assert text_written_call(f"<tool_call>{call}</tool_call>") is None
