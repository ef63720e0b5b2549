"""The dataset check of seed Story 1 AC 2 (issue 29 item 6) on the local pair: «есть ли проблемы с этим датасетом?»
on a dataset page answers with its dependencies, the same dataset in prod, its review status, and the problems
found (a metric on a column the dataset lacks) or «проблем не найдено» with what was checked — offline, and on the
OpenAI-compatible path (a scripted model) from the tool result.
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
from tests.support.wording import plural, text

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


async def _ask(user, question: str, context: dict) -> tuple[Frames, str]:
    frames = Frames()
    conversation_id = await AgentTurn(user=user, emit=frames).run(conversation_id=None, text=question, context=context)
    return frames, await database_sync_to_async(stored_answer)(conversation_id)


async def test_the_seeded_dataset_is_checked_with_its_prod_copy_review_and_dependencies(users):
    page_id = datasets_named("ss-dev", "energy_consumption")[0]["id"]
    prod_id = next(d["id"] for d in datasets_named("prod", "energy_consumption"))
    page = ui_context("dataset", page_id, name="energy_consumption")

    frames, answer = await _ask(users["engineer"], "есть ли проблемы с этим датасетом?", page)

    assert [f["tool"] for f in frames.of("tool_started")] == ["superset_explore_database"]
    assert text("ru", "- %(env)s: present (id %(id)s)", env="prod", id=prod_id) in answer  # the mapping
    assert text("ru", "Review status: not certified.") in answer
    assert "«Отчёт по энергопотреблению»" in answer or "Отчёт по энергопотреблению" in answer  # a dependent
    checked = text("ru", "the same dataset in the other environments")
    no_problems = text("ru", "No problems found. Checked: %(checked)s.", checked="").split(":")[0]
    found = plural("ru", "Problems found (%(count)d):", "Problems found (%(count)d):", 1, count=1).split("(")[0]
    assert (no_problems in answer and checked in answer) or found in answer, answer


@pytest.fixture
def checked_dataset(scratch_database) -> dict:
    """A physical dataset on the scratch table with a metric on a column it lacks; the table then gets a column."""
    body = {"database": scratch_database["id"], "schema": "main", "table_name": scratch_database["table"]}
    dataset_id = api("ss-dev", "POST", "/api/v1/dataset/", json=body)["id"]
    metrics = [{"metric_name": "total_kwh", "expression": "SUM(kwh)"}]
    api("ss-dev", "PUT", f"/api/v1/dataset/{dataset_id}", json={"metrics": metrics})
    with sqlite3.connect(scratch_database["path"]) as connection:
        connection.execute(f"ALTER TABLE {scratch_database['table']} ADD COLUMN site TEXT")
    return {"id": dataset_id, "name": scratch_database["table"]}


async def test_a_metric_on_a_missing_column_is_a_problem_and_an_unsynced_column_a_note(users, checked_dataset):
    page = ui_context("dataset", checked_dataset["id"], name=checked_dataset["name"])

    _frames, answer = await _ask(users["engineer"], "anything wrong with this dataset?", page)

    assert answer.count("Problems found (1):") == 1, answer
    assert "the metric total_kwh uses columns the dataset lacks: kwh" in answer
    assert "the table has columns the dataset lacks (sync its columns): site" in answer
    assert "- prod: missing" in answer  # made in ss-dev only


async def test_openai_path_reads_the_check_from_the_tool_result(users, checked_dataset, openai_provider):  # noqa: F811
    told: list[dict] = []

    def model(request: Recorded) -> Reply:
        if request.last.get("role") != "tool":
            return Reply(calls=[Call("superset_explore_database", {"dataset_id": checked_dataset["id"]})])
        told.extend(r["content"] for r in request.tool_results())
        return Reply(text="Проблема: метрика total_kwh ссылается на kwh." if "total_kwh" in told[0]["facts"] else "?")

    openai_provider(default=model)
    page = ui_context("dataset", checked_dataset["id"], name=checked_dataset["name"])
    _frames, answer = await _ask(users["engineer"], "есть ли проблемы с этим датасетом?", page)

    # the model reads the check as the labelled facts of issue 32 item 5: the problem, the note, the review status
    facts = told[0]["facts"]
    metric = "the metric %(metric)s uses columns the dataset lacks: %(columns)s"
    assert text("ru", metric, metric="total_kwh", columns="kwh") in facts
    assert (
        text("ru", "the table has columns the dataset lacks (sync its columns): %(columns)s", columns="site") in facts
    )
    assert text("ru", "Review status: not certified.") in facts
    assert answer == "Проблема: метрика total_kwh ссылается на kwh."
