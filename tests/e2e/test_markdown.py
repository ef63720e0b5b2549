"""Markdown answers in a real browser (issue 15 item 4): a scripted OpenAI-compatible model answers with a list,
bold text, a table, fenced SQL, a ``<script>`` and a ``javascript:`` link; Chromium shows the structure and runs
no script — live, and again after a reload (the conversation's stored timeline)."""

import pytest
from playwright.sync_api import expect

from tests.support.browser import ask, login, openai_app_server_with
from tests.support.chat_server import ChatServer, Recorded, Reply
from tests.turn.test_markdown import ANSWER


def markdown_model(request: Recorded) -> Reply:
    return Reply(text=ANSWER, chunk_chars=30)


@pytest.fixture(scope="module")
def markdown_server(app_server):
    with (
        ChatServer(default=markdown_model, model="scripted-markdown") as llm,
        openai_app_server_with(app_server, db_suffix="markdown", llm=llm) as server,
    ):
        yield server


def check_rendered(page, bubble) -> None:
    expect(bubble.locator("strong").first).to_have_text("«Отчёт по энергопотреблению»")
    expect(bubble.locator("li")).to_have_text(["6 графиков", "2 датасета"])
    expect(bubble.locator("table th")).to_have_text(["регион", "МВт·ч"])
    expect(bubble.locator("table td").nth(1)).to_have_css("text-align", "right")
    expect(bubble.locator("pre code")).to_contain_text("SELECT region, SUM(consumption_mwh)")
    expect(bubble).to_contain_text("<script>window.pwned = 1</script>")  # shown as text, not run
    expect(bubble).to_contain_text("[жми](javascript:window.pwned=2)")
    assert bubble.locator("script").count() == 0
    hrefs = bubble.locator("a").evaluate_all("links => links.map(a => [a.getAttribute('href'), a.rel])")
    assert hrefs == [["https://superset.apache.org/docs/", "noopener noreferrer"]]
    assert page.evaluate("window.pwned") is None


def test_markdown_answer_renders_in_chromium_and_runs_no_script(page, markdown_server):
    login(page, markdown_server, "engineer")
    page.goto(f"{markdown_server.url}/agent")

    ask(page, "расскажи про этот дашборд")

    check_rendered(page, page.locator("[data-testid=assistant-message][data-final='1']").last)
    page.reload()
    page.wait_for_selector("body[data-ws=open]")
    check_rendered(page, page.locator("[data-testid=history-message].msg-assistant").last)
