"""Unpacking and normalising Superset's dashboard export zip (volatile fields made stable, unsafe zips refused)."""

import io
import random
import string
import zipfile

import pytest
import yaml

from agentchat.superset.dashboard_export import ExportError, export_normalise, export_title, export_unpack


def make_zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def test_unpack_strips_the_top_folder():
    data = make_zip({"dashboard_export_20260101T000000/metadata.yaml": b"x", "dashboard_export_1/charts/a.yaml": b"y"})
    assert export_unpack(data) == {"metadata.yaml": b"x", "charts/a.yaml": b"y"}


@pytest.mark.parametrize("name", ["../evil.yaml", "top/../../evil.yaml", "/etc/passwd", "top\\..\\x", "loose.yaml"])
def test_unpack_refuses_unsafe_paths(name):
    with pytest.raises(ExportError):
        export_unpack(make_zip({name: b"x"}))


def test_unpack_refuses_what_is_not_a_zip():
    with pytest.raises(ExportError) as error:
        export_unpack(b"<html>login</html>")
    assert "zip" in error.value.text("en")


def test_export_timestamp_is_dropped():
    first = export_normalise(
        {"metadata.yaml": b"version: 1.0.0\ntype: Dashboard\ntimestamp: '2026-11-29T20:59:48+00:00'\n"}
    )
    second = export_normalise(
        {"metadata.yaml": b"version: 1.0.0\ntype: Dashboard\ntimestamp: '2026-11-30T01:02:03+00:00'\n"}
    )
    assert first == second == {"metadata.yaml": b"version: 1.0.0\ntype: Dashboard\n"}


def _suffix() -> str:
    return "".join(random.choice(string.ascii_uppercase + string.digits) for _ in range(8))


def superset_like_export(chart_ids: list[int]) -> bytes:
    """A dashboard YAML as Superset's exporter writes it for charts missing from the layout (``append_charts``)."""
    row = f"ROW-N-{_suffix()}"
    charts = {chart_id: f"CHART-{_suffix()}" for chart_id in chart_ids}
    position = {
        "DASHBOARD_VERSION_KEY": "v2",
        "ROOT_ID": {"children": ["GRID_ID"], "id": "ROOT_ID", "type": "ROOT"},
        "GRID_ID": {"children": [row], "id": "GRID_ID", "parents": ["ROOT_ID"], "type": "GRID"},
        "HEADER_ID": {"id": "HEADER_ID", "meta": {"text": "Энергия"}, "type": "HEADER"},
        row: {
            "children": list(charts.values()),
            "id": row,
            "meta": {"0": "ROOT_ID", "background": "BACKGROUND_TRANSPARENT"},
            "type": "ROW",
            "parents": ["ROOT_ID", "GRID_ID"],
        },
    }
    for chart_id, key in charts.items():
        position[key] = {
            "children": [],
            "id": key,
            "meta": {"chartId": chart_id, "height": 50, "sliceName": f"c{chart_id}", "width": 4},
            "type": "CHART",
            "parents": ["ROOT_ID", "GRID_ID", row],
        }
    payload = {"dashboard_title": "Энергия", "position": position, "version": "1.0.0"}
    return yaml.safe_dump(payload, sort_keys=False).encode()


def test_generated_layout_ids_and_order_are_made_stable():
    first = export_normalise({"dashboards/d_1.yaml": superset_like_export([5, 6, 7])})
    second = export_normalise({"dashboards/d_1.yaml": superset_like_export([7, 5, 6])})
    assert first == second
    position = yaml.safe_load(first["dashboards/d_1.yaml"])["position"]
    assert position["ROW-N-EXPORTED"]["children"] == ["CHART-EXPORTED-5", "CHART-EXPORTED-6", "CHART-EXPORTED-7"]
    assert position["GRID_ID"]["children"] == ["ROW-N-EXPORTED"]
    assert position["CHART-EXPORTED-6"]["parents"] == ["ROOT_ID", "GRID_ID", "ROW-N-EXPORTED"]


def test_a_saved_layout_is_left_byte_for_byte():
    payload = {
        "dashboard_title": "Saved",
        "position": {
            "GRID_ID": {"children": ["ROW-abc"], "id": "GRID_ID", "type": "GRID"},
            "ROW-abc": {"children": ["CHART-ABCDEFGH"], "id": "ROW-abc", "meta": {}, "type": "ROW"},
            "CHART-ABCDEFGH": {"id": "CHART-ABCDEFGH", "meta": {"chartId": 1}, "parents": ["GRID_ID", "ROW-abc"]},
        },
    }
    content = yaml.safe_dump(payload, sort_keys=False).encode() + b"# trailing comment\n"
    assert export_normalise({"dashboards/s_2.yaml": content}) == {"dashboards/s_2.yaml": content}


def test_title_is_read_from_the_dashboard_file():
    assert export_title({"dashboards/d_1.yaml": superset_like_export([1])}) == "Энергия"
