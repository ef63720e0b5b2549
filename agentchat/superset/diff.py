"""Field-level comparison of two versions of Superset objects: the dashboards of two export bundles.

``bundles_diff(before, after)`` pairs the objects of two bundles (``bundle.Bundle``; e.g. prod's current export
and ss-dev's) and lists, per object, the fields whose content differs. Pairs are made by uuid and, failing that,
by the columns Superset's import also matches on (DESIGN §8): a dashboard's ``slug``, a chart's ``slice_name``, a
dataset's ``(schema, table_name)``. Only the listed fields are compared, so ids, the objects' own uuids,
timestamps, ``version`` and ``position`` ids never make a difference.

Nothing here is text for people: field keys are stable (``dashboard_title``, ``viz_type``, ``metrics``, …) and
values are Superset's own (names, expressions); the caller translates the keys (STYLE "Text for people").
"""

import json
from collections.abc import Callable
from typing import Any

from agentchat.superset.bundle import PAIR_KEYS, Bundle

MAX_VALUE_CHARS = 120  # a shown value is cut to this many characters, "…" included
STATUSES = ("changed", "added", "removed", "same")
_CONTEXT_CHARS = 20  # kept before the first difference when two long values share their first 120 characters

Config = dict[str, Any] | None  # one object's YAML, or None when its bundle lacks it
Pairs = list[tuple[Config, Config]]


def bundles_diff(before: Bundle, after: Bundle, *, charts_by_name: bool = True) -> dict[str, Any]:
    """Compare the dashboards, charts and datasets of two export bundles.

    Args:
        before: the bundle taken as the old version (e.g. the target's current export).
        after: the bundle taken as the new version (e.g. the source's export).
        charts_by_name: pair charts of different uuids by name (two environments); False pairs charts by uuid only
            (two versions of one environment, where two charts of one name are two charts: a rollback's card).

    Returns:
        A JSON-able dict::

            {"dashboards": [{"title", "status", "fields": [Field], "charts": {"added": [name], "removed": [name],
                             "moved": [name]}}],
             "charts": [{"name", "status", "fields": [Field]}],
             "datasets": [{"name", "status", "fields": [Field]}],
             "counts": {"changed": n, "added": n, "removed": n, "same": n}}

        ``status`` is ``changed|added|removed|same``; an added or removed object has no fields. ``Field`` is
        ``{"field": key, "before": value, "after": value}``, with ``"item": name`` added for one named entry of a
        collection (a native filter, a dataset metric) whose content changed. For a collection whose names differ
        (``native_filters``, ``columns``, dataset ``metrics``), ``before`` lists the names only ``before`` has and
        ``after`` those only ``after`` has. Values are strings of at most ``MAX_VALUE_CHARS`` characters ("" when
        missing, never None), except ``published`` and ``cross_filters_enabled``, kept as Superset's booleans.
        ``counts`` counts the objects of all three lists by status.
    """
    keys = {**PAIR_KEYS, **({} if charts_by_name else {"charts": lambda c: None})}
    datasets, charts, dashboards = (
        _pairs(before.by_uuid(kind), after.by_uuid(kind), keys[kind]) for kind in ("datasets", "charts", "dashboards")
    )
    sides = (_Side(before, charts, 0), _Side(after, charts, 1))
    out: dict[str, Any] = {
        "dashboards": [_dashboard_entry(b, a, sides) for b, a in dashboards],
        "charts": [_chart_entry(b, a, sides) for b, a in charts],
        "datasets": [_dataset_entry(b, a) for b, a in datasets],
    }
    entries = out["dashboards"] + out["charts"] + out["datasets"]
    out["counts"] = {status: sum(e["status"] == status for e in entries) for status in STATUSES}
    return out


def diff_summary(diff: dict[str, Any], limit: int = 5) -> list[dict[str, Any]]:
    """Flatten a ``bundles_diff`` result into lines, at most ``limit`` per object, for a short listing.

    Returns:
        ``[{"kind": "dashboard|chart|dataset", "object": name, "status", "field", "before", "after"}]`` for every
        object that is not ``same``, in the diff's order. An added or removed object gives one line whose
        ``field``, ``before`` and ``after`` are "". A changed field gives one line (with ``"item"`` when its Field
        has one); a dashboard's chart changes give ``charts_added`` / ``charts_removed`` / ``charts_moved`` lines
        whose ``after`` (``before`` for removed) holds the chart names. When an object has more than ``limit``
        lines, its last kept line carries ``"more": n``, the number left out.
    """
    lines: list[dict[str, Any]] = []
    for kind, name_key in (("dashboards", "title"), ("charts", "name"), ("datasets", "name")):
        for entry in diff.get(kind) or []:
            if entry["status"] == "same":
                continue
            head = {"kind": kind[:-1], "object": entry[name_key], "status": entry["status"]}
            rows = [{**head, **field} for field in entry.get("fields") or []]
            for change, names in (entry.get("charts") or {}).items():
                if names:
                    shown = _cut(", ".join(names))
                    before, after = (shown, "") if change == "removed" else ("", shown)
                    rows.append({**head, "field": f"charts_{change}", "before": before, "after": after})
            if not rows:
                rows = [{**head, "field": "", "before": "", "after": ""}]
            kept = rows[: max(limit, 1)]
            if len(rows) > len(kept):
                kept[-1] = {**kept[-1], "more": len(rows) - len(kept)}
            lines.extend(kept)
    return lines


class _Side:
    """One bundle of the comparison with what its fields need: its datasets by uuid and its charts' pair keys."""

    def __init__(self, bundle: Bundle, charts: Pairs, index: int):
        self.datasets = bundle.by_uuid("datasets")
        self.chart_keys: dict[str, int] = {}  # chart uuid → index of its pair in ``charts``
        self.chart_names: dict[Any, str] = {}  # pair index (or a layout-only chart's key) → its name
        for key, pair in enumerate(charts):
            config = pair[index]
            if config is not None:
                self.chart_keys[str(config.get("uuid"))] = key
            self.chart_names[key] = _text((pair[1] or pair[0] or {}).get("slice_name"))

    def table(self, dataset_uuid: Any) -> str:
        """Return the table name of the dataset ``dataset_uuid`` of this bundle ("" when it has none)."""
        return _text((self.datasets.get(str(dataset_uuid)) or {}).get("table_name"))


def _pairs(before: dict[str, dict[str, Any]], after: dict[str, dict[str, Any]], key: Callable[..., Any]) -> Pairs:
    """Pair configs by uuid, then by ``key`` (None never matches); unpaired ones face None. Before's order first."""
    left = dict(after)
    by_uuid = {uuid: left.pop(uuid) for uuid in before if uuid in left}
    by_key: dict[Any, list[str]] = {}
    for uuid, config in left.items():
        if key(config) is not None:
            by_key.setdefault(key(config), []).append(uuid)
    pairs: Pairs = []
    for uuid, config in before.items():
        if uuid in by_uuid:
            pairs.append((config, by_uuid[uuid]))
            continue
        candidates = [u for u in by_key.get(key(config), []) if u in left] if key(config) is not None else []
        pairs.append((config, left.pop(candidates[0]) if candidates else None))
    return pairs + [(None, config) for config in left.values()]


def _status(before: Any, after: Any, changed: bool) -> str:
    if before is None:
        return "added"
    if after is None:
        return "removed"
    return "changed" if changed else "same"


def _fields(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Return a Field for every key whose value differs (a key one side lacks counts as "")."""
    out = []
    for key in dict.fromkeys([*before, *after]):
        old, new = before.get(key, ""), after.get(key, "")
        if old != new:
            shown_old, shown_new = _shown(old, new)
            out.append({"field": key, "before": shown_old, "after": shown_new})
    return out


def _named_fields(field: str, before: dict[str, str], after: dict[str, str]) -> list[dict[str, Any]]:
    """Compare two collections of named entries (name → content): one Field for the names, one per changed entry."""
    out: list[dict[str, Any]] = []
    only_before = [n for n in before if n not in after]
    only_after = [n for n in after if n not in before]
    if only_before or only_after:
        out.append({"field": field, "before": _cut(", ".join(only_before)), "after": _cut(", ".join(only_after))})
    for name in before:
        if name in after and before[name] != after[name]:
            old, new = _shown(before[name], after[name])
            out.append({"field": field, "item": name, "before": old, "after": new})
    return out


# Dashboards


def _dashboard_entry(before: Config, after: Config, sides: tuple[_Side, _Side]) -> dict[str, Any]:
    title = _text((after or before or {}).get("dashboard_title"))
    charts: dict[str, list[str]] = {"added": [], "removed": [], "moved": []}
    fields: list[dict[str, Any]] = []
    if before is not None and after is not None:
        fields = _fields(_dashboard_values(before), _dashboard_values(after))
        fields += _named_fields("native_filters", _filters(before, sides[0]), _filters(after, sides[1]))
        old, new = _chart_places(before, sides[0]), _chart_places(after, sides[1])
        names = {**sides[0].chart_names, **sides[1].chart_names}
        charts["added"] = [names.get(k, "") for k in new if k not in old]
        charts["removed"] = [names.get(k, "") for k in old if k not in new]
        charts["moved"] = [names.get(k, "") for k in old if k in new and old[k] != new[k]]
    changed = bool(fields) or any(charts.values())
    return {"title": title, "status": _status(before, after, changed), "fields": fields, "charts": charts}


def _metadata(config: dict[str, Any]) -> dict[str, Any]:
    """The dashboard's JSON metadata: ``metadata`` in an export, ``json_metadata`` (a dict or JSON) elsewhere."""
    value = config.get("metadata") or config.get("json_metadata") or {}
    return _as_dict(value)


def _dashboard_values(config: dict[str, Any]) -> dict[str, Any]:
    published = config.get("published")
    values: dict[str, Any] = {
        "dashboard_title": _text(config.get("dashboard_title")),
        "slug": _text(config.get("slug")),
        "published": published if isinstance(published, bool) else _text(published),
    }
    if "owners" in config:
        values["owners"] = _owners_value(config)
    metadata = _metadata(config)
    if "cross_filters_enabled" in metadata:
        enabled = metadata["cross_filters_enabled"]
        values["cross_filters_enabled"] = enabled if isinstance(enabled, bool) else _text(enabled)
    return values


def _owners_value(config: dict[str, Any]) -> str:
    """The object's owners as one comparable value: their names, sorted, comma-separated."""
    return ", ".join(sorted(_owner_text(o) for o in config.get("owners") or []))


def _owner_text(owner: Any) -> str:
    if not isinstance(owner, dict):
        return _text(owner)
    name = " ".join(_text(owner.get(k)) for k in ("first_name", "last_name") if owner.get(k))
    return _text(owner.get("username")) or name or _text(owner.get("id"))


def _filters(config: dict[str, Any], side: _Side) -> dict[str, str]:
    """Native filters by name → their type, targets (``table.column``) and control values."""
    out = {}
    for item in _metadata(config).get("native_filter_configuration") or []:
        if not isinstance(item, dict):
            continue
        targets = [
            f"{side.table(t.get('datasetUuid'))}.{_text((t.get('column') or {}).get('name'))}".strip(".")
            for t in item.get("targets") or []
            if isinstance(t, dict)
        ]
        controls = _text(item.get("controlValues") or {})
        out[_text(item.get("name"))] = " ".join(p for p in (_text(item.get("filterType")), *targets, controls) if p)
    return out


def _chart_places(config: dict[str, Any], side: _Side) -> dict[Any, tuple[Any, ...]]:
    """Chart pair key → its place in the layout: the (type, index among siblings) steps from the root, no ids."""
    position = config.get("position") or {}
    places: dict[Any, tuple[Any, ...]] = {}
    roots = [i for i, v in position.items() if isinstance(v, dict) and v.get("type") == "ROOT"] or ["ROOT_ID"]
    stack: list[tuple[str, tuple[Any, ...]]] = [(root, ()) for root in roots]
    seen: set[str] = set()
    while stack:
        item_id, path = stack.pop()
        item = position.get(item_id)
        if not isinstance(item, dict) or item_id in seen:
            continue
        seen.add(item_id)
        if item.get("type") == "CHART":
            meta = item.get("meta") or {}
            key = side.chart_keys.get(str(meta.get("uuid")), fallback := ("name", _text(meta.get("sliceName"))))
            places.setdefault(key, path)
            side.chart_names.setdefault(key, fallback[1])  # a chart its bundle lacks: named by the layout
        for index, child in reversed(list(enumerate(item.get("children") or []))):  # popped in layout order
            child_type = (position.get(child) or {}).get("type") if isinstance(position.get(child), dict) else None
            stack.append((child, (*path, (child_type, index))))
    return places


# Charts


def _chart_entry(before: Config, after: Config, sides: tuple[_Side, _Side]) -> dict[str, Any]:
    name = _text((after or before or {}).get("slice_name"))
    fields = []
    if before is not None and after is not None:
        fields = _fields(_chart_values(before, sides[0]), _chart_values(after, sides[1]))
    return {"name": name, "status": _status(before, after, bool(fields)), "fields": fields}


def _params(config: dict[str, Any]) -> dict[str, Any]:
    """The chart's form data: ``params`` (a dict or JSON), completed by ``query_context``'s ``form_data``."""
    form_data = _as_dict(_as_dict(config.get("query_context")).get("form_data"))
    return {**form_data, **_as_dict(config.get("params"))}


def _chart_values(config: dict[str, Any], side: _Side) -> dict[str, str]:
    params = _params(config)
    metrics = list(params.get("metrics") or [])
    if params.get("metric"):  # single-metric charts (pie, big number)
        metrics.append(params["metric"])
    return {
        "viz_type": _text(config.get("viz_type") or params.get("viz_type")),
        "dataset": side.table(config.get("dataset_uuid")),
        "metrics": ", ".join(_metric_text(m) for m in metrics),
        "groupby": ", ".join(_column_text(c) for c in _listed(params.get("groupby"))),
        "adhoc_filters": ", ".join(_filter_text(f) for f in _listed(params.get("adhoc_filters"))),
        "time_range": _text(params.get("time_range")),
        "cache_timeout": _text(config.get("cache_timeout")),
    }


def _metric_text(metric: Any) -> str:
    """A saved metric's name, or an ad-hoc one's ``label: AGGREGATE(column)`` / ``label: SQL``."""
    if not isinstance(metric, dict):
        return _text(metric)
    if metric.get("expressionType") == "SQL" or metric.get("sqlExpression"):
        core = _text(metric.get("sqlExpression"))
    else:
        column = _text((metric.get("column") or {}).get("column_name"))
        core = f"{_text(metric.get('aggregate'))}({column})" if column else ""
    label = _text(metric.get("label") or metric.get("metric_name"))
    return f"{label}: {core}" if label and core and label != core else (core or label)


def _column_text(column: Any) -> str:
    if not isinstance(column, dict):
        return _text(column)
    return _text(column.get("label") or column.get("sqlExpression") or column.get("column_name"))


def _filter_text(item: Any) -> str:
    if not isinstance(item, dict):
        return _text(item)
    if item.get("expressionType") == "SQL":
        return f"{_text(item.get('clause'))} {_text(item.get('sqlExpression'))}".strip()
    comparator = item.get("comparator")
    value = ", ".join(_text(v) for v in comparator) if isinstance(comparator, list) else _text(comparator)
    return " ".join(p for p in (_text(item.get("subject")), _text(item.get("operator")), value) if p)


# Datasets


def _dataset_entry(before: Config, after: Config) -> dict[str, Any]:
    name = _text((after or before or {}).get("table_name"))
    fields: list[dict[str, Any]] = []
    if before is not None and after is not None:
        fields = _fields(_dataset_values(before), _dataset_values(after))
        for kind in ("columns", "metrics"):
            fields += _named_fields(kind, _named(before, kind), _named(after, kind))
    return {"name": name, "status": _status(before, after, bool(fields)), "fields": fields}


def _dataset_values(config: dict[str, Any]) -> dict[str, str]:
    owners = {"owners": _owners_value(config)} if "owners" in config else {}  # compare_versions adds them
    return {"sql": _text(config.get("sql")), "cache_timeout": _text(config.get("cache_timeout")), **owners}


def _named(config: dict[str, Any], kind: str) -> dict[str, str]:
    """``columns`` by ``column_name`` (content ignored: only additions and removals count) or ``metrics`` by
    ``metric_name`` → expression."""
    key = "metric_name" if kind == "metrics" else "column_name"
    items = [i for i in config.get(kind) or [] if isinstance(i, dict) and i.get(key)]
    return {_text(i[key]): (_text(i.get("expression")) if kind == "metrics" else "") for i in items}


# Values


def _as_dict(value: Any) -> dict[str, Any]:
    """A dict as it is, a JSON object text parsed; anything else (None, bad JSON) is {}."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return {}
    return value if isinstance(value, dict) else {}


def _listed(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def _text(value: Any) -> str:
    """A value as one line of text: "" for None, JSON (sorted keys) for a dict or list, else ``str``."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return str(value)


def _cut(text: str, start: int = 0) -> str:
    """``text`` from ``start`` in at most ``MAX_VALUE_CHARS`` characters, "…" marking what is left out."""
    prefix = "…" if start > 0 else ""
    piece = text[start:]
    if len(prefix) + len(piece) > MAX_VALUE_CHARS:
        piece = piece[: MAX_VALUE_CHARS - len(prefix) - 1] + "…"
    return prefix + piece


def _shown(before: Any, after: Any) -> tuple[Any, Any]:
    """Two differing values as shown: cut strings that still differ (from a little before the first difference
    when the first ``MAX_VALUE_CHARS`` characters agree); a non-string value (a boolean) as it is."""
    if not isinstance(before, str) or not isinstance(after, str):
        return before, after
    if _cut(before) != _cut(after):
        return _cut(before), _cut(after)
    first = next((i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), None)
    if first is None:
        first = min(len(before), len(after))
    start = max(0, first - _CONTEXT_CHARS)
    return _cut(before, start), _cut(after, start)
