"""The admin reads like agentchat's, in Russian without agreement errors (issue 30 item 2): branded, counts as
labels, «Добавить: группа», django-tasks' results translated, the audit log by labels, local time, indented JSON
and links to the conversation."""

import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from agentchat.models import Conversation
from policies.audit_display import json_pretty
from policies.models import AuditEvent, Tool
from policies.services import audit_record
from tests.support.wording import ptext, text

pytestmark = pytest.mark.django_db


def _page(client: Client, url: str, language: str = "ru") -> str:
    headers = {} if language == "ru" else {"accept_language": "en"}
    response = client.get(url, headers=headers)
    assert response.status_code == 200
    return response.content.decode()


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_admin_is_branded_agentchat_and_counts_as_a_label(root_client, language):
    page = _page(root_client, reverse("admin:policies_tool_changelist"), language)
    count = Tool.objects.count()
    plural = text(language, "tools")

    assert escape(text(language, "agentchat administration")) in page
    assert "Django" not in page.split("<body", 1)[1]
    assert f'<span data-testid="result-count">{plural[:1].upper()}{plural[1:]}: {count}</span>' in page
    assert f"{count} {plural}" not in page


def test_russian_add_select_and_add_another_need_no_agreement(root_client):
    add_group = _page(root_client, reverse("admin:auth_group_add"))
    tools = _page(root_client, reverse("admin:policies_tool_changelist"))
    group = _page(root_client, reverse("admin:auth_group_change", args=[Group.objects.get(name="analyst").pk]))

    assert "<title>Добавить: группа |" in add_group
    assert "Добавить группа" not in add_group
    assert "Выберите объект для изменения: инструмент" in tools
    assert (
        "Добавить ещё: Инструмент, разрешённый этой роли"
        in json.loads(group.split('data-inline-formset="', 1)[1].split('"', 1)[0].replace("&quot;", '"'))["options"][
            "addText"
        ]
    )


def test_tool_list_names_each_tool_for_people_above_its_code_name(root_client):
    page = _page(root_client, reverse("admin:policies_tool_changelist"))

    assert 'Сводка о дашборде<br><code class="tool-code">get_health_summary</code>' in page


@pytest.mark.parametrize("language", ["ru", "en"])
def test_django_tasks_results_are_translated(root_client, language):
    index = _page(root_client, reverse("admin:index"), language)
    results = _page(root_client, reverse("admin:django_tasks_database_dbtaskresult_changelist"), language)

    assert escape(text(language, "Background tasks")) in index
    assert "Tasks Database Backend" not in index
    assert escape(text(language, "Task Results")) in index
    assert ptext(language, "Task", "Successful") in results
    if language == "ru":
        assert "Task Results" not in index
        assert "Successful" not in results


def test_audit_row_reads_as_labels_local_time_json_and_a_conversation_link(root_client, users):
    conversation = Conversation.objects.create(user=users["engineer"], title="расскажи про этот дашборд")
    event = audit_record(
        event_type=AuditEvent.EventType.TOOL_RESULT,
        actor=users["engineer"],
        conversation_id=conversation.pk,
        tool="get_health_summary",
        env_id="ss-dev",
        args={"dashboard_id": 1, "env_id": "ss-dev"},
        outcome="ok",
        extra={"acting": {"ss-dev": {"kind": "password", "superset_username": "инженер"}}},
    )
    event.refresh_from_db()
    local = timezone.localtime(event.created_at)

    listed = _page(root_client, reverse("admin:policies_auditevent_changelist"))
    detail = _page(root_client, reverse("admin:policies_auditevent_change", args=[event.pk]))

    succeeded = ptext("ru", "audit outcome", "succeeded")
    assert f'<td class="field-outcome_shown">{succeeded}</td>' in listed
    conversation_url = reverse("admin:agentchat_conversation_change", args=[conversation.pk])
    assert f'<a href="{conversation_url}">#{conversation.pk}</a>' in listed
    assert f"{local:%d.%m.%Y %H:%M} MSK" in detail.split("<title>", 1)[1].split("</title>", 1)[0]
    assert f'<pre class="json">{escape(json_pretty(event.extra_data))}</pre>' in detail
    assert '  "ss-dev": {' in json_pretty(event.extra_data)
    assert "инженер" in detail
    assert _page(root_client, conversation_url).count("расскажи про этот дашборд") >= 1
