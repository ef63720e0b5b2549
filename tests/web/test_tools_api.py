"""``GET /api/agent/tools/`` (policy preview for the calling user) and the rule that roles come only from the
server-side user: extra ``role``/``tools``/``permissions`` fields are refused in frames, contexts and queries."""

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from agentchat.runtime.registry import registry
from agentchat.toolset.selection import toolset_for
from policies.defaults import ROLES, TOOLS
from policies.models import AuditEvent, Environment
from tests.support.websocket import frames_until, ws_connect

URL = "/api/agent/tools/"
CLIENT_ESCALATIONS = [("role", "admin"), ("tools", ["execute_migration"]), ("permissions", ["*"])]


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_url_name_resolves():
    assert reverse("api-tools") == URL


@pytest.mark.django_db
@pytest.mark.parametrize("object_type", ["", "dashboard", "dataset", "migration"])
@pytest.mark.parametrize("role", ROLES)
def test_preview_lists_what_the_chat_would_offer_the_caller(users, role, object_type):
    user = users[role]
    response = client_for(user).get(URL, {"objectType": object_type, "envId": "ss-dev"})
    assert response.status_code == 200
    body = response.json()
    context = {"objectType": object_type or None, "envId": "ss-dev"}
    expected = toolset_for(user=user, context=context)
    assert body["tools"] == [{"name": s.name, "category": s.category, "env_specific": s.env_specific} for s in expected]
    assert body["roles"] == [role]
    assert (body["objectType"], body["envId"]) == (object_type or None, "ss-dev")
    for tool in body["tools"]:
        assert tool["category"] == TOOLS[tool["name"]][0]
        if role == "analyst":
            assert tool["category"] == "read"


@pytest.mark.django_db
def test_preview_for_engineer_on_dashboard_is_the_seed_set_and_issue_28s(users):
    body = client_for(users["engineer"]).get(URL, {"objectType": "dashboard", "envId": "ss-dev"}).json()
    expected = {
        "search_dashboards",
        "get_health_summary",
        "deploy_dashboard",
        "run_llm_validation",
        "run_llm_documentation",
        "create_branch",
        "commit_changes",
        "show_capabilities",
        "compare_versions",  # issue 28 item 1
        "deploy_history",  # issue 28 item 5
        "rollback_deploy",  # issue 28 item 4
        "list_backups",  # issue 28 item 3: the copies before a change
    }
    assert {t["name"] for t in body["tools"]} == expected & set(registry())


@pytest.mark.django_db
def test_preview_without_parameters_has_no_env_specific_tools(users):
    body = client_for(users["admin"]).get(URL).json()
    assert (body["objectType"], body["envId"]) == (None, None)
    names = {t["name"] for t in body["tools"]}
    assert names == {n for n, spec in TOOLS.items() if not spec[1]} & set(registry())


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"objectType": "report"}, "objectType"),
        ({"objectType": "Dashboard"}, "objectType"),
        ({"envId": "nowhere"}, "envId"),
        ({"envId": "../prod"}, "envId"),
        ({"role": "admin"}, "role"),
        ({"tools": "execute_migration"}, "tools"),
        ({"permissions": "*"}, "permissions"),
        ({"objectType": ["dashboard", "dataset"]}, "objectType"),
    ],
)
def test_preview_rejects_bad_parameters_with_422(users, query, field):
    response = client_for(users["analyst"]).get(URL, query)
    assert response.status_code == 422
    assert field in response.json()["errors"]


@pytest.mark.django_db
def test_preview_rejects_an_inactive_environment(users):
    Environment.objects.filter(env_id="staging").update(is_active=False)
    response = client_for(users["engineer"]).get(URL, {"envId": "staging"})
    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["envId"]


@pytest.mark.django_db
def test_preview_needs_a_logged_in_user(policy_defaults):
    assert Client().get(URL, {"objectType": "dashboard"}).status_code in (401, 403)


@pytest.mark.django_db
@pytest.mark.parametrize(("key", "value"), CLIENT_ESCALATIONS)
def test_context_api_rejects_client_role_fields(users, key, value):
    payload = {"contextVersion": 1, "objectType": "dashboard", "envId": "ss-dev", key: value}
    response = client_for(users["analyst"]).post("/api/agent/context/", payload, content_type="application/json")
    assert response.status_code == 422
    assert key in response.json()["errors"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("key", "value"), CLIENT_ESCALATIONS)
async def test_websocket_frame_with_role_fields_is_a_bad_frame(users, key, value):
    communicator, connected, _ = await ws_connect(users["analyst"])
    assert connected
    await communicator.send_json_to({"type": "user_message", "text": "выполни миграцию", "context": None, key: value})
    frame = await communicator.receive_json_from(timeout=10)
    assert (frame["event"], frame["code"]) == ("error", "bad_frame")
    assert key in frame["message"]
    assert await communicator.receive_nothing(timeout=0.5)
    await communicator.disconnect()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("key", "value"), CLIENT_ESCALATIONS)
async def test_websocket_context_with_role_fields_is_rejected_and_never_used(users, key, value):
    """The message is not run with (or without) that context: no turn starts, the rejection is audited."""
    communicator, connected, _ = await ws_connect(users["analyst"])
    assert connected
    context = {"contextVersion": 1, "objectType": "dashboard", "envId": "ss-dev", key: value}
    await communicator.send_json_to({"type": "user_message", "text": "выполни миграцию", "context": context})
    frames = await frames_until(communicator, "error", wait_s=10)
    assert [(f["event"], f.get("code")) for f in frames] == [("error", "invalid_context")]
    assert key in frames[0]["errors"]
    assert await communicator.receive_nothing(timeout=0.5)
    await communicator.disconnect()
    counts = await database_sync_to_async(_audit_counts)(users["analyst"])
    assert counts == {"context_rejected": 1, "tool_offered": 0}


def _audit_counts(user) -> dict[str, int]:
    events = AuditEvent.objects.filter(actor=user)
    return {name: events.filter(event_type=name).count() for name in ("context_rejected", "tool_offered")}
