"""The main job in a real browser: dashboard page → «Спросить агента» → question → answer from real Superset."""

import re

from playwright.sync_api import expect

from tests import superset_api
from tests.e2e.conftest import login


def _ask(page, text: str) -> str:
    page.wait_for_selector("body[data-ws=open]")
    before = page.locator("[data-testid=assistant-message][data-final='1']").count()
    page.fill("[data-testid=chat-input]", text)
    page.click("[data-testid=send]")
    answer = page.locator("[data-testid=assistant-message][data-final='1']").nth(before)
    expect(answer).to_be_visible(timeout=60_000)
    return answer.inner_text()


def test_engineer_asks_about_the_dashboard_without_naming_it(page, app_server):
    dashboard = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    charts = superset_api.dashboard_chart_names("ss-dev", dashboard["id"])
    login(page, app_server, "engineer")

    page.goto(app_server.url + "/dashboards/?env_id=ss-dev")
    page.get_by_role("link", name="Отчёт по энергопотреблению").click()
    expect(page.get_by_test_id("dashboard-title")).to_have_text("Отчёт по энергопотреблению")
    page.get_by_test_id("ask-agent").click()

    page.wait_for_url(re.compile(r"/agent\?objectType=dashboard&objectId=\d+"))
    expect(page.get_by_test_id("context-summary")).to_contain_text(f"#{dashboard['id']}")
    expect(page.get_by_test_id("provider")).to_contain_text("offline")
    answer = _ask(page, "расскажи про этот дашборд")
    assert "Отчёт по энергопотреблению" in answer
    for name in charts:
        assert name in answer
    expect(page.locator(".entry.tool-status").first).to_contain_text("✓ get_health_summary")

    answer_en = _ask(page, "tell me about this dashboard")
    assert answer_en.startswith("Dashboard")
    assert "Charts (3)" in answer_en
    for name in charts:
        assert name in answer_en


def test_settings_page_opens_agent_without_context(page, app_server):
    login(page, app_server, "analyst")
    page.goto(app_server.url + "/settings/")
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent$"))
    expect(page.get_by_test_id("context-summary")).to_contain_text("Без контекста")
    answer = _ask(page, "что ты умеешь?")
    assert "show_capabilities" in answer
