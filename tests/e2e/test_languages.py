"""One scenario in Russian and in English in a real browser (issue 14): dashboard page → deploy card to prod →
deny. The page follows the browser's language (``LocaleMiddleware``), the chat the language of the question; every
expected word comes from the catalogue. Screenshots go to ``<pytest tmp>/test-results/`` (the path is printed)."""

import re
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from tests.e2e.test_guardrail_cards import CARD, ENERGY, open_agent, send
from tests.support.browser import login

SCENARIOS = [
    ("ru", "ru-RU", "задеплой этот дашборд в prod"),
    ("en", "en-US", "deploy this dashboard to prod"),
]


@pytest.fixture
def localised_page(browser, request):
    """A page whose browser asks for the scenario's language (``Accept-Language``)."""
    context = browser.new_context(locale=request.param, viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    yield page
    context.close()


def _words(language: str) -> dict[str, str]:
    with translation.override(language):
        return {
            "ask": gettext("Ask the agent"),
            "confirm": gettext("Confirm the operation"),
            "deny": gettext("Deny"),
            "title": gettext("deploying a dashboard to another environment"),
            "cancelled": gettext("Operation cancelled"),
            "not_run": gettext("Not run:") + " " + gettext("deploying a dashboard to another environment"),
            "agent": gettext("Agent"),
            "send": gettext("Send"),
        }


@pytest.mark.parametrize(
    ("language", "localised_page", "question"), SCENARIOS, indirect=["localised_page"], ids=["ru", "en"]
)
def test_deploy_card_to_prod_and_deny_in_each_language(localised_page, app_server, tmp_path, language, question):
    page = localised_page
    words = _words(language)
    shots = Path(tmp_path) / "test-results"
    shots.mkdir()
    login(page, app_server, "engineer")
    page.goto(f"{app_server.url}/dashboards/?env_id=ss-dev")
    page.get_by_role("link", name=ENERGY).click()
    expect(page.get_by_test_id("ask-agent")).to_have_text(words["ask"])  # the page in the browser's language
    page.screenshot(path=shots / f"{language}-1-dashboard.png", full_page=True)

    open_agent(page, app_server, "ss-dev")
    expect(page.get_by_test_id("send")).to_have_text(words["send"])
    send(page, question)
    card = page.locator(CARD).last
    expect(card).to_be_visible(timeout=60_000)
    expect(card).to_have_attribute("data-tier", "prod")
    expect(card.locator(".card-title")).to_contain_text(words["confirm"])
    expect(card).to_contain_text(words["title"])
    expect(card.get_by_test_id("impact-counts")).to_be_visible()
    expect(card.locator("[data-action=deny]")).to_have_text(words["deny"])
    page.screenshot(path=shots / f"{language}-2-card.png", full_page=True)

    card.locator("[data-action=deny]").click()
    expect(page.locator("[data-card=cancelled]").last).to_contain_text(words["cancelled"])
    expect(page.locator("[data-card=cancelled]").last).to_contain_text(words["not_run"])
    expect(page.locator(".entry.msg-system")).to_have_count(0)  # the card is the one cancellation line (issue 28)
    page.screenshot(path=shots / f"{language}-3-denied.png", full_page=True)
    other = "Операция отменена" if language == "en" else "Operation cancelled"
    assert other not in page.locator("#messages").inner_text()
    # the card's own words are in the page's language; object names (quoted, the seeded titles) stay as they are
    decided = re.sub(r"“[^”]*”|«[^»]*»", "", page.locator("[data-card=cancelled]").last.inner_text())
    assert bool(re.search(r"[А-Яа-яЁё]", decided.replace(ENERGY, ""))) == (language == "ru"), decided
    print(f"screenshots: {shots}")  # noqa: T201 - where a person finds the pictures
