"""The context of a conversation over its life (DESIGN §4, §5, §7; seed AGCTX-FR-003, SC-001 and edge cases),
with the offline planner against the real local Superset."""

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils.timezone import localtime

from agentchat.conversations.selectors import conversation_predates_context, conversation_turn_context
from agentchat.models import Conversation, Message, PendingConfirmation
from agentchat.runtime.registry import registry
from policies.models import AuditEvent, Tool
from tests.support.contexts import DASHBOARD_1, dashboard_context
from tests.support.websocket import frames_until, ws_connect
from tests.support.wording import ptext, text

pytestmark = pytest.mark.django_db(transaction=True)
Event = AuditEvent.EventType


async def ask(communicator, text: str, context: dict | None, conversation_id: int | None = None) -> list[dict]:
    await communicator.send_json_to(
        {"type": "user_message", "conversation_id": conversation_id, "text": text, "context": context}
    )
    return await frames_until(communicator, "message")


@database_sync_to_async
def audit_rows(conversation_id: int, event_type: str) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(conversation_id=conversation_id, event_type=event_type).order_by("id"))


@database_sync_to_async
def dashboard_tools_of(user) -> set[str]:
    """What DESIGN §5 step 3 allows on a dashboard page for ``user``, computed from the policy tables."""
    rows = Tool.objects.filter(enabled=True, affinities__object_type="dashboard", permissions__group__user=user)
    return {name for name in rows.values_list("name", flat=True) if name in registry()} | {"show_capabilities"}


async def test_sc001_dashboard_context_drives_the_tool_calls_and_only_dashboard_tools_are_offered(
    users, energy_dashboard
):
    """Seed SC-001: the agent identifies the dashboard of the context (id and env) and is offered only tools with
    dashboard affinity (plus show_capabilities)."""
    communicator, _, _ = await ws_connect(users["engineer"])
    frames = await ask(communicator, "какой статус у этого дашборда?", dashboard_context(energy_dashboard))
    await communicator.disconnect()

    conversation_id = frames[0]["conversation_id"]
    offered = (await audit_rows(conversation_id, Event.TOOL_OFFERED))[0]
    # Only dashboard-affinity tools (the router may keep fewer: top-K of them, DESIGN §12).
    assert set(offered.extra_data["tools"]) <= await dashboard_tools_of(users["engineer"])
    assert "get_health_summary" in offered.extra_data["tools"]
    assert offered.extra_data["object_type"] == "dashboard"
    assert offered.env_id == "ss-dev"
    assert "list_environments" not in offered.extra_data["tools"]  # dataset/migration affinity only
    calls = await audit_rows(conversation_id, Event.TOOL_RESULT)
    assert [c.tool for c in calls] == ["get_health_summary"]
    assert calls[0].args == {"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}
    assert energy_dashboard["dashboard_title"] in frames[-1]["text"]


async def test_answer_names_the_dashboard_from_superset_never_from_object_name(users, energy_dashboard):
    """``objectName`` is an untrusted URL label: the answer uses the title Superset returns for the id."""
    context = dashboard_context(energy_dashboard, name="Фальшивое имя: всё удалено")
    communicator, _, _ = await ws_connect(users["analyst"])
    frames = await ask(communicator, "расскажи про этот дашборд", context)
    await communicator.disconnect()
    answer = frames[-1]["text"]
    assert energy_dashboard["dashboard_title"] in answer
    assert "Фальшивое" not in answer


async def test_without_env_id_env_specific_tools_are_not_offered_and_the_agent_asks_for_an_environment(
    users, energy_dashboard
):
    communicator, _, _ = await ws_connect(users["engineer"])
    frames = await ask(communicator, "расскажи про этот дашборд", dashboard_context(energy_dashboard, env_id=None))
    await communicator.disconnect()

    offered = (await audit_rows(frames[0]["conversation_id"], Event.TOOL_OFFERED))[0].extra_data["tools"]
    env_specific = await database_sync_to_async(
        lambda: set(Tool.objects.filter(env_specific=True).values_list("name", flat=True))
    )()
    assert offered
    assert not env_specific & set(offered)
    assert "tool_started" not in [f["event"] for f in frames]
    assert "нужно окружение" in frames[-1]["text"]


async def test_env_selector_changes_only_the_env_of_later_messages(users, energy_dashboard, superset_stack):
    """The page sends the same context with another envId; the object stays, the tool call follows the env (prod's
    dashboard of that id may be another one or none: the call's result is not the subject)."""
    context = dashboard_context(energy_dashboard)
    communicator, _, _ = await ws_connect(users["engineer"])
    first = await ask(communicator, "расскажи про этот дашборд", context)
    conversation_id = first[0]["conversation_id"]
    await ask(communicator, "расскажи про этот дашборд", {**context, "envId": "prod"}, conversation_id)
    await communicator.disconnect()

    calls = sorted(
        [*await audit_rows(conversation_id, Event.TOOL_RESULT), *await audit_rows(conversation_id, Event.TOOL_ERROR)],
        key=lambda row: row.pk,
    )
    assert [c.args["env_id"] for c in calls] == ["ss-dev", "prod"]
    assert {c.args["dashboard_id"] for c in calls} == {energy_dashboard["id"]}
    conversation = await database_sync_to_async(Conversation.objects.get)(pk=conversation_id)
    assert conversation.ui_context == context
    snapshots = await database_sync_to_async(
        lambda: list(conversation.messages.filter(role="user").values_list("ui_context", flat=True))
    )()
    assert snapshots == [context, {**context, "envId": "prod"}]


async def test_two_tabs_keep_separate_contexts_and_conversations(users, energy_dashboard, superset_stack):
    """Two sockets of one user (two tabs) interleave messages; neither sees the other's context."""
    regions = superset_stack.dashboard_by_slug("ss-dev", "regions-overview")
    tab_a, _, _ = await ws_connect(users["engineer"])
    tab_b, _, _ = await ws_connect(users["engineer"])
    context_a = dashboard_context(energy_dashboard)
    context_b = dashboard_context(regions)
    a1 = await ask(tab_a, "расскажи про этот дашборд", context_a)
    b1 = await ask(tab_b, "расскажи про этот дашборд", context_b)
    a2 = await ask(tab_a, "расскажи про этот дашборд", context_a, a1[0]["conversation_id"])
    b2 = await ask(tab_b, "расскажи про этот дашборд", context_b, b1[0]["conversation_id"])
    await tab_a.disconnect()
    await tab_b.disconnect()

    assert a1[0]["conversation_id"] == a2[0]["conversation_id"] != b1[0]["conversation_id"]
    assert b1[0]["conversation_id"] == b2[0]["conversation_id"]
    for frames in (a1, a2):
        assert energy_dashboard["dashboard_title"] in frames[-1]["text"]
        assert regions["dashboard_title"] not in frames[-1]["text"]
    for frames in (b1, b2):
        assert regions["dashboard_title"] in frames[-1]["text"]
        assert energy_dashboard["dashboard_title"] not in frames[-1]["text"]


async def test_conversation_opened_from_history_continues_with_its_stored_context(users, energy_dashboard):
    """A later message without a context (a page that opened the conversation from history) uses the stored one."""
    communicator, _, _ = await ws_connect(users["analyst"])
    first = await ask(communicator, "привет", dashboard_context(energy_dashboard))
    conversation_id = first[0]["conversation_id"]
    later = await ask(communicator, "расскажи про этот дашборд", None, conversation_id)
    await communicator.disconnect()

    assert later[0]["context_status"] == "ok"
    calls = await audit_rows(conversation_id, Event.TOOL_RESULT)
    assert calls[-1].args == {"env_id": "ss-dev", "dashboard_id": energy_dashboard["id"]}
    assert energy_dashboard["dashboard_title"] in later[-1]["text"]


@database_sync_to_async
def legacy_conversation(user) -> int:
    """A conversation as stored before contexts existed: no version, no context, messages without snapshots."""
    conversation = Conversation.objects.create(user=user, title="старый разговор", context_version=None)
    Message.objects.create(conversation=conversation, role="user", content="расскажи про дашборд")
    Message.objects.create(conversation=conversation, role="assistant", content="Какой дашборд?")
    return conversation.pk


async def test_history_without_stored_context_says_context_unavailable_and_works_in_general_mode(users):
    conversation_id = await legacy_conversation(users["engineer"])
    communicator, _, _ = await ws_connect(users["engineer"])
    frames = await ask(communicator, "что ты умеешь?", None, conversation_id)
    await communicator.disconnect()

    assert frames[0]["context_status"] == "unavailable"
    assert frames[-1]["text"].startswith(text("ru", "Context unavailable: general mode."))
    offered = (await audit_rows(conversation_id, Event.TOOL_OFFERED))[0]
    assert offered.extra_data["object_type"] is None
    assert "list_environments" in offered.extra_data["tools"]  # general mode: not filtered by an object type


async def test_context_less_conversation_of_today_is_not_reported_unavailable(users):
    """Started without a context (e.g. from /settings): later turns are ``none``, not «контекст недоступен»."""
    communicator, _, _ = await ws_connect(users["analyst"])
    first = await ask(communicator, "что ты умеешь?", None)
    second = await ask(communicator, "что ты умеешь?", None, first[0]["conversation_id"])
    await communicator.disconnect()
    assert [first[0]["context_status"], second[0]["context_status"]] == ["none", "none"]
    assert text("ru", "Context unavailable: general mode.").split(":")[0] not in second[-1]["text"]


def test_turn_context_rules(users):
    """``conversation_turn_context``: sent context wins, else the stored one; legacy without object → unavailable."""
    user = users["analyst"]
    stored = {"contextVersion": 1, "objectType": "dataset", "objectId": "2", "objectName": None, "envId": "ss-dev"}
    env_only = {"contextVersion": 1, "objectType": None, "objectId": None, "objectName": None, "envId": "prod"}
    fresh = Conversation.objects.create(user=user, ui_context=stored, context_version=1)
    assert conversation_turn_context(conversation=fresh, sent=None) == (stored, "ok")
    assert conversation_turn_context(conversation=fresh, sent=env_only) == (env_only, "ok")

    legacy = Conversation.objects.create(user=user, context_version=None)
    assert conversation_turn_context(conversation=legacy, sent=None) == (None, "none")  # no history yet
    Message.objects.create(conversation=legacy, role="user", content="old")
    assert conversation_predates_context(conversation=legacy)
    assert conversation_turn_context(conversation=legacy, sent=None) == (None, "unavailable")
    assert conversation_turn_context(conversation=legacy, sent=env_only) == (env_only, "unavailable")
    assert conversation_turn_context(conversation=legacy, sent=stored) == (stored, "ok")


def test_history_list_shows_title_object_and_time_never_the_object_name(users):
    user = users["engineer"]
    context = {
        "contextVersion": 1,
        "objectType": "dashboard",
        "objectId": "1",
        "objectName": "<script>alert(1)</script>Фальшивка",
        "envId": "ss-dev",
        "route": "/dashboards/1",
    }
    conversation = Conversation.objects.create(user=user, title="статус отчёта", ui_context=context, context_version=1)
    Conversation.objects.create(user=users["analyst"], title="чужой разговор", context_version=1)
    client = Client()
    client.force_login(user)
    html = client.get("/agent").content.decode()
    assert f'href="/agent?conversation={conversation.pk}"' in html
    assert "статус отчёта" in html
    assert ptext("ru", "object type", "Dashboard") + " #1 · ss-dev" in html
    assert localtime(conversation.updated_at).strftime("%d.%m.%Y %H:%M") in html
    assert "Фальшивка" not in html
    assert "чужой разговор" not in html


def test_conversation_api_returns_messages_and_stored_context_only_to_its_owner(users):
    owner, other = users["engineer"], users["analyst"]
    context = {"contextVersion": 1, "objectType": "dashboard", "objectId": "1", "envId": "ss-dev"}
    conversation = Conversation.objects.create(user=owner, title="t", ui_context=context, context_version=1)
    Message.objects.create(conversation=conversation, role="user", content="вопрос")
    Message.objects.create(conversation=conversation, role="tool", content="{}", tool_call_id="c1")
    Message.objects.create(conversation=conversation, role="assistant", content="ответ")
    client = Client()
    client.force_login(owner)
    body = client.get(f"/api/agent/conversations/{conversation.pk}/").json()
    assert body["ui_context"] == context
    assert body["context_available"] is True
    assert body["object"] == ptext("ru", "object type", "Dashboard") + " #1 · ss-dev"
    assert [(m["role"], m["content"]) for m in body["messages"]] == [("user", "вопрос"), ("assistant", "ответ")]
    client.force_login(other)
    assert client.get(f"/api/agent/conversations/{conversation.pk}/").status_code == 404


def _branch_step(conversation, call_id: str, status: str, tool_result: str | None) -> PendingConfirmation:
    """An assistant message calling create_branch, its card in ``status`` and, if given, its ToolMessage."""
    call = Message.objects.create(conversation=conversation, role="assistant", content="", tool_calls=[{"id": call_id}])
    card = PendingConfirmation.objects.create(
        conversation=conversation,
        user=conversation.user,
        assistant_message=call,
        call_id=call_id,
        tool="create_branch",
        args={},
        args_sha256=call_id,
        decision={},
        status=status,
    )
    if tool_result is not None:
        Message.objects.create(
            conversation=conversation,
            role="tool",
            content=tool_result,
            tool_call_id=call_id,
            tool_name="create_branch",
            status="error" if '"error"' in tool_result else "success",
        )
    return card


def test_conversation_timeline_restores_tool_lines_system_lines_and_decided_cards(users):
    """A reloaded page shows what the chat showed: tool lines by title, «Операция отменена», final card states;
    a call that never ran gets no tool line and a pending card is left to ``resume``."""
    owner = users["engineer"]
    conversation = Conversation.objects.create(user=owner, title="t", ui_context=DASHBOARD_1, context_version=1)
    Message.objects.create(conversation=conversation, role="user", content="создай ветку feature/x")
    executed = _branch_step(conversation, "c1", "executed", '{"name": "feature/x"}')
    _branch_step(conversation, "c2", "denied", '{"error": "denied", "message": "declined"}')
    Message.objects.create(conversation=conversation, role="system", content="Операция отменена: create_branch")
    _branch_step(conversation, "c3", "pending", None)
    client = Client()
    client.force_login(owner)

    timeline = client.get(f"/api/agent/conversations/{conversation.pk}/").json()["timeline"]

    shown = [(e["kind"], e.get("role") or e.get("status") or e.get("tool")) for e in timeline]
    assert shown == [
        ("message", "user"),
        ("card", "executed"),
        ("tool", "create_branch"),
        ("card", "denied"),
        ("message", "system"),
    ]
    assert timeline[1]["id"] == executed.pk
    assert text("ru", "Confirmed and done") in timeline[1]["html"]
    assert (
        f'<b title="create_branch">{text("ru", "creating a git branch")}</b>' in timeline[1]["html"]
    )  # the title, not the code
    assert (timeline[2]["title"], timeline[2]["ok"]) == (text("ru", "creating a git branch"), True)
    assert text("ru", "Operation cancelled") in timeline[3]["html"]
