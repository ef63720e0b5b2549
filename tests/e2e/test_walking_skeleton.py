"""The main job in a real browser: dashboard page → «Спросить агента» → question → answer from real Superset."""

import re

import pytest
from django.utils import translation
from django.utils.translation import gettext
from playwright.sync_api import expect

from tests.support import superset_api
from tests.support.browser import ask as _ask
from tests.support.browser import login, openai_app_server_with
from tests.support.chat_server import ChatServer, dashboard_summary_model, history_problems


@pytest.fixture(scope="module")
def openai_app_server(app_server):
    """agentchat with ``LLM_PROVIDER=openai`` pointed at a scripted chat-completions server on loopback (which
    calls get_health_summary for the page's dashboard and answers from the tool result), on its own database."""
    with (
        ChatServer(default=dashboard_summary_model, model="scripted-e2e-model") as llm,
        openai_app_server_with(app_server, db_suffix="openai", llm=llm) as server,
    ):
        yield server


@pytest.fixture(params=["offline", "openai"])
def provider_server(request, app_server):
    """The same scenario with both providers (DESIGN §11): the embedded planner and an OpenAI-compatible API."""
    return app_server if request.param == "offline" else request.getfixturevalue("openai_app_server")


def test_engineer_asks_about_the_dashboard_without_naming_it(page, provider_server):
    app_server = provider_server
    dashboard = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    charts = superset_api.dashboard_chart_names("ss-dev", dashboard["id"])
    login(page, app_server, "engineer")

    page.goto(app_server.url + "/dashboards/?env_id=ss-dev")
    page.get_by_role("link", name="Отчёт по энергопотреблению").click()
    expect(page.get_by_test_id("dashboard-title")).to_have_text("Отчёт по энергопотреблению")
    page.get_by_test_id("ask-agent").click()

    page.wait_for_url(re.compile(r"/agent\?objectType=dashboard&objectId=\d+"))
    expect(page.get_by_test_id("context-summary")).to_contain_text(f"#{dashboard['id']}")
    llm = getattr(app_server, "llm", None)
    with translation.override("ru"):  # a Russian browser, a Russian question
        offline = gettext("Offline planner (no network)")
    expect(page.get_by_test_id("provider")).to_contain_text(llm.model if llm else offline)
    answer = _ask(page, "расскажи про этот дашборд")
    # the header names the provider that answered, also after the conversation frame updated it
    expect(page.get_by_test_id("provider")).to_contain_text(llm.model if llm else offline)
    assert "Отчёт по энергопотреблению" in answer
    for name in charts:
        assert name in answer
    status = page.locator(".entry.tool-status").first
    expect(status).to_contain_text("✓ сводка о дашборде")  # the tool's title, not its code name
    expect(status).to_have_attribute("title", "get_health_summary")

    answer_en = _ask(page, "tell me about this dashboard")
    assert answer_en.startswith("Dashboard")
    assert "Charts (3)" in answer_en
    for name in charts:
        assert name in answer_en
    if llm:
        assert [r.last["role"] for r in llm.requests[-4:]] == ["user", "tool", "user", "tool"]
        assert all(history_problems(r.messages) == [] for r in llm.requests)


def test_settings_page_opens_agent_without_context(page, app_server):
    login(page, app_server, "analyst")
    page.goto(app_server.url + "/settings/")
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent$"))
    expect(page.get_by_test_id("context-summary")).to_contain_text("Без контекста")
    answer = _ask(page, "что ты умеешь?")
    assert "Список окружений Superset" in answer  # tools by their titles, never internal names
    assert "show_capabilities" not in answer
