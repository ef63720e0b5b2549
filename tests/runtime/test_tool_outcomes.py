"""Tool outcomes in the chat (DESIGN §5 step 7, §6, §10): frames, ToolMessages and audit rows, through the real
WebSocket and agent turn, with the real ss-dev Superset behind the fault proxy."""

import json
import time
import uuid

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async

from agentchat.conversations import services as conv
from agentchat.models import Message
from agentchat.runtime.binding import object_used
from agentchat.runtime.executor import tool_execute
from agentchat.runtime.registry import tool_spec
from agentchat.runtime.summarise import list_totals, to_json
from agentchat.turn.agent import AgentTurn
from agentchat.turn.calls import CallRunner
from policies.models import AuditEvent
from tests.runtime.test_executor import CREATE_CHART, wait_for_charts
from tests.support.contexts import dashboard_context
from tests.support.faultproxy import FAULTY_ENV, Fault
from tests.support.superset_scratch import charts_delete
from tests.support.tool_runs import aset_tool_timeout
from tests.support.websocket import frames_until, ws_connect
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)
Event = AuditEvent.EventType


def faulty_context(dashboard: dict) -> dict:
    return dashboard_context(dashboard, env_id=FAULTY_ENV)


def _audit(**filters) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(**filters).order_by("id"))


audit = database_sync_to_async(_audit)
tool_message_row = database_sync_to_async(lambda **kw: Message.objects.get(role=Message.Role.TOOL, **kw))


async def test_read_hang_in_chat_is_timeout_and_the_chat_keeps_working(
    users, faulty_env, fault_proxy, energy_dashboard
):
    """A hanging Superset: ``timeout`` error frame within timeout + 1 s, an answer; the next message works."""
    await aset_tool_timeout("get_health_summary", 2.0)
    detail = rf"^/api/v1/dashboard/{energy_dashboard['id']}$"
    fault_proxy.inject("GET", detail, Fault.HANG)
    communicator, _, _ = await ws_connect(users["engineer"])
    context = faulty_context(energy_dashboard)

    await communicator.send_json_to({"type": "user_message", "text": "расскажи про этот дашборд", "context": context})
    started = await frames_until(communicator, "tool_started")
    t0 = time.monotonic()
    finished = (await frames_until(communicator, "tool_finished", wait_s=10))[-1]
    waited = time.monotonic() - t0
    rest = await frames_until(communicator, "message")

    assert not finished["ok"]
    assert waited <= 3.0
    assert finished["duration_ms"] <= 3000
    error = next(f for f in rest if f["event"] == "error")
    assert error["code"] == "timeout"
    assert error["message"] == text(
        "ru", "Tool %(tool)s did not answer within %(timeout_s)s s.", tool="get_health_summary", timeout_s=2
    )
    assert error["message"] in rest[-1]["text"]

    fault_proxy.clear()
    conversation_id = started[0]["conversation_id"]
    await communicator.send_json_to(
        {
            "type": "user_message",
            "conversation_id": conversation_id,
            "text": "расскажи про этот дашборд",
            "context": context,
        }
    )
    second = await frames_until(communicator, "message")
    await communicator.disconnect()

    assert next(f for f in second if f["event"] == "tool_finished")["ok"] is True
    assert energy_dashboard["dashboard_title"] in second[-1]["text"]
    rows = await audit(event_type=Event.TIMEOUT, conversation_id=conversation_id)
    assert [(r.tool, r.env_id, r.outcome) for r in rows] == [("get_health_summary", FAULTY_ENV, "timeout")]
    assert 2000 <= rows[0].duration_ms <= 3000
    assert rows[0].extra_data["retries"] == 0


async def test_transient_503_in_chat_is_retried_and_audited(users, faulty_env, fault_proxy, energy_dashboard):
    """One 503 on the dashboard detail: retried once, the answer shows the real dashboard, one ``retry`` row."""
    detail = rf"^/api/v1/dashboard/{energy_dashboard['id']}$"
    fault_proxy.inject("GET", detail, Fault.STATUS, status=503, times=1)
    communicator, _, _ = await ws_connect(users["analyst"])

    await communicator.send_json_to(
        {"type": "user_message", "text": "расскажи про этот дашборд", "context": faulty_context(energy_dashboard)}
    )
    frames = await frames_until(communicator, "message")
    await communicator.disconnect()

    assert next(f for f in frames if f["event"] == "tool_finished")["ok"] is True
    assert "error" not in [f["event"] for f in frames]
    assert energy_dashboard["dashboard_title"] in frames[-1]["text"]
    assert fault_proxy.count("GET", detail) == 2
    conversation_id = frames[0]["conversation_id"]
    retries = await audit(event_type=Event.RETRY, conversation_id=conversation_id)
    assert len(retries) == 1
    assert retries[0].extra_data["path"] == f"/api/v1/dashboard/{energy_dashboard['id']}"
    assert "HTTP 503" in retries[0].extra_data["error"]
    assert retries[0].tool == "get_health_summary"
    (result,) = await audit(event_type=Event.TOOL_RESULT, conversation_id=conversation_id)
    assert result.outcome == "ok"
    assert result.extra_data["retries"] == 1
    assert result.extra_data["trace_id"] == retries[0].extra_data["trace_id"]


async def test_large_result_is_summarised_for_the_llm_and_sizes_are_audited(
    users, faulty_env, energy_dashboard, settings
):
    """Over ``TOOL_RESPONSE_MAX_CHARS``: the ToolMessage is a summary within budget; raw/sent sizes audited."""
    settings.TOOL_RESPONSE_MAX_CHARS = 400
    frames: list[dict] = []

    async def emit(event):
        frames.append(event.wire())

    args = {"env_id": FAULTY_ENV, "dashboard_id": energy_dashboard["id"]}

    async def direct():
        return await tool_execute(
            spec=tool_spec("get_health_summary"),
            args=args,
            user=users["analyst"],
            conversation_id=None,
            ui_context=None,
            language="ru",
        )

    # Superset's humanized times («9 minutes ago») may tick between two calls: the turn's result is the one
    # before it or the one after it.
    before = await direct()
    conversation_id = await AgentTurn(user=users["analyst"], emit=emit).run(
        conversation_id=None, text="расскажи про этот дашборд", context=faulty_context(energy_dashboard)
    )
    full = await direct()

    assert next(f for f in frames if f["event"] == "tool_finished")["summarised"] is True
    message = await tool_message_row(conversation_id=conversation_id)
    assert len(message.content) <= 400
    sent = json.loads(message.content)
    assert list_totals(sent)[("charts",)] == len(full.result["charts"]) == 3
    (summarised,) = await audit(event_type=Event.SUMMARISED, conversation_id=conversation_id)
    # The turn's result names the object it acted on (runtime/binding.py, SC-001) before it is measured.
    used = object_used(tool_spec("get_health_summary"), args, faulty_context(energy_dashboard))
    assert summarised.raw_chars in {len(to_json({"object_used": used, **r.result})) for r in (before, full)}
    assert summarised.sent_chars == len(message.content)
    (result,) = await audit(event_type=Event.TOOL_RESULT, conversation_id=conversation_id)
    assert (result.raw_chars, result.sent_chars) == (summarised.raw_chars, summarised.sent_chars)
    assert result.extra_data["summarised"] is True


@pytest.mark.parametrize(
    ("case", "code", "event"),
    [
        ("write_committed_then_502", "status_unknown", Event.TOOL_ERROR),
        ("write_committed_then_hang", "status_unknown", Event.TIMEOUT),
        ("read_429", "rate_limited", Event.TOOL_ERROR),
        ("read_401", "session_expired", Event.SESSION_EXPIRED),
    ],
)
async def test_failed_outcome_becomes_error_frame_tool_message_and_audit_row(
    users, faulty_env, fault_proxy, settings, case, code, event
):
    """Each failure: one ``error`` frame, one error ToolMessage telling the LLM not to repeat, one audit row."""
    settings.TOOL_TIMEOUT_S = 3.0
    user = users["engineer"]
    name = f"faultprobe-{uuid.uuid4().hex[:12]}"
    if case.startswith("write"):
        spec, args = CREATE_CHART, {"env_id": FAULTY_ENV, "name": name}
        fault = Fault.COMMIT_THEN_STATUS if case.endswith("502") else Fault.COMMIT_THEN_HANG
        fault_proxy.inject("POST", r"^/api/v1/chart/$", fault)
    else:
        spec, args = tool_spec("search_dashboards"), {"env_id": FAULTY_ENV}
        status = 429 if case.endswith("429") else 401
        fault_proxy.inject("GET", r"^/api/v1/dashboard/$", Fault.STATUS, status=status, retry_after="30")
    conversation = await database_sync_to_async(conv.conversation_start)(user=user, text="test", context=None)
    frames: list[dict] = []

    async def emit(event):
        frames.append(event.wire())

    try:
        outcome = await tool_execute(
            spec=spec, args=args, user=user, conversation_id=conversation.pk, ui_context=None, language="ru"
        )
        tool_message = await CallRunner(user=user, emit=emit).finish(
            conversation, spec.name, spec.category, "call_1", args, outcome
        )
    finally:
        if case.startswith("write"):
            await sync_to_async(charts_delete)(await wait_for_charts(name))

    assert [f["event"] for f in frames] == ["tool_finished", "error"]
    assert frames[1]["code"] == code
    assert frames[1]["message"] == outcome.error_message
    if code == "rate_limited":
        assert (
            text("ru", "Too many requests to Superset, retry in %(retry_after)s s.", retry_after=30)
            == frames[1]["message"]
        )
    assert tool_message.status == "error"
    payload = json.loads(tool_message.content)
    assert payload["error"] == code
    assert "again" in payload["instruction"] or "Never repeat" in payload["instruction"]
    stored = await tool_message_row(conversation=conversation)
    assert (stored.tool_call_id, stored.content) == ("call_1", tool_message.content)
    rows = await audit(conversation_id=conversation.pk)
    assert [(r.event_type, r.outcome, r.tool) for r in rows] == [(event, code, spec.name)]
    assert rows[0].sent_chars == len(tool_message.content)
    assert rows[0].raw_chars is None
    assert rows[0].extra_data["category"] == spec.category
