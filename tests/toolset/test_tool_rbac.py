"""Invocation-level RBAC (DESIGN §5 step 6, §6; seed AGTL-FR-005 b, AGGRD-FR-003, SC-005 invocation layer).

A scripted chat model calls tools the user may not run, whatever was offered: every such call is refused before
anything runs. Superset is reached only through counting loopback proxies, so "no upstream request" is counted,
not assumed; a permitted call in the same turn shows that the proxies do see the app's traffic.
"""

import json
import re

import pytest
from channels.db import database_sync_to_async
from langchain_core.messages import ToolMessage

from agentchat.models import Message
from agentchat.runtime.registry import registry
from agentchat.toolset.selection import ALWAYS_OFFERED, toolset_for
from agentchat.turn.agent import AgentTurn
from policies.defaults import ROLES, TOOLS
from policies.models import AuditEvent, Environment, ToolPermission
from tests.support.contexts import ui_context
from tests.support.loopback_proxy import CountingProxy
from tests.support.scripted_llm import scripted, tool_calls_message
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _whole_policy_set(settings):
    """These tests are about the policy set itself: the embedding router (which narrows it per question,
    tests/toolset/test_router.py) is off."""
    settings.EMBEDDINGS = "off"


UNKNOWN_NAMES = ["drop_all_dashboards", "grant_admin_role", "x" * 200]
SUPERSET_PORTS = {
    "ss-dev": "http://127.0.0.1:8088",
    "staging": "http://127.0.0.1:8088",
    "prod": "http://127.0.0.1:8089",
}


def context(object_type: str | None, env_id: str | None = "ss-dev") -> dict:
    return ui_context(object_type, 1 if object_type else None, env_id=env_id)


@pytest.fixture
def proxies(superset_stack, users):
    """Every environment points at a counting proxy in front of its real local Superset."""
    started = {env_id: CountingProxy(upstream).__enter__() for env_id, upstream in SUPERSET_PORTS.items()}
    for env_id, proxy in started.items():
        Environment.objects.filter(env_id=env_id).update(superset_url=proxy.url)
    yield started
    for proxy in started.values():
        proxy.__exit__(None, None, None)


def upstream_requests(proxies: dict) -> int:
    return sum(p.count for p in proxies.values())


class Recorder:
    """The turn's ``emit``: keeps every frame with the number of upstream requests made when it was sent."""

    def __init__(self, proxies: dict):
        self.proxies = proxies
        self.frames: list[dict] = []
        self.requests_at: list[int] = []

    async def __call__(self, event) -> None:
        self.frames.append(event.wire())
        self.requests_at.append(upstream_requests(self.proxies))

    def events(self, name: str) -> list[dict]:
        return [f for f in self.frames if f["event"] == name]


def lacking_tools(role: str) -> list[str]:
    """The catalogue tools (DESIGN §8, all 22) the role has no permission for in the policy tables."""
    permitted = set(ToolPermission.objects.filter(group__name=role).values_list("tool_id", flat=True))
    return sorted(set(TOOLS) - permitted)


def _revoke(role: str, name: str) -> None:
    ToolPermission.objects.filter(group__name=role, tool_id=name).delete()


def required_roles(name: str) -> list[str]:
    return sorted(ToolPermission.objects.filter(tool_id=name).values_list("group__name", flat=True))


def assert_denial_card(frame: dict) -> None:
    """A «Недостаточно прав» card (a tool this page does not offer: «Недоступно на этой странице») with a dismiss
    button and no confirm button anywhere (DESIGN §9)."""
    html = frame["html"]
    assert set(frame) == {"event", "call_id", "tool", "required_roles", "html"}
    title = "Not available on this page" if 'data-reason="not_offered"' in html else "Not enough permissions"
    assert text("ru", title) in html or title in html
    assert re.findall(r"<button\b", html) == ["<button"]
    assert 'data-action="dismiss"' in html
    assert "confirm" not in html.lower()


@pytest.mark.parametrize("role", ROLES)
async def test_every_tool_the_role_lacks_is_refused_at_invocation(users, proxies, role):
    """SC-005 both layers: none of the role's missing tools is offered, and each call of one is refused."""
    user = users[role]
    ctx = context(None)
    # given: the role has also lost a registered tool, so the role check is exercised on real code today
    await database_sync_to_async(_revoke)(role, "get_health_summary")
    lacking = await database_sync_to_async(lacking_tools)(role)
    assert "get_health_summary" in lacking
    names = lacking + UNKNOWN_NAMES
    denied_calls = [(name, {"env_id": "prod", "dashboard_id": 1}) for name in names]
    model = scripted(
        tool_calls_message(denied_calls, prefix="denied"),
        tool_calls_message([("search_dashboards", {"env_id": "ss-dev", "query": "энерго"})], prefix="allowed"),
        "Готово.",
    )
    recorder = Recorder(proxies)

    conversation_id = await AgentTurn(user=user, emit=recorder, model=model).run(
        conversation_id=None, text="сделай всё", context=ctx
    )

    # prompt layer: nothing the role lacks was offered to the LLM
    assert not set(model.bound[0]) & set(names)
    # invocation layer: one permission_denied frame per refused call, made before any upstream request
    denied = recorder.events("permission_denied")
    assert [f["call_id"] for f in denied] == [f"denied_{n}" for n in range(len(names))]
    assert [f["tool"] for f in denied] == [name[:64] for name in names]
    first_allowed = recorder.frames.index(recorder.events("tool_started")[0])
    assert recorder.requests_at[first_allowed] == 0
    for frame, name in zip(denied, names, strict=True):
        assert_denial_card(frame)
        assert frame["required_roles"] == await database_sync_to_async(required_roles)(name)
        assert role not in frame["required_roles"]
    assert not recorder.events("confirm_required")
    assert [f["tool"] for f in recorder.events("tool_started")] == ["search_dashboards"]
    # the control call did reach Superset through the proxies
    assert recorder.events("tool_finished")[0]["ok"] is True
    assert upstream_requests(proxies) > 0

    audit = await database_sync_to_async(list)(
        AuditEvent.objects.filter(conversation_id=conversation_id, event_type="permission_denied")
    )
    assert sorted(a.extra_data["call_id"] for a in audit) == sorted(f"denied_{n}" for n in range(len(names)))
    assert all(a.actor_id == user.pk and a.outcome == "denied" for a in audit)
    specs = registry()
    assert {a.tool: a.extra_data["reason"] for a in audit} == {
        name[:64]: "role" if name in specs else "unknown_tool" for name in names
    }
    tool_rows = await database_sync_to_async(list)(Message.objects.filter(conversation_id=conversation_id, role="tool"))
    by_call = {}
    for row in tool_rows:
        by_call.setdefault(row.tool_call_id, []).append(row)
    for n in range(len(names)):
        (row,) = by_call[f"denied_{n}"]
        body = json.loads(row.content)
        assert body["error"] == "permission_denied"
        assert "Do not retry" in body["message"]
    # the LLM's next step received exactly one ToolMessage per refused call id
    answers = [m for m in model.seen[1] if isinstance(m, ToolMessage)]
    assert sorted(m.tool_call_id for m in answers) == sorted(f"denied_{n}" for n in range(len(names)))
    assert all(m.status == "error" and "refused" in m.content for m in answers)


async def test_permitted_tool_not_offered_on_this_page_is_refused(users, proxies):
    """An engineer on a dataset page: dashboard-only tools the role has are not offered, and calling one fails."""
    engineer = users["engineer"]
    ctx = context("dataset")
    offered = {s.name for s in await database_sync_to_async(toolset_for)(user=engineer, context=ctx)}
    permitted = set(
        await database_sync_to_async(
            lambda: list(engineer.groups.get().tool_permissions.values_list("tool_id", flat=True))
        )()
    )
    candidates = sorted((permitted & set(registry())) - offered - {ALWAYS_OFFERED})
    assert "get_health_summary" in candidates
    model = scripted(
        tool_calls_message([(name, {"env_id": "ss-dev", "dashboard_id": 1}) for name in candidates], prefix="off"),
        "Не могу.",
    )
    recorder = Recorder(proxies)

    conversation_id = await AgentTurn(user=engineer, emit=recorder, model=model).run(
        conversation_id=None, text="покажи здоровье дашборда 1", context=ctx
    )

    denied = recorder.events("permission_denied")
    assert [f["tool"] for f in denied] == candidates
    for frame in denied:
        assert_denial_card(frame)
        assert "engineer" in frame["required_roles"]
        assert 'data-reason="not_offered"' in frame["html"]
    assert not recorder.events("tool_started")
    assert upstream_requests(proxies) == 0
    reasons = await database_sync_to_async(list)(
        AuditEvent.objects.filter(conversation_id=conversation_id, event_type="permission_denied").values_list(
            "extra_data__reason", flat=True
        )
    )
    assert reasons == ["not_offered"] * len(candidates)


async def test_show_capabilities_is_always_callable(users, proxies):
    """The one tool every user is offered runs for a user with no role at all."""
    nobody = users["analyst"]
    await database_sync_to_async(nobody.groups.clear)()
    model = scripted(tool_calls_message([(ALWAYS_OFFERED, {})]), "Вот что я умею.")
    recorder = Recorder(proxies)

    await AgentTurn(user=nobody, emit=recorder, model=model).run(
        conversation_id=None, text="что ты умеешь?", context=context("dashboard")
    )

    assert model.bound[0] == [ALWAYS_OFFERED]
    assert not recorder.events("permission_denied")
    assert recorder.events("tool_finished")[0]["ok"] is True
    assert upstream_requests(proxies) == 0
