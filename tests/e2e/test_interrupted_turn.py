"""The page when the process answering it dies (issue 31 item 3), in a real browser: a question is being answered,
the daphne process is killed (SIGKILL) and started again on the same port; the page reconnects by itself, asks
what became of its message (``resume`` with its id), shows that no answer came and why, and its «Отправить ещё
раз» sends the question again — which is then answered once."""

import re
import signal

import pytest
from playwright.sync_api import expect

from tests.support.browser import login, openai_app_server_with
from tests.support.chat_server import ChatServer, Recorded, Reply
from tests.support.wording import text

LONG = "долгий вопрос про отчёт"


def model(request: Recorded) -> Reply:
    """The first time the question is asked the model takes 30 s (the process dies meanwhile); then it answers."""
    asked = request.last_user_text()
    earlier = sum(1 for m in request.messages if m.get("role") == "user" and m.get("content") == asked)
    if asked == LONG and earlier == 1 and not getattr(model, "slow_done", False):
        model.slow_done = True
        return Reply(text="(никогда не дойдёт)", delay_s=30)
    return Reply(text=f"Ответ на «{asked}».")


@pytest.fixture
def server(app_server):
    model.slow_done = False
    with (
        ChatServer(default=model, model="scripted-interrupt") as llm,
        openai_app_server_with(app_server, db_suffix="interrupt", llm=llm, extra_env={"TURN_LEASE_S": "2"}) as srv,
    ):
        yield srv


def test_a_message_whose_process_died_is_offered_again_and_answered_once(page, server):
    login(page, server, "engineer")
    page.goto(server.url + "/agent")
    page.wait_for_selector("body[data-ws=open]")
    page.fill("[data-testid=chat-input]", LONG)
    page.click("[data-testid=send]")
    expect(page.locator("body")).to_have_attribute("data-conversation-id", re.compile(r"\d+"), timeout=10_000)
    assert server.llm.requests  # the turn runs: its model call is under way

    server.process.send_signal(signal.SIGKILL)
    server.process.wait(10)
    expect(page.locator("body")).to_have_attribute("data-ws", "closed", timeout=10_000)
    server.start()  # the same port: the page reconnects by itself

    told = page.get_by_test_id("turn-interrupted")
    expect(told).to_contain_text(
        text("ru", "No answer came: the server process answering this message stopped. Send it again."),
        timeout=30_000,
    )
    told.get_by_test_id("resend").click()

    answers = page.locator("[data-testid=assistant-message][data-final='1']")
    expect(answers).to_have_count(1, timeout=30_000)
    expect(answers.first).to_contain_text(f"Ответ на «{LONG}».")
    page.wait_for_timeout(1000)
    expect(answers).to_have_count(1)  # answered once
    expect(page.get_by_test_id("turn-interrupted")).to_have_count(1)
