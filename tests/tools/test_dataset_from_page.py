"""A dataset made from a dataset page takes the page's database (issue 29 item 5), on the local pair, offline and on
the OpenAI-compatible path (a scripted model); without a page the missing database is asked for in the person's
language — never a validator's text.
"""

import sqlite3

import pytest
from channels.db import database_sync_to_async

from agentchat.turn.agent import AgentTurn
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, Recorded, Reply
from tests.support.contexts import ui_context
from tests.support.frames import Frames, stored_answer
from tests.support.superset_api import api, datasets_named
from tests.support.wording import text

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]

DATABASE_QUESTION = (
    "In which database? Name it, for example “in database Energy” — or ask from a dataset's page: its database is "
    "taken."
)


@pytest.fixture
def page_dataset(scratch_database) -> dict:
    """A physical dataset on the scratch database's table (the page), and a second table there without one."""
    weather = f"weather_{scratch_database['table'].split('_')[-1]}"
    with sqlite3.connect(scratch_database["path"]) as connection:
        connection.execute(f"CREATE TABLE {weather} (day TEXT, temperature REAL)")
    body = {"database": scratch_database["id"], "schema": "main", "table_name": scratch_database["table"]}
    created = api("ss-dev", "POST", "/api/v1/dataset/", json=body)
    return {"id": created["id"], "name": scratch_database["table"], "weather": weather, "database": scratch_database}


def made_on(page_dataset: dict) -> list[dict]:
    """The datasets of the weather table in ss-dev (the scratch database is deleted with its datasets)."""
    return datasets_named("ss-dev", page_dataset["weather"])


async def asked_on_the_page_and_approved(engineer, page_dataset: dict) -> tuple[Frames, dict]:
    """«создай датасет из таблицы weather_…» on the page dataset's page; its card approved."""
    frames = Frames()
    context = ui_context("dataset", page_dataset["id"], name=page_dataset["name"])
    await AgentTurn(user=engineer, emit=frames).run(
        conversation_id=None, text=f"создай датасет из таблицы {page_dataset['weather']}", context=context
    )
    (card,) = frames.of("confirm_required")
    await AgentTurn(user=engineer, emit=frames).decide(confirmation_id=card["confirmation_id"], approve=True)
    return frames, card


async def test_offline_a_dataset_from_a_dataset_page_is_made_in_the_pages_database(users, page_dataset):
    frames, card = await asked_on_the_page_and_approved(users["engineer"], page_dataset)

    assert card["tool"] == "superset_create_dataset"
    assert frames.of("error") == []
    (made,) = made_on(page_dataset)
    assert made["database"]["id"] == page_dataset["database"]["id"]
    assert made["schema"] == "main"


async def test_offline_without_a_page_the_database_is_asked_for_in_the_persons_language(users, page_dataset):
    frames = Frames()

    conversation_id = await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None,
        text=f"создай датасет из таблицы {page_dataset['weather']}",
        context=ui_context(None, None, env_id="ss-dev"),
    )

    answer = await database_sync_to_async(stored_answer)(conversation_id)
    assert answer == text("ru", DATABASE_QUESTION)
    assert frames.of("confirm_required") == frames.of("tool_started") == frames.of("error") == []
    assert made_on(page_dataset) == []


async def test_openai_path_a_call_without_database_on_a_dataset_page_takes_the_pages(
    users,
    page_dataset,
    openai_provider,  # noqa: F811
):
    server = openai_provider(
        Reply(calls=[Call("superset_create_dataset", {"table_name": page_dataset["weather"]}, id="c1")]),
        Reply(text="Готово."),
    )
    await asked_on_the_page_and_approved(users["engineer"], page_dataset)

    assert server.requests, "the model was asked"
    (made,) = made_on(page_dataset)
    assert made["database"]["id"] == page_dataset["database"]["id"]


async def test_openai_path_a_missing_database_reaches_the_model_as_a_question_to_ask(
    users,
    page_dataset,
    openai_provider,  # noqa: F811
):
    told: list[dict] = []

    def model(request: Recorded) -> Reply:
        if request.last.get("role") != "tool":
            return Reply(calls=[Call("superset_create_dataset", {"env_id": "ss-dev", "table_name": "weather"})])
        (result,) = (r["content"] for r in request.tool_results())
        told.append(result)
        return Reply(text=result["ask_user"])

    openai_provider(default=model)
    frames = Frames()

    conversation_id = await AgentTurn(user=users["engineer"], emit=frames).run(
        conversation_id=None, text="создай датасет из таблицы weather", context=ui_context(None, None, env_id="ss-dev")
    )

    assert told[0]["error"] == "invalid_args"
    assert told[0]["ask_user"] == text("ru", DATABASE_QUESTION)
    assert "database_id" not in told[0]["message"]
    assert frames.of("error") == []  # the first refusal is the model's to repair: nothing shown to the person
    answer = await database_sync_to_async(stored_answer)(conversation_id)
    assert answer == text("ru", DATABASE_QUESTION)
