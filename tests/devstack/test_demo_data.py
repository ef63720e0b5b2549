"""The demo objects kept as data files (``scripts/devstack/data/``) agree with each other and work in Superset.

The running pair was seeded long ago, so ``up()`` reuses every chart; the last test creates each chart of the data
files afresh under a scratch name, so an edited file that Superset cannot run fails here, not on a fresh machine.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from scripts.devstack import INSTANCES, SupersetClient
from scripts.devstack.demo import DASHBOARDS, DATASETS, chart_dashboards, chart_specs
from scripts.devstack.seed import Seeder


def test_every_chart_sits_on_a_dashboard_and_reads_a_seeded_dataset() -> None:
    """Each chart file names a dataset of ``datasets.json`` and appears in at least one dashboard's rows."""
    specs = chart_specs({table: 1 for table in DATASETS})
    assert {spec["table"] for spec in specs} <= set(DATASETS)
    assert all(chart_dashboards(spec["slice_name"]) for spec in specs)


def test_every_dashboard_cell_names_a_chart_file_and_rows_fit_the_grid() -> None:
    """A dashboard row names only charts that have a data file, and its widths add up to at most 12 columns."""
    names = {spec["slice_name"] for spec in chart_specs({table: 1 for table in DATASETS})}
    for _title, rows in DASHBOARDS.values():
        for row in rows:
            assert {name for name, _width in row} <= names
            assert sum(width for _name, width in row) <= 12


def test_chart_params_point_at_the_dataset_of_the_instance() -> None:
    """The seeder fills in the dataset id of the instance: ``datasource`` is ``<id>__table``."""
    ids = {table: 100 + number for number, table in enumerate(DATASETS)}
    for spec in chart_specs(ids):
        assert spec["params"]["datasource"] == f"{ids[spec['table']]}__table"


@pytest.fixture
def ss_dev(superset_stack) -> Iterator[SupersetClient]:
    """A logged-in stack client of ss-dev (the pair must be up: ``make test`` runs ``up`` first)."""
    with SupersetClient(INSTANCES[0]) as client:
        yield client


def test_each_chart_file_creates_a_chart_that_returns_rows(ss_dev: SupersetClient) -> None:
    """Created afresh from its data file (scratch name, no dashboard), every chart's saved query returns rows."""
    datasets = {table: ss_dev.find("dataset", table_name=table)[0]["id"] for table in DATASETS}
    seeder = Seeder(INSTANCES[0], ss_dev)
    suffix = uuid.uuid4().hex[:8]
    created = []
    try:
        for spec in chart_specs(datasets):
            scratch = spec | {"slice_name": f"{spec['slice_name']} [test {suffix}]"}
            chart = seeder.chart(scratch, datasets[spec["table"]], [])
            created.append(chart["id"])
            result = ss_dev.get(f"/api/v1/chart/{chart['id']}/data/")["result"]
            assert result[0]["rowcount"] > 0, spec["slice_name"]
        assert len(seeder.created) == len(chart_specs(datasets))
    finally:
        for chart_id in created:
            ss_dev.http.delete(f"/api/v1/chart/{chart_id}")
