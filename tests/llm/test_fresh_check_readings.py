"""Readings a fresh user's check of issue 32 found wrong (the offline planner, so the planner-led model too).

"which dashboards use the energy_consumption dataset?" on a dataset page was refused for the page (dataset search
is not offered there) although the page's dashboard search by dataset serves it; the same question with no dataset
named reads the page's dataset (its dependents).
"""

import pytest

from tests.llm.test_offline_planner import knowledge, only_call, specs, step  # noqa: F401 - fixtures


@pytest.mark.parametrize(
    "question",
    ["which dashboards use the energy_consumption dataset?", "какие дашборды используют датасет energy_consumption?"],
)
def test_dashboards_on_a_named_dataset_are_searched_from_a_dataset_page(specs, knowledge, question):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "dataset/1@ss-dev"))
    assert (name, args.get("dataset"), args.get("env_id")) == ("search_dashboards", "energy_consumption", "ss-dev")


def test_dashboards_on_this_dataset_read_the_page_s_dataset(specs, knowledge):  # noqa: F811
    name, args = only_call(step(specs, knowledge, "which dashboards use this dataset?", "dataset/1@ss-dev"))
    assert (name, args.get("dataset_id")) == ("superset_explore_database", 1)


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        # a fresh check: «миграцию 1» was read as dashboard 1 and moved beside dashboard 2
        ("запусти миграцию 1 в prod только для дашборда 2", {"migration_id": 1, "dashboard_ids": [2]}),
        ("what would migration 4 change?", {"migration_id": 4}),
    ],
)
def test_a_migration_named_by_its_number_is_that_plan_not_a_dashboard(specs, knowledge, question, expected):  # noqa: F811
    name, args = only_call(step(specs, knowledge, question, "@ss-dev"))
    assert name == "preview_migration"
    assert {key: args.get(key) for key in expected} == expected, args


def test_the_status_of_a_migration_named_by_its_number_reads_its_runs(specs, knowledge):  # noqa: F811
    name, args = only_call(step(specs, knowledge, "статус миграции 3", ""))
    assert (name, args.get("migration_id"), args.get("task_id")) == ("get_task_status", 3, None)
