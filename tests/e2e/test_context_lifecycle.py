"""The page context in a real browser (DESIGN §7; seed AGCTX-FR-001/003 and edge cases), against the real local
Superset: dashboard B after A, a second tab, reload vs a fresh visit, history, unknown objectType."""

import re
import uuid

from playwright.sync_api import expect

from tests.support import superset_api
from tests.support.browser import ask, login
from tests.support.wording import text

ENERGY = "Отчёт по энергопотреблению"
REGIONS = "Обзор регионов"
ANSWER = "[data-testid=assistant-message][data-final='1']"


def open_agent_from(page, server, path: str) -> None:
    """Open an object page and press «Спросить агента» (a fresh visit of /agent)."""
    page.goto(server.url + path)
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent\?"))
    page.wait_for_selector("body[data-ws=open]")


def conversation_id(page) -> str:
    return page.locator("body").get_attribute("data-conversation-id")


def test_dashboard_b_after_a_answers_about_b_and_a_dataset_tab_is_unaffected(page, app_server):
    energy = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    regions = superset_api.dashboard_by_slug("ss-dev", "regions-overview")
    login(page, app_server, "engineer")
    dataset_tab = page.context.new_page()

    open_agent_from(page, app_server, f"/dashboards/{energy['id']}/?env_id=ss-dev")
    expect(page.get_by_test_id("context-summary")).to_contain_text(f"Дашборд #{energy['id']}")
    assert ENERGY in ask(page, "расскажи про этот дашборд")
    first_conversation = conversation_id(page)

    open_agent_from(dataset_tab, app_server, "/datasets/1/?env_id=ss-dev")
    expect(dataset_tab.get_by_test_id("context-summary")).to_contain_text("Датасет #1")
    tools_here = ask(dataset_tab, "что ты умеешь?")
    assert "Список окружений Superset" in tools_here  # list_environments: dataset affinity
    assert "Сводка о дашборде" not in tools_here  # get_health_summary: dashboard only
    dataset_conversation = conversation_id(dataset_tab)

    open_agent_from(page, app_server, f"/dashboards/{regions['id']}/?env_id=ss-dev")
    expect(page.get_by_test_id("context-summary")).to_contain_text(f"Дашборд #{regions['id']}")
    expect(page.locator(ANSWER)).to_have_count(0)  # a fresh conversation, not the one about A
    answer_b = ask(page, "расскажи про этот дашборд")
    assert REGIONS in answer_b
    assert ENERGY not in answer_b
    assert conversation_id(page) != first_conversation

    expect(dataset_tab.get_by_test_id("context-summary")).to_contain_text("Датасет #1")
    again = ask(dataset_tab, "что ты умеешь?")
    assert "Список окружений Superset" in again
    assert "Сводка о дашборде" not in again
    assert conversation_id(dataset_tab) == dataset_conversation


def test_reload_continues_the_tab_conversation_but_a_new_visit_starts_a_new_one(page, app_server):
    energy = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    login(page, app_server, "analyst")
    open_agent_from(page, app_server, f"/dashboards/{energy['id']}/?env_id=ss-dev")
    ask(page, "расскажи про этот дашборд")
    first = conversation_id(page)

    page.reload()
    page.wait_for_selector("body[data-ws=open]")
    expect(page.locator("body")).to_have_attribute("data-conversation-source", "tab")
    expect(page.get_by_test_id("history-message")).to_have_count(2)
    ask(page, "расскажи про этот дашборд")
    assert conversation_id(page) == first

    open_agent_from(page, app_server, f"/dashboards/{energy['id']}/?env_id=ss-dev")
    expect(page.locator("body")).to_have_attribute("data-conversation-source", "new")
    ask(page, "расскажи про этот дашборд")
    assert conversation_id(page) != first


def test_history_opens_a_past_conversation_and_continues_it_with_its_stored_context(page, app_server):
    energy = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    regions = superset_api.dashboard_by_slug("ss-dev", "regions-overview")
    login(page, app_server, "engineer")
    marker = uuid.uuid4().hex[:8]
    open_agent_from(page, app_server, f"/dashboards/{energy['id']}/?env_id=ss-dev")
    ask(page, f"расскажи про этот дашборд {marker}")
    energy_conversation = conversation_id(page)
    open_agent_from(page, app_server, f"/dashboards/{regions['id']}/?env_id=ss-dev")
    ask(page, "расскажи про этот дашборд")

    page.goto(app_server.url + "/agent")
    entry = page.locator(f"[data-conversation='{energy_conversation}']")
    expect(entry).to_contain_text(marker)
    item = entry.locator("xpath=..")
    expect(item.get_by_test_id("history-object")).to_have_text(f"Дашборд #{energy['id']} · ss-dev")
    expect(item.locator("time")).to_have_text(re.compile(r"\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}"))
    entry.click()

    page.wait_for_url(re.compile(rf"/agent\?conversation={energy_conversation}$"))
    expect(page.get_by_test_id("history-message")).to_have_count(2)
    expect(page.get_by_test_id("history-message").first).to_contain_text(marker)
    expect(page.get_by_test_id("context-summary")).to_contain_text(f"Дашборд #{energy['id']}")
    expect(page.get_by_test_id("env-select")).to_have_value("ss-dev")
    answer = ask(page, "расскажи про этот дашборд")  # the URL has no context: the stored one applies
    assert ENERGY in answer
    assert REGIONS not in answer
    assert conversation_id(page) == energy_conversation


def test_history_conversation_without_stored_context_says_context_unavailable(page, app_server):
    title = f"старый разговор {uuid.uuid4().hex[:8]}"
    app_server.manage(
        "shell",
        "-c",
        "from django.contrib.auth import get_user_model; from agentchat.models import Conversation, Message; "
        "u = get_user_model().objects.get(username='analyst'); "
        f"c = Conversation.objects.create(user=u, title='{title}', context_version=None); "
        "Message.objects.create(conversation=c, role='user', content='расскажи про дашборд'); "
        "Message.objects.create(conversation=c, role='assistant', content='Какой дашборд?')",
    )
    login(page, app_server, "analyst")
    page.goto(app_server.url + "/agent")
    page.get_by_role("link", name=title).click()
    expect(page.get_by_test_id("context-unavailable")).to_contain_text(
        text("ru", "Context unavailable: the agent works in general mode.")
    )
    expect(page.get_by_test_id("history-message")).to_have_count(2)
    answer = ask(page, "что ты умеешь?")
    assert answer.startswith(text("ru", "Context unavailable: general mode."))
    assert text("ru", "Here is what I can do here:") in answer


def test_unknown_object_type_in_the_url_is_treated_as_no_object(page, app_server):
    login(page, app_server, "analyst")
    page.goto(app_server.url + "/agent?objectType=invalid&objectId=1&objectName=X&envId=ss-dev&route=/x")
    expect(page.get_by_test_id("context-summary")).to_contain_text(text("ru", "No context"))
    expect(page.get_by_test_id("env-select")).to_have_value("ss-dev")
    answer = ask(page, "что ты умеешь?")
    assert text("ru", "Here is what I can do here:") in answer
    expect(page.locator(".msg-error")).to_have_count(0)  # no invalid_context: the page sent objectType null


def test_object_name_from_the_url_is_shown_as_text_only(page, app_server):
    login(page, app_server, "analyst")
    hostile = "<img src=x onerror=document.body.dataset.pwned=1>"
    page.goto(app_server.url + f"/agent?objectType=dashboard&objectId=1&objectName={hostile}&envId=ss-dev")
    expect(page.get_by_test_id("context-summary")).to_contain_text(hostile)
    page.wait_for_selector("body[data-ws=open]")
    assert page.locator("body").get_attribute("data-pwned") is None
