"""Policy edits in the admin apply to the next chat message, with no restart (DESIGN §1 point 5, §5 step 3).

The change goes through the admin's own change forms (inline formsets posted by a logged-in superuser); the tool
set is what the scripted chat model was offered on each message of one conversation.
"""

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import Group
from django.urls import reverse

from agentchat.runtime.registry import registry
from agentchat.turn.agent import AgentTurn
from policies.models import AuditEvent
from tests.support.admin_forms import change_form_data, first_extra_index, inline_rows
from tests.support.contexts import ui_context
from tests.support.scripted_llm import scripted

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _whole_policy_set(settings):
    """These tests are about the policy set itself: the embedding router (which narrows it per question,
    tests/toolset/test_router.py) is off."""
    settings.EMBEDDINGS = "off"


def context(object_type: str | None) -> dict:
    return ui_context(object_type, 1 if object_type else None)


async def _ignore(frame: dict) -> None:
    pass


def offered_on_message(user, object_type: str | None, conversation_id: int | None = None) -> tuple[list[str], int]:
    """Send one message as ``user``; return the tool names the LLM was offered and the conversation id."""
    model = scripted("Хорошо.")
    turn = AgentTurn(user=user, emit=_ignore, model=model)
    conversation_id = async_to_sync(turn.run)(
        conversation_id=conversation_id, text="что есть?", context=context(object_type)
    )
    return model.bound[0], conversation_id


def test_tool_page_change_applies_to_the_next_message(users, root_client):
    """Revoke the analyst's get_health_summary and add a dataset affinity on the tool's page in the admin."""
    analyst, engineer = users["analyst"], users["engineer"]
    before_analyst, analyst_chat = offered_on_message(analyst, "dashboard")
    before_engineer, engineer_chat = offered_on_message(engineer, "dataset")
    assert "get_health_summary" in before_analyst
    assert "get_health_summary" not in before_engineer

    url = reverse("admin:policies_tool_change", args=["get_health_summary"])
    page = root_client.get(url)
    data = change_form_data(page)
    analyst_group = Group.objects.get(name="analyst").pk
    row = next(r for r in inline_rows(page, "permissions") if r["group"] == analyst_group)
    data[f"permissions-{row['index']}-DELETE"] = "on"
    data[f"affinities-{first_extra_index(page, 'affinities')}-object_type"] = "dataset"
    assert root_client.post(url, data).status_code == 302

    after_analyst, _ = offered_on_message(analyst, "dashboard", analyst_chat)
    after_engineer, _ = offered_on_message(engineer, "dataset", engineer_chat)
    assert set(before_analyst) - set(after_analyst) == {"get_health_summary"}
    assert set(after_engineer) - set(before_engineer) == {"get_health_summary"}
    offered_audit = list(
        AuditEvent.objects.filter(conversation_id=analyst_chat, event_type="tool_offered").order_by("id")
    )
    assert [sorted(a.extra_data["tools"]) for a in offered_audit] == [sorted(before_analyst), sorted(after_analyst)]


def test_disabling_a_tool_in_the_list_applies_to_the_next_message(users, root_client):
    """The tool list's editable "enabled" column: switch search_dashboards off for everyone."""
    before, chat = offered_on_message(users["admin"], None)
    assert "search_dashboards" in before
    changelist = reverse("admin:policies_tool_changelist")
    page = root_client.get(changelist)
    data = {
        "form-TOTAL_FORMS": str(len(page.context["cl"].result_list)),
        "form-INITIAL_FORMS": str(len(page.context["cl"].result_list)),
        "_save": "Save",
    }
    for index, form in enumerate(page.context["cl"].formset.forms):
        data[f"form-{index}-name"] = form.instance.name
        if form.instance.enabled and form.instance.name != "search_dashboards":
            data[f"form-{index}-enabled"] = "on"
    assert root_client.post(changelist, data).status_code == 302

    after, _ = offered_on_message(users["admin"], None, chat)
    assert set(before) - set(after) == {"search_dashboards"}
    assert set(after) <= set(registry())


def test_role_page_change_applies_to_the_next_message(users, root_client):
    """Revoke list_environments from the analyst role on the role's (group's) page."""
    before, chat = offered_on_message(users["analyst"], None)
    assert "list_environments" in before
    url = reverse("admin:auth_group_change", args=[Group.objects.get(name="analyst").pk])
    page = root_client.get(url)
    data = change_form_data(page)
    row = next(r for r in inline_rows(page, "tool_permissions") if r["tool"] == "list_environments")
    data[f"tool_permissions-{row['index']}-DELETE"] = "on"
    assert root_client.post(url, data).status_code == 302

    after, _ = offered_on_message(users["analyst"], None, chat)
    assert set(before) - set(after) == {"list_environments"}
