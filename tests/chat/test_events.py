"""The outbound events (``agentchat.chat.events``, DESIGN §6) keep the wire shape the page reads: the same keys in
the same order, the same values, the same omissions; and the events handed over to other tabs are the six the
consumer always handed over."""

import json

import pytest

from agentchat.chat.events import (
    CancelledEvent,
    CardDecision,
    CardStateEvent,
    ConfirmRequiredEvent,
    ConversationEvent,
    ErrorEvent,
    MessageEvent,
    OutboundEvent,
    PermissionDeniedEvent,
    TokenEvent,
    ToolFinishedEvent,
    ToolStartedEvent,
    TurnAnswer,
    TurnStateEvent,
)

DECISION = {
    "risk_level": "guarded",
    "tone": "warning",
    "env_id": "ss-dev",
    "tier": "dev",
    "operation": "write",
    "impact": {"summary": "1 dataset", "objects": [{"id": 3, "name": "energy"}]},
    "typed_confirmation": False,
    "prompt": "Изменения в dev-окружении",
    "acts_as": "user",
}

# (event, the frame the page receives) — each frame as the turn and the consumer wrote it as a dict literal.
CASES = [
    (
        ConversationEvent(conversation_id=5, context_status="ok", provider="Офлайн"),
        {"event": "conversation", "conversation_id": 5, "context_status": "ok", "provider": "Офлайн"},
    ),
    (TokenEvent(message_id=7, text="При"), {"event": "token", "message_id": 7, "text": "При"}),
    (
        MessageEvent(message_id=7, text="Привет", html="<p>Привет</p>"),
        {"event": "message", "message_id": 7, "text": "Привет", "html": "<p>Привет</p>"},
    ),
    (
        MessageEvent(message_id=None, text="Операция отменена", html="<p>…</p>"),
        {"event": "message", "message_id": None, "text": "Операция отменена", "html": "<p>…</p>"},
    ),
    (
        ToolStartedEvent(call_id="c1", tool="search_dashboards", title="поиск дашбордов"),
        {"event": "tool_started", "call_id": "c1", "tool": "search_dashboards", "title": "поиск дашбордов"},
    ),
    (
        ToolFinishedEvent(call_id="c1", tool="t", title="т", ok=True, duration_ms=12, summarised=False),
        {
            "event": "tool_finished",
            "call_id": "c1",
            "tool": "t",
            "title": "т",
            "ok": True,
            "duration_ms": 12,
            "summarised": False,
        },
    ),
    (
        ToolFinishedEvent(
            call_id="c2", tool="run_backup", title="б", ok=True, duration_ms=3, summarised=True, task_id=9
        ),
        {
            "event": "tool_finished",
            "call_id": "c2",
            "tool": "run_backup",
            "title": "б",
            "ok": True,
            "duration_ms": 3,
            "summarised": True,
            "task_id": 9,
        },
    ),
    (
        ConfirmRequiredEvent(
            confirmation_id=4, tool="create_branch", call_id="c3", decision=CardDecision(**DECISION), html="<div>"
        ),
        {
            "event": "confirm_required",
            "confirmation_id": 4,
            "tool": "create_branch",
            "call_id": "c3",
            "decision": DECISION,
            "html": "<div>",
        },
    ),
    (
        PermissionDeniedEvent(call_id="c4", tool="deploy", required_roles=["admin", "engineer"], html="<div>"),
        {
            "event": "permission_denied",
            "call_id": "c4",
            "tool": "deploy",
            "required_roles": ["admin", "engineer"],
            "html": "<div>",
        },
    ),
    (
        CancelledEvent(confirmation_id=4, reason="expired", html="<div>"),
        {"event": "cancelled", "confirmation_id": 4, "reason": "expired", "html": "<div>"},
    ),
    (
        CardStateEvent(confirmation_id=4, status="executed", html="<div>"),
        {"event": "card_state", "confirmation_id": 4, "status": "executed", "html": "<div>"},
    ),
    (ErrorEvent(code="internal", message="Ошибка"), {"event": "error", "code": "internal", "message": "Ошибка"}),
    (
        ErrorEvent(code="timeout", message="Не успел", call_id="c5"),
        {"event": "error", "code": "timeout", "message": "Не успел", "call_id": "c5"},
    ),
    (
        ErrorEvent(code="invalid_context", message="Неверный контекст", errors={"envId": ["bad"]}),
        {"event": "error", "code": "invalid_context", "message": "Неверный контекст", "errors": {"envId": ["bad"]}},
    ),
    (
        ConversationEvent(conversation_id=5, context_status="none", provider="Офлайн", client_id="m-1"),
        {
            "event": "conversation",
            "conversation_id": 5,
            "context_status": "none",
            "provider": "Офлайн",
            "client_id": "m-1",
        },
    ),
    (
        ErrorEvent(code="database_unavailable", message="База", text="привет", client_id="m-2"),
        {"event": "error", "code": "database_unavailable", "message": "База", "text": "привет", "client_id": "m-2"},
    ),
    (
        TurnStateEvent(client_id="m-3", state="running", conversation_id=5),
        {"event": "turn_state", "client_id": "m-3", "state": "running", "conversation_id": 5},
    ),
    (
        TurnStateEvent(client_id="m-4", state="not_received", message="Не дошло"),
        {"event": "turn_state", "client_id": "m-4", "state": "not_received", "message": "Не дошло"},
    ),
    (
        TurnStateEvent(
            client_id="m-5",
            state="done",
            conversation_id=5,
            answer=TurnAnswer(message_id=9, text="Да", html="<p>Да</p>"),
        ),
        {
            "event": "turn_state",
            "client_id": "m-5",
            "state": "done",
            "conversation_id": 5,
            "answer": {"message_id": 9, "text": "Да", "html": "<p>Да</p>"},
        },
    ),
]


@pytest.mark.parametrize(("event", "frame"), CASES, ids=[f"{e.event}-{i}" for i, (e, _) in enumerate(CASES)])
def test_every_event_has_its_wire_shape_keys_in_order(event: OutboundEvent, frame: dict):
    """``wire()`` is exactly the frame the page received before the events were typed, key order included."""
    wire = event.wire()

    assert wire == frame
    assert list(wire) == list(frame)


@pytest.mark.parametrize(("event", "frame"), CASES, ids=[f"{e.event}-{i}" for i, (e, _) in enumerate(CASES)])
def test_a_wire_frame_round_trips_through_json_and_its_event_type(event: OutboundEvent, frame: dict):
    """The frame is plain JSON, and validating it back into its type gives the same frame."""
    sent = json.loads(json.dumps(event.wire(), ensure_ascii=False))
    fields = {key: value for key, value in sent.items() if key != "event"}

    assert type(event).model_validate(fields).wire() == frame


def test_the_handed_over_events_are_the_six_a_reloaded_page_must_not_lose():
    """Answers, cards and their states, and the finished tool's line reach other tabs; tokens, «⏳ …» lines,
    errors and the conversation event do not."""
    kinds = OutboundEvent.__subclasses__()

    handed_over = {kind.event for kind in kinds if kind.handed_over}

    assert handed_over == {
        "message",
        "confirm_required",
        "permission_denied",
        "cancelled",
        "card_state",
        "tool_finished",
    }
    assert {kind.event for kind in kinds} == {
        "conversation",
        "token",
        "message",
        "tool_started",
        "tool_finished",
        "confirm_required",
        "permission_denied",
        "cancelled",
        "card_state",
        "error",
        "turn_state",
    }


def test_an_event_refuses_a_field_the_protocol_does_not_have():
    """A misspelt or extra field fails when the event is built, not on the page."""
    with pytest.raises(ValueError, match="extra"):
        TokenEvent(message_id=1, text="a", html="<p>")
