"""The asked aspect is part of the reading (issue 29 item 1), on the local pair: a specific question no tool answers
says so in one sentence before the nearest answer, an operation no tool performs gets no other operation's card,
and a model is told the same in its prompt (a scripted OpenAI-compatible model).
"""

import pytest
from channels.db import database_sync_to_async

from agentchat.toolset.aspects import aspects
from agentchat.turn.agent import AgentTurn
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Reply
from tests.support.contexts import ui_context
from tests.support.frames import Frames, stored_answer
from tests.support.wording import text

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]

VIEWS = "кто смотрел этот дашборд за последнюю неделю?"


async def _ask(user, question: str, context: dict) -> tuple[Frames, str]:
    frames = Frames()
    conversation_id = await AgentTurn(user=user, emit=frames).run(conversation_id=None, text=question, context=context)
    return frames, await database_sync_to_async(stored_answer)(conversation_id)


def page_of(dashboard: dict) -> dict:
    return ui_context("dashboard", dashboard["id"], name=dashboard["dashboard_title"])


async def test_offline_a_question_no_tool_answers_says_so_before_the_summary(users, energy_dashboard):
    frames, answer = await _ask(users["analyst"], VIEWS, page_of(energy_dashboard))

    assert [f["tool"] for f in frames.of("tool_started")] == ["get_health_summary"]
    title = text("ru", "view logs (who opened it, how often)")
    first, instead, *rest = answer.split("\n")
    assert first == text("ru", "I cannot answer that: none of my tools returns %(aspect)s.", aspect=title)
    assert instead.startswith(text("ru", "Instead, here is what I can show (%(title)s):", title="x").split("(")[0])
    assert energy_dashboard["dashboard_title"] in "\n".join(rest)


async def test_offline_an_operation_no_tool_performs_gets_no_card_of_another(users, energy_dashboard):
    frames, answer = await _ask(users["engineer"], "выгрузи этот дашборд в PDF", page_of(energy_dashboard))
    migration_frames, _ = await _ask(
        users["admin"], "задеплой этот дашборд в prod сегодня в 3 ночи", page_of(energy_dashboard)
    )

    assert frames.of("confirm_required") == []  # and what is shown instead is a read
    assert {f["tool"] for f in frames.of("tool_started")} <= {"get_health_summary"}
    assert answer.startswith(
        text(
            "ru",
            "I cannot %(aspect)s: I have no tool for it, and I changed nothing.",
            aspect=text("ru", "export a dashboard or a chart to PDF, an image, a presentation or CSV"),
        )
    )
    assert migration_frames.of("confirm_required") == []  # no deploy card now for a deploy asked for the night


async def test_openai_path_the_model_is_told_what_no_tool_returns(users, energy_dashboard, openai_provider):  # noqa: F811
    server = openai_provider(Reply(text="Журнала просмотров у меня нет."))

    await _ask(users["analyst"], VIEWS, page_of(energy_dashboard))

    about = next(a.about for a in aspects() if a.name == "views")
    assert f"The user asks about {about}, which none of your tools returns." in server.requests[0].system
