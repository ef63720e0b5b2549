"""The chat WebSocket (DESIGN §6) against the real local Superset: auth, origin, malformed frames, one turn."""

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext

from tests.support.chat_server import ChatServer, dashboard_summary_model, history_problems
from tests.support.contexts import dashboard_context
from tests.support.websocket import frames_until, ws_connect

pytestmark = pytest.mark.django_db(transaction=True)


async def test_anonymous_socket_is_closed_with_4401(policy_defaults):
    communicator, connected, _ = await ws_connect(None)
    assert connected
    closed = await communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4401}
    await communicator.disconnect()


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        (b"http://evil.example", b"localhost"),
        (b"http://localhost:8088", b"localhost:8000"),  # another app on the same host, e.g. Superset
        (b"http://localhost:9999", b"localhost"),
        (b"https://localhost", b"localhost"),  # other scheme, other origin
        (b"null", b"localhost"),
        (b"", b"localhost"),
    ],
)
async def test_foreign_origin_is_refused(users, origin, host):
    """The Origin must be the socket's own scheme+host+port (DESIGN §6), not just a host in ALLOWED_HOSTS."""
    communicator, connected, _ = await ws_connect(users["engineer"], origin=origin, host=host)
    assert not connected
    await communicator.disconnect()


async def test_same_origin_with_port_is_accepted(users):
    communicator, connected, _ = await ws_connect(
        users["engineer"], origin=b"http://localhost:8000", host=b"localhost:8000"
    )
    assert connected
    await communicator.disconnect()


@pytest.mark.parametrize(
    "raw",
    [
        {"text_data": "not json {"},
        {"text_data": '{"type": "launch_missiles"}'},
        {"text_data": "[1, 2, 3]"},
        {"text_data": '{"type": "user_message", "text": "hi", "role": "admin"}'},
        {"bytes_data": b"\x00\x01binary"},
    ],
)
async def test_malformed_frame_gets_bad_frame_and_socket_stays_open(users, raw):
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await communicator.send_to(**raw)
    frame = await communicator.receive_json_from(timeout=5)
    assert frame["event"] == "error"
    assert frame["code"] == "bad_frame"
    # The socket still works: a valid message starts a turn.
    await communicator.send_json_to({"type": "user_message", "text": "что ты умеешь?", "context": None})
    frames = await frames_until(communicator, "message")
    assert frames[0]["event"] == "conversation"
    await communicator.disconnect()


@pytest.fixture(params=["offline", "openai"])
def provider(request, settings):
    """Both providers of DESIGN §11: the offline planner, and ChatOpenAI on a scripted chat-completions server
    that calls get_health_summary for the page's dashboard and answers from the tool result it is sent."""
    if request.param == "offline":
        settings.LLM_PROVIDER = "offline"
        yield None
        return
    with ChatServer(default=dashboard_summary_model) as server:
        settings.LLM_PROVIDER, settings.LLM_BASE_URL = "openai", server.url
        settings.LLM_MODEL, settings.LLM_API_KEY = server.model, "test-key"
        yield server


async def test_dashboard_question_streams_frames_in_order_with_real_data(
    users, energy_dashboard, superset_stack, provider
):
    """«расскажи про этот дашборд» from the dashboard page: the answer names it and lists its real charts,
    with either provider; the ``conversation`` frame names the provider that answers."""
    communicator, connected, _ = await ws_connect(users["engineer"])
    assert connected
    await communicator.send_json_to(
        {
            "type": "user_message",
            "conversation_id": None,
            "text": "расскажи про этот дашборд",
            "context": dashboard_context(energy_dashboard),
        }
    )
    frames = await frames_until(communicator, "message")
    await communicator.disconnect()

    events = [f["event"] for f in frames]
    assert events[:3] == ["conversation", "tool_started", "tool_finished"]
    assert events[-1] == "message"
    assert set(events[3:-1]) <= {"token"}  # a fast answer's tail comes with its message (issue 17): maybe no token
    assert frames[1]["tool"] == "get_health_summary"
    assert frames[2]["ok"] is True
    answer = frames[-1]["text"]
    assert answer.startswith("".join(f["text"] for f in frames[3:-1]))
    assert energy_dashboard["dashboard_title"] in answer
    charts = superset_stack.dashboard_chart_names("ss-dev", energy_dashboard["id"])
    assert len(charts) == 3
    for name in charts:
        assert name in answer
    assert re.search(r"[а-яА-Я]", answer.split("«")[0])  # Russian answer
    if provider is None:
        with translation.override("ru"):  # the turn's language: the question is Russian
            assert frames[0]["provider"] == gettext("Offline planner (no network)")
    else:
        assert provider.model in frames[0]["provider"]
        assert [r.last["role"] for r in provider.requests] == ["user", "tool"]
        assert all(history_problems(r.messages) == [] for r in provider.requests)


async def test_english_question_gets_english_answer(users, energy_dashboard):
    communicator, _, _ = await ws_connect(users["analyst"])
    await communicator.send_json_to(
        {"type": "user_message", "text": "tell me about this dashboard", "context": dashboard_context(energy_dashboard)}
    )
    frames = await frames_until(communicator, "message")
    await communicator.disconnect()
    answer = frames[-1]["text"]
    assert answer.startswith("Dashboard")
    assert "Charts (3)" in answer
    assert energy_dashboard["dashboard_title"] in answer


async def test_english_question_on_a_russian_page_keeps_the_header_in_russian(users, energy_dashboard):
    """The header's provider label is page chrome: a Russian page (no Accept-Language) keeps it Russian when the
    question, and so the answer, is English."""
    communicator, _, _ = await ws_connect(users["analyst"])
    await communicator.send_json_to(
        {"type": "user_message", "text": "tell me about this dashboard", "context": dashboard_context(energy_dashboard)}
    )
    frames = await frames_until(communicator, "message")
    await communicator.disconnect()
    assert frames[-1]["text"].startswith("Dashboard")
    with translation.override("ru"):
        assert frames[0]["provider"] == gettext("Offline planner (no network)")


async def test_conversation_continues_with_its_id(users, energy_dashboard):
    communicator, _, _ = await ws_connect(users["engineer"])
    context = dashboard_context(energy_dashboard)
    await communicator.send_json_to({"type": "user_message", "text": "расскажи про этот дашборд", "context": context})
    first = await frames_until(communicator, "message")
    conversation_id = first[0]["conversation_id"]
    await communicator.send_json_to(
        {"type": "user_message", "conversation_id": conversation_id, "text": "что ты умеешь?", "context": context}
    )
    second = await frames_until(communicator, "message")
    await communicator.disconnect()
    assert second[0] == {**second[0], "event": "conversation", "conversation_id": conversation_id}
    assert "Сводка о дашборде" in second[-1]["text"]  # tools by their titles, never internal names
    assert "get_health_summary" not in second[-1]["text"]


async def test_blank_message_is_a_bad_frame(users):
    communicator, _, _ = await ws_connect(users["engineer"])
    await communicator.send_json_to({"type": "user_message", "text": " \n\t ", "context": None})
    frame = await communicator.receive_json_from(timeout=5)
    assert (frame["event"], frame["code"]) == ("error", "bad_frame")
    await communicator.disconnect()
