"""Export bundles: a real ss-dev export is read, remapped to other uuids and written back importable (DESIGN §8)."""

import io
import zipfile

import pytest
import yaml

from agentchat.superset.bundle import bundle_read, bundle_remap, bundle_zip, dashboard_chart_uuids, zip_merge
from tests.support import superset_api


@pytest.fixture(scope="module")
def energy_export(superset_stack) -> bytes:
    """The seeded «Отчёт по энергопотреблению» exported from ss-dev."""
    dashboard = superset_api.dashboard_by_slug("ss-dev", "energy-report")
    with superset_api.superset("ss-dev") as client:
        response = client.get("/api/v1/dashboard/export/", params={"q": f"!({dashboard['id']})"})
        response.raise_for_status()
        return response.content


def test_remap_rewrites_every_database_and_dataset_reference(energy_export):
    bundle = bundle_read(energy_export)
    [(db_uuid, _)] = bundle.by_uuid("databases").items()
    dataset_uuid = next(iter(bundle.by_uuid("datasets")))
    databases, datasets = {db_uuid: "db-target"}, {dataset_uuid: "ds-target"}

    remapped = bundle_read(bundle_zip(bundle_remap(bundle, databases=databases, datasets=datasets), root="r"))

    assert list(remapped.by_uuid("databases")) == ["db-target"]
    assert "ds-target" in remapped.by_uuid("datasets")
    assert remapped.by_uuid("datasets")["ds-target"]["database_uuid"] == "db-target"
    charts = remapped.by_uuid("charts").values()
    assert charts
    assert all(c["dataset_uuid"] != dataset_uuid for c in charts)
    dumped = yaml.safe_dump(remapped.files)
    assert db_uuid not in dumped
    assert dataset_uuid not in dumped
    # the source bundle itself is untouched
    assert db_uuid in bundle.by_uuid("databases")


def test_slice_bundle_has_no_dashboards_and_declares_its_type(energy_export):
    data = bundle_zip(bundle_read(energy_export), root="charts_only", kind="Slice")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        metadata = yaml.safe_load(archive.read("charts_only/metadata.yaml"))
    assert metadata["type"] == "Slice"
    assert not [n for n in names if "/dashboards/" in n]
    assert [n for n in names if "/charts/" in n]


def test_dashboard_chart_uuids_follow_the_layout(energy_export):
    bundle = bundle_read(energy_export)
    [config] = bundle.of("dashboards").values()
    assert set(dashboard_chart_uuids(config)) == set(bundle.by_uuid("charts"))


def test_merge_keeps_one_copy_per_path(energy_export):
    data, merged = zip_merge([energy_export, energy_export], root="backup")
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
    assert len(names) == len(set(names))
    assert len(merged.of("dashboards")) == 1
    assert all(n.startswith("backup/") for n in names)


def test_bundle_read_refuses_what_is_not_a_zip():
    from agentchat.superset.bundle import BundleError

    with pytest.raises(BundleError):
        bundle_read(b"<html>login</html>")
