"""The one-click «спросить без контекста страницы» in a real browser (issue 29 item 2), against the real local
Superset: a dataset's columns asked on a dashboard page are refused there with the button under the answer; one
click sends the same question without the page's object and the columns come back."""

import re

from playwright.sync_api import expect

from tests.support import superset_api
from tests.support.browser import ask, login
from tests.support.wording import text

ANSWER = "[data-testid=assistant-message][data-final='1']"


def test_the_one_click_asks_the_same_question_without_the_page(page, app_server):
    energy = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    login(page, app_server, "engineer")
    page.goto(f"{app_server.url}/dashboards/{energy['id']}/?env_id=ss-dev")
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent\?"))

    refused = ask(page, "покажи колонки датасета regions")
    button = page.locator(ANSWER).last.get_by_test_id("ask-without-page")
    expect(button).to_have_text(text("ru", "Ask without the page's context"))
    assert "federal_district" not in refused

    button.click()

    answers = page.locator(ANSWER)
    expect(answers).to_have_count(2, timeout=60_000)
    expect(answers.last).to_contain_text("federal_district")
    expect(page.locator(".msg-user").last).to_have_text("покажи колонки датасета regions")
    expect(page.get_by_test_id("ask-without-page")).to_have_count(0)
    expect(page.get_by_test_id("context-summary")).to_contain_text(f"#{energy['id']}")  # the page stays the page


def test_the_one_click_is_labelled_in_the_answer_s_language(page, app_server):
    """An English question on a page shown in Russian: the refusal is English, and so is its button (a QA check saw
    «Спросить без контекста страницы» under an English answer)."""
    energy = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    login(page, app_server, "engineer")
    page.goto(f"{app_server.url}/dashboards/{energy['id']}/?env_id=ss-dev")
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent\?"))

    ask(page, "show the columns of the regions dataset")

    button = page.locator(ANSWER).last.get_by_test_id("ask-without-page")
    expect(button).to_have_text("Ask without the page's context")
    assert text("ru", "Ask without the page's context") != "Ask without the page's context"
