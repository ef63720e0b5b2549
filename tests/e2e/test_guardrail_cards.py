"""Confirmation cards in a real browser against the real local Superset pair (DESIGN §9; seed Story 2).

The offline planner drives the deploy scenarios; a scripted OpenAI-compatible model (with ``HITL_CONFIRM_READS``
on) drives the read card, the analyst who asks for a deploy the role may not run, and the analyst whose branch
call the model writes as text (issue 16: it streams as JSON, then runs as a call and leaves no empty bubble).
"""

import json
import re

import pytest
from playwright.sync_api import expect

from tests.support.browser import ask, login, openai_app_server_with
from tests.support.chat_server import Call, ChatServer, Recorded, Reply
from tests.support.wording import text as catalogue_text

ENERGY = "Отчёт по энергопотреблению"
CARD = "[data-card=confirm]"
# A call written as text in the Qwen/Hermes tags, streamed slowly enough to reach the page as several token frames.
WRITTEN_CALL = json.dumps({"name": "create_branch", "arguments": {"env_id": "ss-dev", "branch_name": "feature/summer"}})


def open_agent(page, server, env_id: str) -> None:
    """Open the «Отчёт по энергопотреблению» page of ``env_id`` and press «Спросить агента»."""
    page.goto(f"{server.url}/dashboards/?env_id={env_id}")
    page.get_by_role("link", name=ENERGY).click()
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent\?objectType=dashboard"))
    page.wait_for_selector("body[data-ws=open]")


def send(page, text: str) -> None:
    page.fill("[data-testid=chat-input]", text)
    page.click("[data-testid=send]")


def guardrail_model(request: Recorded) -> Reply:
    """Scripted model: «задеплой…» calls deploy_dashboard, «найди…» calls search_dashboards; after a tool result
    (or a refusal) it answers with one line."""
    if request.last.get("role") == "tool":
        return Reply(text="Готово: смотрите карточку выше.")
    context = request.context or {}
    text = request.last_user_text().lower()
    if "задеплой" in text:
        args = {"dashboard_id": int(context.get("objectId") or 1), "source_env_id": "ss-dev", "target_env_id": "prod"}
        return Reply(calls=[Call("deploy_dashboard", args, id=f"call_{len(request.messages)}")])
    if "создай ветку" in text:
        return Reply(text=f"<tool_call>\n{WRITTEN_CALL}\n</tool_call>", chunk_chars=5, chunk_delay_s=0.03)
    if "найди" in text:
        return Reply(calls=[Call("search_dashboards", {"env_id": "ss-dev"}, id=f"call_{len(request.messages)}")])
    return Reply(text="Не понял.")


@pytest.fixture(scope="module")
def scripted_server(app_server):
    with (
        ChatServer(default=guardrail_model, model="scripted-guardrails") as llm,
        openai_app_server_with(app_server, db_suffix="guard", llm=llm, extra_env={"HITL_CONFIRM_READS": "1"}) as s,
    ):
        yield s


def test_deploy_to_prod_shows_a_destructive_production_card_with_real_names(page, app_server):
    login(page, app_server, "engineer")
    open_agent(page, app_server, "ss-dev")
    send(page, "задеплой этот дашборд в prod")
    card = page.locator(CARD).last
    expect(card).to_be_visible(timeout=60_000)
    expect(card).to_have_attribute("data-tone", "destructive")
    expect(card).to_have_attribute("data-tier", "prod")
    expect(card.get_by_test_id("prod-badge")).to_have_text("⚠️ PRODUCTION")
    expect(card.get_by_test_id("card-env")).to_have_text("prod")
    expect(card.get_by_test_id("card-impact")).to_contain_text(ENERGY)  # from Superset, not objectName
    approve = card.locator("[data-action=approve]")
    expect(approve).to_be_disabled()  # typed confirmation for a dangerous tool in prod
    card.locator("[data-role=typed-env]").fill("pro")
    expect(approve).to_be_disabled()
    card.locator("[data-role=typed-env]").fill("prod")
    expect(approve).to_be_enabled()

    card.locator("[data-action=deny]").click()
    cancelled = page.locator("[data-card=cancelled]").last
    expect(cancelled).to_contain_text(catalogue_text("ru", "Operation cancelled"))
    expect(page.locator(".entry.msg-system")).to_have_count(0)  # one deny, one line: the card (issue 28 item 6)
    expect(page.locator(CARD)).to_have_count(0)  # the card was replaced by «Операция отменена»
    expect(cancelled.get_by_test_id("card-decided")).to_contain_text("prod")  # what was declined, kept
    cancelled.get_by_test_id("card-details").locator("summary").click()
    expect(cancelled.get_by_test_id("card-impact")).to_contain_text(ENERGY)


def test_deploy_to_dev_shows_an_info_card(page, app_server):
    """From the prod page to ss-dev: a dev target is «Изменения в dev-окружении», info tone, no badge."""
    login(page, app_server, "engineer")
    open_agent(page, app_server, "prod")
    send(page, "задеплой этот дашборд в ss-dev")
    card = page.locator(CARD).last
    expect(card).to_be_visible(timeout=60_000)
    expect(card).to_have_attribute("data-tone", "info")
    expect(card).to_contain_text("Изменения в dev-окружении")
    expect(card.get_by_test_id("prod-badge")).to_have_count(0)
    expect(card.locator("[data-role=typed-env]")).to_have_count(0)
    expect(card.locator("[data-action=approve]")).to_be_enabled()
    card.locator("[data-action=deny]").click()
    expect(page.locator("[data-card=cancelled]").last).to_contain_text(catalogue_text("ru", "Operation cancelled"))


def test_read_with_hitl_confirm_reads_is_a_success_read_card(page, scripted_server):
    login(page, scripted_server, "analyst")
    open_agent(page, scripted_server, "ss-dev")
    send(page, "найди дашборды")
    card = page.locator(CARD).last
    expect(card).to_be_visible(timeout=60_000)
    expect(card).to_have_attribute("data-tone", "success")
    expect(card).to_have_attribute("data-operation", "read")
    expect(card).to_contain_text(catalogue_text("ru", "Reading data"))
    assert "⚠" not in card.inner_html()
    card.locator("[data-action=approve]").click()
    answer = page.locator("[data-testid=assistant-message][data-final='1']").last
    expect(answer).to_contain_text("Готово", timeout=60_000)
    expect(page.locator(".entry.tool-status").last).to_contain_text("✓")

    # a reload shows what the chat showed: the decided card, the tool line by its title, the answer
    page.reload()
    page.wait_for_selector("body[data-ws=open]")
    expect(page.locator("[data-card=state][data-status=executed]")).to_have_count(1)
    expect(page.locator(".entry.tool-status").last).to_contain_text("✓ " + catalogue_text("ru", "dashboard search"))
    expect(page.get_by_test_id("history-message").last).to_contain_text("Готово")
    expect(page.locator(CARD)).to_have_count(0)  # nothing left to confirm


def test_analyst_asking_for_a_deploy_gets_a_denied_card_without_confirm(page, scripted_server):
    login(page, scripted_server, "analyst")
    open_agent(page, scripted_server, "ss-dev")
    answer = ask(page, "задеплой этот дашборд в prod")
    card = page.locator("[data-card=denied]").last
    expect(card).to_contain_text(catalogue_text("ru", "Not enough permissions"))
    expect(card.get_by_test_id("required-roles")).to_contain_text("engineer")
    expect(card.locator("[data-action=approve]")).to_have_count(0)
    assert "confirm" not in card.inner_html().lower()
    assert "Готово" in answer
    card.locator("[data-action=dismiss]").click()
    expect(page.locator("[data-card=cancelled]").last).to_contain_text(catalogue_text("ru", "Operation cancelled"))


def test_a_call_written_as_text_leaves_no_empty_bubble(page, scripted_server):
    login(page, scripted_server, "analyst")
    open_agent(page, scripted_server, "ss-dev")
    page.evaluate(
        """() => {
            window.sawWrittenCall = false;
            new MutationObserver(() => {
                const bubbles = document.querySelectorAll("[data-testid=assistant-message]");
                if ([...bubbles].some((el) => el.textContent.includes("create_branch"))) window.sawWrittenCall = true;
            }).observe(document.getElementById("messages"), { childList: true, subtree: true });
        }"""
    )
    answer = ask(page, "создай ветку feature/summer")

    assert page.evaluate("window.sawWrittenCall")  # the JSON did stream to the page before it became a call
    expect(page.locator("[data-card=denied]")).to_have_count(1)
    assert "Готово" in answer
    bubbles = page.locator(".entry.msg-assistant")
    expect(bubbles).to_have_count(1)  # the answer only: the bubble that streamed the call is gone, not left empty
    assert [text.strip() for text in bubbles.all_inner_texts()] == [answer.strip()]
