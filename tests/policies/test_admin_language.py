"""The policy admin speaks Russian (``LANGUAGE_CODE``) and English to a browser that asks for it (issue 14):
model, field and choice names come from ``verbose_name``s through the catalogue."""

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import pgettext

from policies.models import AuditEvent, Environment, RiskRule, Tool, ToolPermission
from policies.services import audit_record

pytestmark = pytest.mark.django_db

# (model, words its pages show in Russian, the same in English): the plural name on the list, field names.
PAGES = [
    (Tool, ["инструменты", "Категория", "Нужно окружение", "Включён", "Тайм-аут, с"], ["tools", "Category", "Enabled"]),
    (ToolPermission, ["права ролей", "Роль", "Инструмент"], ["role permissions", "Role", "Tool"]),
    (Environment, ["окружения", "Название", "Уровень окружения", "Адрес Superset"], ["environments", "Tier"]),
    (RiskRule, ["правила риска", "Уровень риска", "Оформление", "Требует подтверждения"], ["risk rules", "Tone"]),
    (AuditEvent, ["журнал аудита", "Тип события", "Результат", "Длительность, мс"], ["audit events", "Event type"]),
]


@pytest.fixture
def root_client(policy_defaults) -> Client:
    root = get_user_model().objects.create_superuser("root", "root@example.test", "pw")
    audit_record(event_type=AuditEvent.EventType.TOOL_CALL, actor=root, tool="deploy_dashboard", outcome="ok")
    client = Client()
    client.force_login(root)
    return client


def _pages(client: Client, model: type, **headers: str) -> str:
    """The changelist and the first row's change page of ``model``, as one text."""
    meta = model._meta
    changelist = client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"), headers=headers)
    row = model.objects.first()
    change = client.get(reverse(f"admin:{meta.app_label}_{meta.model_name}_change", args=[row.pk]), headers=headers)
    assert changelist.status_code == change.status_code == 200
    return changelist.content.decode() + change.content.decode()


@pytest.mark.parametrize(("model", "russian", "english"), PAGES, ids=[p[0].__name__ for p in PAGES])
def test_policy_pages_speak_russian_by_default_and_english_when_asked(root_client, model, russian, english):
    """No Accept-Language: Russian verbose names (lower-cased where the admin capitalises them); ``en``: English."""
    page_ru = _pages(root_client, model).lower()
    page_en = _pages(root_client, model, accept_language="en").lower()
    assert [w for w in russian if escape(w).lower() not in page_ru] == []
    assert [w for w in english if escape(w).lower() not in page_en] == []
    assert "журнал аудита" not in page_en
    assert 'html lang="ru"' in page_ru
    assert 'html lang="en"' in page_en


def test_admin_choices_are_translated(root_client):
    """Choice labels on the list (tier, category): «prod (продакшен)», «опасная операция»."""
    page = _pages(root_client, Environment) + _pages(root_client, Tool)
    assert "prod (продакшен)" in page
    assert "чтение" in page


@pytest.mark.parametrize("language", ["ru", "en"])
def test_category_and_object_type_columns_show_labels_not_codes(root_client, language):
    """The category column of role permissions and affinities, and the preview's category and object types, show
    the choice labels in the admin's language («опасная операция», «дашборд, миграция»), as the tool list does."""
    with translation.override(language):
        dangerous = pgettext("tool category", "dangerous")
        types = ", ".join(pgettext("object type", t) for t in ("dashboard", "migration"))
    headers = {} if language == "ru" else {"accept_language": "en"}
    for model in ("toolpermission", "contexttoolaffinity"):
        url = reverse(f"admin:policies_{model}_changelist")
        page = root_client.get(url, {"q": "execute_migration"}, headers=headers)
        assert f'<td class="field-tool_category">{escape(dangerous)}</td>' in page.content.decode(), model
    tools = root_client.get(reverse("admin:policies_tool_changelist"), {"q": "execute_migration"}, headers=headers)
    assert f'<td class="field-object_types">{escape(types)}</td>' in tools.content.decode()
    query = {"role": "admin", "object_type": "dashboard", "env_id": "ss-dev"}
    rows = {r["name"]: r for r in root_client.get(reverse("policy-preview"), query, headers=headers).context["rows"]}
    assert (rows["execute_migration"]["category"], rows["execute_migration"]["object_types"]) == (dangerous, types)
