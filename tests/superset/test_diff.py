"""Field-level diff of two export bundles: objects paired by uuid or name, the fields that changed, short values."""

import copy
import json

import pytest

from agentchat.superset.bundle import Bundle, bundle_read
from agentchat.superset.diff import MAX_VALUE_CHARS, bundles_diff, diff_summary

DATASET_UUID = "ds-1"
METRIC = {
    "expressionType": "SIMPLE",
    "column": {"column_name": "consumption_mwh", "id": 7},
    "aggregate": "SUM",
    "label": "Consumption",
    "hasCustomLabel": True,
    "optionName": "metric_abc",
}


def _chart(uuid: str, name: str, chart_id: int, **params) -> dict:
    form = {
        "viz_type": "pie",
        "metrics": [METRIC],
        "groupby": ["region"],
        "adhoc_filters": [],
        "time_range": "No filter",
    }
    form.update(params)
    return {
        "slice_name": name,
        "viz_type": form["viz_type"],
        "params": form,
        "uuid": uuid,
        "version": "1.0.0",
        "dataset_uuid": DATASET_UUID,
        "cache_timeout": None,
        "query_context": None,
        "id": chart_id,
    }


def _position(charts: list[dict]) -> dict:
    position = {
        "DASHBOARD_VERSION_KEY": "v2",
        "ROOT_ID": {"type": "ROOT", "id": "ROOT_ID", "children": ["GRID_ID"]},
        "GRID_ID": {"type": "GRID", "id": "GRID_ID", "children": ["ROW-1"], "parents": ["ROOT_ID"]},
        "ROW-1": {"type": "ROW", "id": "ROW-1", "children": [], "parents": ["ROOT_ID", "GRID_ID"]},
    }
    for number, chart in enumerate(charts, 1):
        position["ROW-1"]["children"].append(f"CHART-{number}")
        meta = {"chartId": chart["id"], "uuid": chart["uuid"], "sliceName": chart["slice_name"], "width": 4}
        position[f"CHART-{number}"] = {"type": "CHART", "id": f"CHART-{number}", "children": [], "meta": meta}
    return position


def _bundle(charts: list[dict] | None = None, filters: list[dict] | None = None, **dashboard) -> Bundle:
    """A bundle shaped like Superset's dashboard export: one dashboard, its charts, one dataset, one database."""
    charts = charts if charts is not None else [_chart("c-1", "By month", 1), _chart("c-2", "By region", 2)]
    config = {
        "dashboard_title": "Energy",
        "slug": "energy-report",
        "published": True,
        "uuid": "dash-1",
        "position": _position(charts),
        "metadata": {"native_filter_configuration": filters or [], "timed_refresh_immune_slices": []},
        "version": "1.0.0",
    }
    config.update(dashboard)
    dataset = {
        "table_name": "energy_consumption",
        "schema": "main",
        "sql": None,
        "uuid": DATASET_UUID,
        "database_uuid": "db-1",
        "columns": [{"column_name": "date"}, {"column_name": "region"}],
        "metrics": [{"metric_name": "total", "expression": "SUM(consumption_mwh)"}],
        "version": "1.0.0",
    }
    files = {"metadata.yaml": {"version": "1.0.0", "type": "Dashboard", "timestamp": "2026-01-01T00:00:00"}}
    files["dashboards/1.yaml"] = config
    files.update({f"charts/{c['id']}.yaml": c for c in charts})
    files["datasets/Energy/energy_consumption_1.yaml"] = dataset
    files["databases/Energy.yaml"] = {"database_name": "Energy", "uuid": "db-1"}
    return Bundle(files=files)


def _region_filter(**control) -> dict:
    return {
        "id": "NATIVE_FILTER-x",
        "name": "Region",
        "filterType": "filter_select",
        "targets": [{"datasetUuid": DATASET_UUID, "column": {"name": "region"}}],
        "controlValues": {"multiSelect": True, **control},
        "scope": {"rootPath": ["ROOT_ID"]},
    }


def _entry(diff: dict, kind: str, name: str) -> dict:
    key = "title" if kind == "dashboards" else "name"
    [entry] = [e for e in diff[kind] if e[key] == name]
    return entry


def test_identical_bundles_are_all_same():
    diff = bundles_diff(_bundle(), _bundle())
    assert diff["counts"] == {"changed": 0, "added": 0, "removed": 0, "same": 4}
    assert diff_summary(diff) == []
    json.dumps(diff)  # JSON-able


def test_other_ids_timestamps_and_versions_make_no_difference():
    """Another environment's copy: other uuids and ids, same slug, chart names and table; position ids renamed."""
    after = _bundle(charts=[_chart("x-1", "By month", 31), _chart("x-2", "By region", 32)], uuid="dash-9")
    after.files["metadata.yaml"]["timestamp"] = "2027-05-05T00:00:00"
    after.files["dashboards/1.yaml"]["version"] = "2.0.0"
    position = after.files["dashboards/1.yaml"]["position"]
    position["ROW-9"] = position.pop("ROW-1")
    position["GRID_ID"]["children"] = ["ROW-9"]
    assert bundles_diff(_bundle(), after)["counts"]["same"] == 4


def test_changed_title_is_the_dashboards_only_field():
    diff = bundles_diff(_bundle(), _bundle(dashboard_title="Energy 2026"))
    entry = _entry(diff, "dashboards", "Energy 2026")
    assert entry["status"] == "changed"
    assert entry["fields"] == [{"field": "dashboard_title", "before": "Energy", "after": "Energy 2026"}]
    assert diff["counts"] == {"changed": 1, "added": 0, "removed": 0, "same": 3}


def test_missing_slug_is_empty_text_never_none():
    diff = bundles_diff(_bundle(), _bundle(slug=None))
    assert _entry(diff, "dashboards", "Energy")["fields"] == [{"field": "slug", "before": "energy-report", "after": ""}]


def test_changed_chart_metric_shows_both_short_values():
    avg = {**METRIC, "aggregate": "AVG"}
    after = _bundle(charts=[_chart("c-1", "By month", 1, metrics=[avg]), _chart("c-2", "By region", 2)])
    diff = bundles_diff(_bundle(), after)
    entry = _entry(diff, "charts", "By month")
    assert entry == {
        "name": "By month",
        "status": "changed",
        "fields": [
            {
                "field": "metrics",
                "before": "Consumption: SUM(consumption_mwh)",
                "after": "Consumption: AVG(consumption_mwh)",
            }
        ],
    }
    assert _entry(diff, "charts", "By region")["status"] == "same"
    assert _entry(diff, "dashboards", "Energy")["status"] == "same"


def test_params_as_json_text_equal_params_as_dict():
    after = _bundle()
    for path in ("charts/1.yaml", "charts/2.yaml"):
        after.files[path]["params"] = json.dumps(after.files[path]["params"])
    assert bundles_diff(_bundle(), after)["counts"]["changed"] == 0

    after.files["charts/1.yaml"]["params"] = json.dumps(
        {**_chart("c-1", "By month", 1)["params"], "time_range": "Last week"}
    )
    [field] = _entry(bundles_diff(_bundle(), after), "charts", "By month")["fields"]
    assert field == {"field": "time_range", "before": "No filter", "after": "Last week"}


def test_query_context_fills_only_what_params_lack():
    after = _bundle()
    chart = after.files["charts/1.yaml"]
    del chart["params"]["time_range"]
    chart["query_context"] = json.dumps({"form_data": {"time_range": "No filter", "groupby": ["ignored"]}})
    assert bundles_diff(_bundle(), after)["counts"]["changed"] == 0


def test_chart_added_and_removed():
    after = _bundle(charts=[_chart("c-1", "By month", 1), _chart("c-3", "By source", 3)])
    diff = bundles_diff(_bundle(), after)
    assert _entry(diff, "charts", "By source")["status"] == "added"
    assert _entry(diff, "charts", "By region")["status"] == "removed"
    dashboard = _entry(diff, "dashboards", "Energy")
    assert dashboard["status"] == "changed"
    assert dashboard["charts"] == {"added": ["By source"], "removed": ["By region"], "moved": []}
    assert diff["counts"] == {"changed": 1, "added": 1, "removed": 1, "same": 2}


def test_a_chart_placed_in_the_layout_but_missing_from_the_bundle_is_named_by_the_layout():
    """Prod's dashboard laid out charts that prod no longer had: the card read «уйдут графики: , ,» (a second
    fresh user's trial). The layout's own sliceName names them."""
    gone = _chart("c-9", "Удалённый график", 9)
    before = _bundle(charts=[_chart("c-1", "By month", 1), _chart("c-2", "By region", 2)])
    config = before.files["dashboards/1.yaml"]
    config["position"] = _position([*[c for c in before.of("charts").values()], gone])  # c-9 is in no file

    dashboard = _entry(bundles_diff(before, _bundle()), "dashboards", "Energy")

    assert dashboard["charts"]["removed"] == ["Удалённый график"]


def test_reordered_charts_are_moved():
    charts = [_chart("c-1", "By month", 1), _chart("c-2", "By region", 2)]
    diff = bundles_diff(_bundle(), _bundle(charts=charts[::-1]))
    assert _entry(diff, "dashboards", "Energy")["charts"] == {
        "added": [],
        "removed": [],
        "moved": ["By month", "By region"],
    }


def test_native_filter_added_then_changed():
    diff = bundles_diff(_bundle(), _bundle(filters=[_region_filter()]))
    assert _entry(diff, "dashboards", "Energy")["fields"] == [
        {"field": "native_filters", "before": "", "after": "Region"}
    ]

    diff = bundles_diff(_bundle(filters=[_region_filter()]), _bundle(filters=[_region_filter(multiSelect=False)]))
    [field] = _entry(diff, "dashboards", "Energy")["fields"]
    assert field["field"] == "native_filters"
    assert field["item"] == "Region"
    assert "energy_consumption.region" in field["before"]
    assert '"multiSelect": true' in field["before"]
    assert '"multiSelect": false' in field["after"]


def test_dataset_columns_and_metric_expression():
    after = _bundle()
    dataset = after.files["datasets/Energy/energy_consumption_1.yaml"]
    dataset["columns"].append({"column_name": "source"})
    dataset["metrics"][0]["expression"] = "SUM(consumption_mwh) / 1000"
    diff = bundles_diff(_bundle(), after)
    assert _entry(diff, "datasets", "energy_consumption")["fields"] == [
        {"field": "columns", "before": "", "after": "source"},
        {"field": "metrics", "item": "total", "before": "SUM(consumption_mwh)", "after": "SUM(consumption_mwh) / 1000"},
    ]


def test_long_values_are_cut_where_they_differ():
    before, after = _bundle(), _bundle()
    common = "SELECT " + ", ".join(f"column_{n}" for n in range(40))
    before.files["datasets/Energy/energy_consumption_1.yaml"]["sql"] = common + " FROM a"
    after.files["datasets/Energy/energy_consumption_1.yaml"]["sql"] = common + " FROM b"
    [field] = _entry(bundles_diff(before, after), "datasets", "energy_consumption")["fields"]
    assert len(field["before"]) <= MAX_VALUE_CHARS
    assert len(field["after"]) <= MAX_VALUE_CHARS
    assert field["before"].endswith("FROM a")
    assert field["after"].endswith("FROM b")
    assert field["before"].startswith("…")


def test_summary_keeps_limit_lines_per_object_and_counts_the_rest():
    after = _bundle(dashboard_title="New", slug="new", published=False, filters=[_region_filter()])
    lines = diff_summary(bundles_diff(_bundle(), after), limit=2)
    assert [(line["kind"], line["field"]) for line in lines] == [
        ("dashboard", "dashboard_title"),
        ("dashboard", "slug"),
    ]
    assert lines[-1]["more"] == 2
    assert lines[0]["object"] == "New"
    assert "more" not in lines[0]


def test_summary_line_of_an_added_object():
    after = _bundle(charts=[_chart("c-1", "By month", 1), _chart("c-2", "By region", 2), _chart("c-3", "New", 3)])
    lines = diff_summary(bundles_diff(_bundle(), after))
    assert {"kind": "chart", "object": "New", "status": "added", "field": "", "before": "", "after": ""} in lines
    assert {
        "kind": "dashboard",
        "object": "Energy",
        "status": "changed",
        "field": "charts_added",
        "before": "",
        "after": "New",
    } in lines


@pytest.fixture(scope="module")
def energy_exports(superset_stack) -> tuple[bytes, bytes]:
    """The seeded energy-report dashboard exported from ss-dev twice over the REST API (nothing is written)."""
    dashboard = superset_stack.dashboard_by_slug("ss-dev", "energy-report")
    exports = []
    with superset_stack.superset("ss-dev") as client:
        for _ in range(2):
            response = client.get("/api/v1/dashboard/export/", params={"q": f"!({dashboard['id']})"})
            response.raise_for_status()
            exports.append(response.content)
    return exports[0], exports[1]


@pytest.mark.superset
def test_real_exports_diff_names_the_changed_chart_metric(energy_exports, energy_dashboard):
    first, second = bundle_read(energy_exports[0]), bundle_read(energy_exports[1])
    unchanged = bundles_diff(first, second)
    assert {e["status"] for key in ("dashboards", "charts", "datasets") for e in unchanged[key]} == {"same"}
    assert unchanged["counts"]["same"] == len(unchanged["dashboards"] + unchanged["charts"] + unchanged["datasets"])
    assert [d["title"] for d in unchanged["dashboards"]] == [energy_dashboard["dashboard_title"]]

    files = copy.deepcopy(second.files)
    path, chart = next(
        (p, c) for p, c in sorted(files.items()) if p.startswith("charts/") and c["params"].get("metrics")
    )
    metric = chart["params"]["metrics"][0]
    column = metric["column"]["column_name"]
    before_text = f"{metric['label']}: {metric['aggregate']}({column})"
    metric["aggregate"] = "MAX"
    diff = bundles_diff(first, Bundle(files=files))

    entry = _entry(diff, "charts", chart["slice_name"])
    assert entry["status"] == "changed"
    assert entry["fields"] == [
        {"field": "metrics", "before": before_text, "after": f"{metric['label']}: MAX({column})"}
    ]
    assert diff["counts"]["changed"] == 1
    assert files[path] is chart
