"""Questions about another object than the page's (issue 29 item 2), on the local pair: the dashboard search by
dataset serves «какие дашборды используют датасет X» from a dashboard page (seed Story 1 AC 3); what no offered
tool serves is refused with the one-click «спросить без контекста страницы», and the same question sent again
without the page's object is answered — offline, and on the OpenAI-compatible path (a scripted model).
"""

import pytest
from channels.db import database_sync_to_async

from agentchat.turn.agent import AgentTurn
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, Reply, call_then_answer
from tests.support.contexts import ui_context
from tests.support.frames import Frames, stored_answer
from tests.support.superset_api import datasets_named

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]

COLUMNS_QUESTION = "покажи колонки датасета regions"
WITHOUT_PAGE = ui_context(None, None, env_id="ss-dev", route=None)


async def _ask(user, question: str, context: dict, conversation_id: int | None = None) -> tuple[Frames, int]:
    frames = Frames()
    conversation_id = await AgentTurn(user=user, emit=frames).run(
        conversation_id=conversation_id, text=question, context=context
    )
    return frames, conversation_id


def page_of(dashboard: dict) -> dict:
    return ui_context("dashboard", dashboard["id"], name=dashboard["dashboard_title"])


async def test_offline_the_dashboards_on_a_named_dataset_are_searched_from_a_dashboard_page(users, energy_dashboard):
    frames, conversation_id = await _ask(
        users["analyst"], "какие дашборды используют датасет energy_consumption?", page_of(energy_dashboard)
    )
    charts, charts_id = await _ask(
        users["analyst"], "which charts use the energy_consumption dataset?", page_of(energy_dashboard)
    )

    assert [f["tool"] for f in frames.of("tool_started")] == ["search_dashboards"]
    answer = await database_sync_to_async(stored_answer)(conversation_id)
    assert "«Отчёт по энергопотреблению»" in answer
    assert "«Обзор регионов»" in answer
    assert [f["tool"] for f in charts.of("tool_started")] == ["search_dashboards"]
    assert "«Потребление по месяцам»" in await database_sync_to_async(stored_answer)(charts_id)


async def test_offline_another_pages_question_gets_the_one_click_and_is_answered_without_the_page(
    users, energy_dashboard
):
    # given the columns of a dataset asked on a dashboard page, where no dataset tool is offered
    frames, conversation_id = await _ask(users["engineer"], COLUMNS_QUESTION, page_of(energy_dashboard))

    # then nothing ran, and the answer offers to ask the same question without the page
    (answer,) = frames.of("message")
    assert frames.of("tool_started") == []
    assert answer["ask_without_page"] == COLUMNS_QUESTION

    # when the one-click sends it again in the same conversation, the page's object left out
    again, _ = await _ask(users["engineer"], answer["ask_without_page"], WITHOUT_PAGE, conversation_id)

    # then the dataset is found and described, and that answer offers nothing more
    assert [f["tool"] for f in again.of("tool_started")] == ["search_datasets", "get_dataset_details"]
    columns = await database_sync_to_async(stored_answer)(conversation_id)
    assert "federal_district" in columns
    assert "ask_without_page" not in again.of("message")[-1]


async def test_openai_path_is_told_another_page_serves_it_and_its_answer_gets_the_one_click(
    users,
    energy_dashboard,
    openai_provider,  # noqa: F811
):
    server = openai_provider(Reply(text="Со страницы дашборда колонки датасета недоступны."))

    frames, _ = await _ask(users["engineer"], COLUMNS_QUESTION, page_of(energy_dashboard))

    assert "superset explore database, which is not offered on this dashboard page" in server.requests[0].system
    assert frames.of("message")[-1]["ask_without_page"] == COLUMNS_QUESTION


async def test_openai_path_a_search_by_dataset_returns_the_dashboards_using_it(
    users,
    energy_dashboard,
    openai_provider,  # noqa: F811
):
    told: list[dict] = []
    openai_provider(
        default=call_then_answer(Call("search_dashboards", {"dataset": "energy_consumption"}), "Готово.", told)
    )
    frames, _ = await _ask(
        users["analyst"], "какие дашборды используют датасет energy_consumption?", page_of(energy_dashboard)
    )

    facts = told[0]["facts"]  # the labelled facts a model reads (issue 32 item 5)
    assert facts.startswith("Датасет «energy_consumption» в ss-dev используется в")
    assert "«Отчёт по энергопотреблению»" in facts
    assert "«Обзор регионов»" in facts
    assert datasets_named("ss-dev", "energy_consumption")  # the dataset the search went by exists
    assert "ask_without_page" not in frames.of("message")[-1]
