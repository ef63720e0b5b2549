"""The demo objects as data: datasets, charts and dashboards read from ``data/``, turned into REST request bodies.

``data/datasets.json``
    table name → the metadata set when its dataset is created: ``description``, ``main_dttm_col``, ``columns``
    (column name → ``verbose_name``, ``description``) and saved ``metrics`` (``metric_name``, ``expression``,
    ``verbose_name``, ``d3format``).
``data/charts/*.json``
    one chart per file, created in file name order: ``slice_name``, ``table`` (its dataset), ``description``,
    ``params`` (the form data as the explore UI saves it, without ``datasource`` and ``dashboards``, which
    depend on the ids of one instance and are added here and by the seeder) and ``query`` (the one query of its
    saved ``query_context``, merged over the defaults of ``query_context``).
``data/dashboards.json``
    slug → ``title`` and ``rows``: each row a list of ``{"chart": name, "width": grid columns of 12}``. A chart
    is put on every dashboard whose rows name it.

Nothing here talks to Superset (``seed.py`` does); a new kind of demo object is a data file here plus a step in
the seeder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"
DATABASE_NAME = "Energy"


def _load(name: str) -> Any:
    return json.loads((DATA_DIR / name).read_text(encoding="utf-8"))


# table → dataset metadata (see the module docstring).
DATASETS: dict[str, dict[str, Any]] = _load("datasets.json")
# dashboard slug → (title, rows of (chart name, width in grid columns of 12))
DASHBOARDS: dict[str, tuple[str, list[list[tuple[str, int]]]]] = {
    slug: (dash["title"], [[(cell["chart"], cell["width"]) for cell in row] for row in dash["rows"]])
    for slug, dash in _load("dashboards.json").items()
}


def chart_specs(datasets: dict[str, int]) -> list[dict[str, Any]]:
    """Return the demo charts in creation order, read from ``data/charts/*.json``.

    Args:
        datasets: dataset id by table name (``energy_consumption``, ``regions``) in the instance being seeded.

    Returns:
        Dicts of ``slice_name``, ``table``, ``description``, ``params`` (form data with ``datasource`` set to
        ``"<dataset id>__table"``) and ``query``.
    """
    specs = []
    for path in sorted((DATA_DIR / "charts").glob("*.json")):
        spec = json.loads(path.read_text(encoding="utf-8"))
        spec["params"] = {"datasource": f"{datasets[spec['table']]}__table"} | spec["params"]
        specs.append(spec)
    return specs


def chart_dashboards(chart_name: str) -> list[str]:
    """Return the slugs of the dashboards whose layout rows name ``chart_name``, in ``DASHBOARDS`` order."""
    return [
        slug
        for slug, (_title, rows) in DASHBOARDS.items()
        if any(name == chart_name for row in rows for name, _width in row)
    ]


def query_context(dataset_id: int, params: dict[str, Any], query: dict[str, Any]) -> dict[str, Any]:
    """Return a chart's saved ``query_context`` (what ``GET /api/v1/chart/<id>/data/`` runs).

    Args:
        dataset_id: the chart's dataset.
        params: the chart's form data (saved as ``params`` too).
        query: the one query object (columns, metrics, orderby, row_limit, post_processing ...).
    """
    base_query = {
        "filters": [],
        "extras": {"having": "", "where": ""},
        "applied_time_extras": {},
        "orderby": [],
        "annotation_layers": [],
        "row_limit": 10000,
        "series_limit": 0,
        "order_desc": True,
        "url_params": {},
        "custom_params": {},
        "custom_form_data": {},
        "time_range": "No filter",
    }
    return {
        "datasource": {"id": dataset_id, "type": "table"},
        "force": False,
        "queries": [base_query | query],
        "form_data": params,
        "result_format": "json",
        "result_type": "full",
    }


_COLUMN_FIELDS = ("id", "column_name", "type", "is_dttm", "filterable", "groupby", "expression")
_METRIC_FIELDS = ("id", "metric_name", "expression", "metric_type", "verbose_name", "d3format", "description")


def dataset_update(detail: dict[str, Any]) -> dict[str, Any]:
    """Return the PUT body that adds the ``DATASETS`` metadata to a freshly created dataset.

    Args:
        detail: ``GET /api/v1/dataset/<id>`` answer (its columns and metrics carry the ids the PUT must keep:
            a PUT with ``columns``/``metrics`` replaces the whole lists).
    """
    result = detail["result"]
    spec = DATASETS[result["table_name"]]
    columns = []
    for col in result["columns"]:
        entry = {key: col[key] for key in _COLUMN_FIELDS if col.get(key) is not None}
        names = spec["columns"].get(col["column_name"], {})
        entry |= {"verbose_name": names.get("verbose_name"), "description": names.get("description")}
        if col["column_name"] == spec["main_dttm_col"]:
            entry["is_dttm"] = True
        columns.append(entry)
    metrics = [{key: m[key] for key in _METRIC_FIELDS if m.get(key) is not None} for m in result["metrics"]]
    have = {m["metric_name"] for m in metrics}
    metrics += [dict(metric) for metric in spec["metrics"] if metric["metric_name"] not in have]
    body: dict[str, Any] = {"description": spec["description"], "columns": columns, "metrics": metrics}
    if spec["main_dttm_col"]:
        body["main_dttm_col"] = spec["main_dttm_col"]
    return body


def position_json(title: str, rows: list[list[tuple[int, str, str, int]]]) -> dict[str, Any]:
    """Return a dashboard layout (``position_json``, v2) with one grid row per list of charts.

    Args:
        title: the dashboard title (header).
        rows: rows of ``(chart id, chart uuid, chart name, width)``; widths of a row add up to at most 12.

    Returns:
        The layout as a dict (serialise with ``json.dumps`` for the API).
    """
    layout: dict[str, Any] = {
        "DASHBOARD_VERSION_KEY": "v2",
        "ROOT_ID": {"type": "ROOT", "id": "ROOT_ID", "children": ["GRID_ID"]},
        "GRID_ID": {"type": "GRID", "id": "GRID_ID", "children": [], "parents": ["ROOT_ID"]},
        "HEADER_ID": {"id": "HEADER_ID", "type": "HEADER", "meta": {"text": title}},
    }
    for row_no, row in enumerate(rows, start=1):
        row_id = f"ROW-{row_no}"
        layout["GRID_ID"]["children"].append(row_id)
        layout[row_id] = {
            "type": "ROW",
            "id": row_id,
            "children": [],
            "parents": ["ROOT_ID", "GRID_ID"],
            "meta": {"background": "BACKGROUND_TRANSPARENT"},
        }
        for chart_id, chart_uuid, name, width in row:
            node_id = f"CHART-{chart_id}"
            layout[row_id]["children"].append(node_id)
            layout[node_id] = {
                "type": "CHART",
                "id": node_id,
                "children": [],
                "parents": ["ROOT_ID", "GRID_ID", row_id],
                "meta": {"chartId": chart_id, "uuid": chart_uuid, "sliceName": name, "width": width, "height": 50},
            }
    return layout


def layout_chart_ids(position: str | None) -> list[int]:
    """Return the chart ids of a stored ``position_json`` in layout order (empty when there is none)."""
    try:
        layout = json.loads(position or "{}")
    except json.JSONDecodeError:
        return []
    return [
        node["meta"]["chartId"]
        for node in layout.values()
        if isinstance(node, dict) and node.get("type") == "CHART" and "chartId" in node.get("meta", {})
    ]
