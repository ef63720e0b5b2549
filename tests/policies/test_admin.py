"""The policies admin (DESIGN §4): tools, role permissions, affinities, the read-only audit log, policy preview."""

from dataclasses import replace

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext, pgettext

from agentchat.runtime import registry as registry_module
from agentchat.runtime.registry import registry
from agentchat.toolset.selection import toolset_for_roles
from policies.defaults import TOOLS
from policies.models import AuditAppendOnly, AuditEvent, Tool, ToolPermission
from policies.services import audit_record
from tests.support.admin_forms import change_form_data, first_extra_index, inline_rows

pytestmark = pytest.mark.django_db


def ru(msgid: str) -> str:
    """The Russian text of ``msgid`` in the catalogue (wording tests need no change when a translation does)."""
    with translation.override("ru"):
        return gettext(msgid)


@pytest.fixture
def root(policy_defaults):
    return get_user_model().objects.create_superuser("root", "root@example.test", "pw")


@pytest.fixture
def root_client(root) -> Client:
    client = Client()
    client.force_login(root)
    return client


@pytest.fixture
def audit_event(users) -> AuditEvent:
    return audit_record(event_type="permission_denied", actor=users["analyst"], tool="deploy_dashboard", outcome="x")


def test_audit_log_is_listed_but_read_only_for_superusers(root_client, audit_event):
    """No add, change or delete page works, and the list offers no delete action."""
    changelist = root_client.get(reverse("admin:policies_auditevent_changelist"))
    assert changelist.status_code == 200
    assert [e.pk for e in changelist.context["cl"].result_list] == [audit_event.pk]
    assert not changelist.context["cl"].model_admin.get_actions(changelist.wsgi_request)

    change_url = reverse("admin:policies_auditevent_change", args=[audit_event.pk])
    view = root_client.get(change_url)
    assert view.status_code == 200
    assert not view.context["has_change_permission"]
    assert 'name="_save"' not in view.content.decode()
    assert root_client.post(change_url, {"outcome": "rewritten"}).status_code == 403
    assert root_client.get(reverse("admin:policies_auditevent_add")).status_code == 403
    delete_url = reverse("admin:policies_auditevent_delete", args=[audit_event.pk])
    assert root_client.post(delete_url, {"post": "yes"}).status_code == 403
    bulk = root_client.post(
        reverse("admin:policies_auditevent_changelist"),
        {"action": "delete_selected", "_selected_action": [audit_event.pk], "post": "yes"},
    )
    assert bulk.status_code in (200, 302)
    audit_event.refresh_from_db()
    assert audit_event.outcome == "x"
    assert AuditEvent.objects.filter(pk=audit_event.pk).exists()


def test_audit_rows_cannot_be_rewritten_through_the_orm(audit_event):
    """QuerySet.update/delete, bulk_update, and instance save/delete all refuse; the row is unchanged."""
    attempts = [
        lambda: AuditEvent.objects.update(outcome="rewritten"),
        lambda: AuditEvent.objects.filter(pk=audit_event.pk).update(outcome="rewritten"),
        lambda: AuditEvent.objects.filter(pk=audit_event.pk).delete(),
        lambda: AuditEvent.objects.all().delete(),
        lambda: AuditEvent.objects.update_or_create(pk=audit_event.pk, defaults={"outcome": "rewritten"}),
        lambda: AuditEvent.objects.bulk_update([_changed(audit_event)], ["outcome"]),
        lambda: _changed(audit_event).save(),
        lambda: audit_event.delete(),
    ]
    for attempt in attempts:
        with pytest.raises(AuditAppendOnly), transaction.atomic():
            attempt()
    assert AuditEvent.objects.get(pk=audit_event.pk).outcome == "x"


def _changed(event: AuditEvent) -> AuditEvent:
    event = AuditEvent.objects.get(pk=event.pk)
    event.outcome = "rewritten"
    return event


def test_deleting_a_user_keeps_their_audit_rows(users, audit_event):
    users["analyst"].delete()
    audit_event.refresh_from_db()
    assert audit_event.actor_id is None
    assert audit_event.tool == "deploy_dashboard"


def test_tool_list_shows_registration_roles_and_object_types(root_client):
    url = reverse("admin:policies_tool_changelist")
    page = root_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert reverse("policy-preview") in html
    assert ru("registered in code") in html  # the admin speaks LANGUAGE_CODE (ru) to a browser that asks nothing
    not_registered = root_client.get(url, {"registered": "no"}).context["cl"].result_list
    registered = root_client.get(url, {"registered": "yes"}).context["cl"].result_list
    catalogue = set(Tool.objects.values_list("name", flat=True))
    assert {t.name for t in registered} == catalogue & set(registry())
    assert {t.name for t in not_registered} == catalogue - set(registry())
    admin_view = page.context["cl"].model_admin
    deploy = Tool.objects.get(name="deploy_dashboard")
    assert admin_view.roles(deploy) == "admin, engineer"
    with translation.override("ru"):  # the choice's label, as the admin shows it
        assert admin_view.object_types(deploy) == pgettext("object type", "dashboard")
    assert admin_view.registered(deploy) == ("deploy_dashboard" in registry())


def test_each_tool_page_shows_the_roles_and_object_types_that_include_it(root_client):
    """All 22 tools: the two inlines list exactly the DESIGN §8 roles and object types; behaviour is read-only."""
    group_names = dict(Group.objects.values_list("pk", "name"))
    for name, (_, _, affinities, roles) in TOOLS.items():
        page = root_client.get(reverse("admin:policies_tool_change", args=[name]))
        assert page.status_code == 200
        assert {group_names[r["group"]] for r in inline_rows(page, "permissions")} == set(roles), name
        assert {r["object_type"] for r in inline_rows(page, "affinities")} == set(affinities), name
        form_fields = set(page.context["adminform"].form.fields)
        assert {"enabled", "timeout_s", "description_ru", "description_en"} <= form_fields
        assert not {"name", "category", "env_specific"} & form_fields
        html = page.content.decode()
        assert ru("Roles allowed to use this tool (role permissions)") in html
        assert (
            escape(ru("Object types whose pages offer this tool (affinities; none = only without an object)")) in html
        )


def test_tool_rows_are_not_added_or_deleted_in_the_admin(root_client):
    assert root_client.get(reverse("admin:policies_tool_add")).status_code == 403
    delete = root_client.post(reverse("admin:policies_tool_delete", args=["deploy_dashboard"]), {"post": "yes"})
    assert delete.status_code == 403
    assert Tool.objects.filter(name="deploy_dashboard").exists()


def test_tool_policy_fields_and_inlines_are_edited_on_the_tool_page(root_client):
    """Switch a tool off, set its deadline, drop a role and add an object type: one save of the change form."""
    url = reverse("admin:policies_tool_change", args=["get_health_summary"])
    page = root_client.get(url)
    data = change_form_data(page)
    data.pop("enabled", None)
    data["timeout_s"] = "12.5"
    analyst_row = next(r for r in inline_rows(page, "permissions") if r["group"] == _group_id("analyst"))
    data[f"permissions-{analyst_row['index']}-DELETE"] = "on"
    extra = first_extra_index(page, "affinities")
    data[f"affinities-{extra}-object_type"] = "dataset"

    response = root_client.post(url, data)

    assert response.status_code == 302, response.context and response.context["errors"]
    tool = Tool.objects.get(name="get_health_summary")
    assert (tool.enabled, tool.timeout_s) == (False, 12.5)
    assert sorted(tool.permissions.values_list("group__name", flat=True)) == ["admin", "engineer"]
    assert sorted(tool.affinities.values_list("object_type", flat=True)) == ["dashboard", "dataset"]


def _group_id(name: str) -> int:
    return Group.objects.get(name=name).pk


def test_role_page_lists_and_edits_the_roles_tools(root_client):
    url = reverse("admin:auth_group_change", args=[_group_id("analyst")])
    page = root_client.get(url)
    rows = inline_rows(page, "tool_permissions")
    assert {r["tool"] for r in rows} == {name for name, spec in TOOLS.items() if "analyst" in spec[3]}
    data = change_form_data(page)
    row = next(r for r in rows if r["tool"] == "list_environments")
    data[f"tool_permissions-{row['index']}-DELETE"] = "on"

    response = root_client.post(url, data)

    assert response.status_code == 302
    assert not ToolPermission.objects.filter(group__name="analyst", tool_id="list_environments").exists()
    assert ToolPermission.objects.filter(group__name="analyst", tool_id="search_dashboards").exists()


def test_policy_preview_shows_the_chat_tool_set_for_any_role(root_client):
    url = reverse("policy-preview")
    query = {"role": "engineer", "object_type": "dashboard", "env_id": "ss-dev"}
    page = root_client.get(url, query)
    assert page.status_code == 200
    expected = [
        s.name for s in toolset_for_roles(roles=["engineer"], context={"objectType": "dashboard", "envId": "ss-dev"})
    ]
    assert [r["name"] for r in page.context["offered"]] == expected
    rows = {r["name"]: r for r in page.context["rows"]}
    assert set(TOOLS) <= set(rows)
    assert ru("role has no permission") in rows["execute_migration"]["reasons"]
    assert ru("no affinity for this object type") in rows["superset_format_sql"]["reasons"]
    for name in set(TOOLS) - set(registry()):
        assert ru("not registered in code") in rows[name]["reasons"]
        assert not rows[name]["offered"]
    html = page.content.decode()
    for name in expected:
        assert f'data-tool="{name}"' in html


def test_policy_preview_without_role_or_env_offers_only_show_capabilities(root_client):
    page = root_client.get(reverse("policy-preview"), {"role": "", "object_type": "", "env_id": ""})
    assert [r["name"] for r in page.context["offered"]] == ["show_capabilities"]


def test_policy_preview_rejects_unknown_choices(root_client):
    page = root_client.get(reverse("policy-preview"), {"role": "superuser", "object_type": "report"})
    assert page.status_code == 200
    assert page.context["rows"] is None
    assert set(page.context["form"].errors) == {"role", "object_type"}


def test_policy_preview_is_for_staff_with_tool_view_permission(users):
    client = Client()
    url = reverse("policy-preview")
    assert client.get(url).status_code == 302  # anonymous → admin login
    staff = users["engineer"]
    staff.is_staff = True
    staff.save()
    client.force_login(staff)
    assert client.get(url).status_code == 403
    staff.user_permissions.add(Permission.objects.get(codename="view_tool"))
    client.force_login(get_user_model().objects.get(pk=staff.pk))
    assert client.get(url).status_code == 200


def test_sync_tools_keeps_admin_edits_and_gives_new_tools_no_roles(policy_defaults, monkeypatch, capsys):
    """The registry drives name/category/env flag; enabled, timeouts and grants stay the admin's."""
    Tool.objects.filter(name="search_dashboards").update(enabled=False, timeout_s=7, category="write")
    spec = registry()["list_environments"]
    monkeypatch.setitem(registry_module._REGISTRY, "brand_new_tool", _renamed(spec, "brand_new_tool"))

    call_command("sync_tools")

    out = capsys.readouterr().out
    tool = Tool.objects.get(name="search_dashboards")
    assert (tool.enabled, tool.timeout_s, tool.category) == (False, 7, "read")
    new = Tool.objects.get(name="brand_new_tool")
    assert not new.permissions.exists()
    assert not new.affinities.exists()
    assert "tools created: 1" in out
    for name in set(TOOLS) - set(registry()):
        assert name in out
    for role in ("analyst", "engineer", "admin"):
        assert "brand_new_tool" not in {s.name for s in toolset_for_roles(roles=[role], context=None)}


def _renamed(spec, name):
    return replace(spec, name=name)


@pytest.mark.django_db(transaction=True)
async def test_audit_rows_cannot_be_rewritten_through_the_async_orm(users):
    """The async helpers the consumer and agent use (``aupdate``, ``adelete``, ``aupdate_or_create``,
    ``abulk_update``) refuse like their sync counterparts; ``abulk_create`` (append) still works."""
    from asgiref.sync import sync_to_async
    from django.db import connections

    event = await sync_to_async(audit_record)(event_type="tool_result", actor=users["engineer"], outcome="ok")
    attempts = [
        lambda: AuditEvent.objects.filter(pk=event.pk).aupdate(outcome="rewritten"),
        lambda: AuditEvent.objects.filter(pk=event.pk).adelete(),
        lambda: AuditEvent.objects.aupdate_or_create(pk=event.pk, defaults={"outcome": "rewritten"}),
        lambda: AuditEvent.objects.abulk_update([_changed_unsaved(event)], ["outcome"]),
        lambda: event.adelete(),
    ]
    for attempt in attempts:
        with pytest.raises(AuditAppendOnly):
            await attempt()
    await AuditEvent.objects.abulk_create([AuditEvent(event_type="tool_call", outcome="started")])

    assert (await AuditEvent.objects.aget(pk=event.pk)).outcome == "ok"
    assert await AuditEvent.objects.acount() == 2
    # Django's async ORM runs in asgiref's worker thread: close that thread's connection (test database teardown).
    await sync_to_async(connections.close_all)()


def _changed_unsaved(event: AuditEvent) -> AuditEvent:
    changed = AuditEvent(pk=event.pk, event_type=event.event_type, outcome="rewritten")
    changed._state.adding = False
    return changed
