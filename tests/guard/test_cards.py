"""The confirmation card's own words (DESIGN §9; issue 14): counted phrases in Russian plural forms, every text in
the card's stored language, wording taken from the catalogue."""

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext, ngettext

from agentchat.guard import cards

DECISION = {
    "risk_level": "dangerous",
    "tone": "destructive",
    "env_id": "prod",
    "env_name": "Production",
    "tier": "prod",
    "operation": "write",
    "category": "dangerous",
    "requires_confirmation": True,
    "typed_confirmation": True,
    "prompt": "",
}


def _card(dashboards: int, language: str, charts: int = 0) -> str:
    """A deploy card whose impact (built here, not by a tool) names ``dashboards`` dashboards and ``charts`` charts."""
    objects = [{"type": "dashboard", "name": f"Отчёт {i}", "action": "overwrite"} for i in range(dashboards)]
    objects += [{"type": "chart", "name": f"График {i}", "action": "create"} for i in range(charts)]
    decision = {**DECISION, "impact": {"summary": "", "objects": objects}}
    return cards.card_confirm(
        confirmation_id=7, tool="deploy_dashboard", args={"target_env_id": "prod"}, decision=decision, language=language
    )


def _text(html: str, testid: str) -> str:
    match = re.search(rf'data-testid="{testid}">([^<]*)<', html)
    assert match, testid
    return match.group(1)


@pytest.mark.parametrize(
    ("count", "noun"), [(1, "дашборд"), (2, "дашборда"), (5, "дашбордов"), (21, "дашборд"), (22, "дашборда")]
)
def test_russian_card_counts_dashboards_in_the_right_plural_form(count, noun):
    """«1 дашборд», «2 дашборда», «5 дашбордов», «21 дашборд»: ngettext with the catalogue's three forms."""
    html = _card(count, "ru")
    with translation.override("ru"):
        counted = ngettext("%(count)d dashboard", "%(count)d dashboards", count) % {"count": count}
        expected = gettext("Objects: %(counts)s") % {"counts": counted}
    assert _text(html, "impact-counts") == expected
    assert counted == f"{count} {noun}"  # the Russian form itself, not only whatever the catalogue holds


@pytest.mark.parametrize(("hidden", "noun"), [(1, "объект"), (2, "объекта"), (5, "объектов"), (21, "объект")])
def test_russian_card_says_how_many_more_objects_the_list_leaves_out(hidden, noun):
    """The list shows 20 objects; «… и ещё 1 объект / 2 объекта / 5 объектов / 21 объект» for the rest."""
    html = _card(cards.SHOWN_OBJECTS + hidden, "ru")
    with translation.override("ru"):
        expected = ngettext("… and %(count)d more object", "… and %(count)d more objects", hidden) % {"count": hidden}
    assert _text(html, "impact-more") == expected == f"… и ещё {hidden} {noun}"
    assert html.count("<li data-action-kind=") == cards.SHOWN_OBJECTS


def test_counts_of_several_types_and_in_english():
    """Each type is counted in its own plural form; an English card says «1 dashboard, 3 charts»."""
    assert _text(_card(2, "ru", charts=5), "impact-counts") == "Объекты: 2 дашборда, 5 графиков"
    assert _text(_card(1, "en", charts=3), "impact-counts") == "Objects: 1 dashboard, 3 charts"
    assert "impact-more" not in _card(20, "en")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_card_speaks_its_stored_language_whatever_the_active_one(language):
    """A card re-emitted on resume is rendered in its own language, not in the language that happens to be active."""
    other = "en" if language == "ru" else "ru"
    with translation.override(other):
        html = _card(1, language)
    with translation.override(language):
        words = [gettext("Confirm the operation"), gettext("Confirm"), gettext("Deny"), gettext("Operation")]
        title = gettext("deploying a dashboard to another environment")
    for word in words + [title]:
        assert word in html, word
    assert ("Подтвердить" in html) == (language == "ru")
