"""Superset export bundles: read, rewrite and write the zip of YAML files that ``/export/`` and ``/import/`` use.

A dashboard export (``GET /api/v1/dashboard/export/``) is a zip with one root folder holding ``metadata.yaml``,
``dashboards/*.yaml``, ``charts/*.yaml``, ``datasets/<db>/*.yaml`` and ``databases/*.yaml``. Objects refer to each
other by uuid (dashboard position → chart uuids, chart → ``dataset_uuid``, dataset → ``database_uuid``, native
filters → ``datasetUuid``). Superset's import matches objects by uuid and, failing that, by unique columns
(database name, dataset table, dashboard slug) — which would silently rewrite an unrelated target object — so
deploys map databases and datasets to the target's own uuids before importing (``bundle_remap``). DESIGN §8.
"""

import copy
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import yaml

MAX_BUNDLE_BYTES = 512 * 1024 * 1024  # uncompressed; refuses zip bombs, far above real exports
KINDS = ("dashboards", "charts", "datasets", "databases")


class BundleError(ValueError):
    """The bytes are not a readable Superset export bundle."""


@dataclass
class Bundle:
    """A parsed export: ``files`` maps the path below the root folder (``charts/3.yaml``) to its YAML value.

    ``raw`` keeps the original bytes of every entry (backups copy them unchanged).
    """

    files: dict[str, Any] = field(default_factory=dict)
    raw: dict[str, bytes] = field(default_factory=dict)

    def of(self, kind: str) -> dict[str, dict[str, Any]]:
        """Return ``{path: config}`` of one kind (``dashboards``, ``charts``, ``datasets``, ``databases``)."""
        return {p: c for p, c in self.files.items() if p.startswith(kind + "/") and isinstance(c, dict)}

    def by_uuid(self, kind: str) -> dict[str, dict[str, Any]]:
        """Return ``{uuid: config}`` of one kind."""
        return {str(c["uuid"]): c for c in self.of(kind).values() if c.get("uuid")}


def bundle_read(data: bytes) -> Bundle:
    """Parse an export zip.

    Args:
        data: the zip bytes as Superset returned them.

    Returns:
        The ``Bundle`` with the root folder stripped from every path.

    Raises:
        BundleError: not a zip, larger than ``MAX_BUNDLE_BYTES`` uncompressed, or a YAML file that does not parse.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise BundleError(f"not a zip file: {exc}") from exc
    with archive:
        infos = [i for i in archive.infolist() if not i.is_dir()]
        if sum(i.file_size for i in infos) > MAX_BUNDLE_BYTES:
            raise BundleError("export bundle too large")
        bundle = Bundle()
        for info in infos:
            path = _strip_root(info.filename)
            content = archive.read(info)
            bundle.raw[path] = content
            if path.endswith((".yaml", ".yml")):
                try:
                    bundle.files[path] = yaml.safe_load(content)
                except yaml.YAMLError as exc:
                    raise BundleError(f"{path}: {exc}") from exc
    return bundle


def _strip_root(name: str) -> str:
    parts = name.split("/", 1)
    return parts[1] if len(parts) == 2 else parts[0]


def bundle_zip(bundle: Bundle, *, root: str, kind: str = "Dashboard") -> bytes:
    """Write ``bundle`` as an import zip under the folder ``root``.

    Args:
        bundle: the (possibly rewritten) bundle.
        root: the zip's root folder name.
        kind: ``Dashboard`` (all files) or ``Slice`` (charts with their datasets and databases, no dashboards),
            written into ``metadata.yaml``; the import endpoint of that kind accepts the zip.

    Returns:
        The zip bytes.
    """
    metadata = {"version": "1.0.0", "type": kind, "timestamp": datetime.now(UTC).isoformat()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{root}/metadata.yaml", yaml.safe_dump(metadata, sort_keys=False))
        for path, config in bundle.files.items():
            if path == "metadata.yaml" or (kind == "Slice" and path.startswith("dashboards/")):
                continue
            archive.writestr(f"{root}/{path}", yaml.safe_dump(config, sort_keys=False, allow_unicode=True))
    return buffer.getvalue()


def bundle_remap(bundle: Bundle, *, databases: dict[str, str], datasets: dict[str, str]) -> Bundle:
    """Return a copy of ``bundle`` whose database and dataset uuids are replaced by the target's.

    Args:
        databases: source database uuid → target database uuid (the target's database of the same name).
        datasets: source dataset uuid → target dataset uuid (same database name, schema and table).

    Every reference is rewritten: database files (``uuid``), dataset files (``uuid``, ``database_uuid``), charts
    (``dataset_uuid``) and dashboard native filters (``targets[].datasetUuid``).
    """
    out = Bundle(files=copy.deepcopy(bundle.files), raw=dict(bundle.raw))
    for config in out.of("databases").values():
        config["uuid"] = databases.get(str(config.get("uuid")), config.get("uuid"))
    for config in out.of("datasets").values():
        config["uuid"] = datasets.get(str(config.get("uuid")), config.get("uuid"))
        config["database_uuid"] = databases.get(str(config.get("database_uuid")), config.get("database_uuid"))
    for config in out.of("charts").values():
        config["dataset_uuid"] = datasets.get(str(config.get("dataset_uuid")), config.get("dataset_uuid"))
    for config in out.of("dashboards").values():
        for native_filter in (config.get("metadata") or {}).get("native_filter_configuration") or []:
            for target in native_filter.get("targets") or []:
                if target.get("datasetUuid"):
                    target["datasetUuid"] = datasets.get(str(target["datasetUuid"]), target["datasetUuid"])
    return out


def _dataset_key(config: dict[str, Any]) -> tuple[str, str] | None:
    table = config.get("table_name")
    return (str(config.get("schema") or ""), str(table)) if table else None


# What objects of two bundles are paired by when their uuids differ (the columns Superset's import also matches
# on, DESIGN §8; ``superset.diff``); None never matches.
PAIR_KEYS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "dashboards": lambda c: c.get("slug") or None,
    "charts": lambda c: c.get("slice_name") or None,
    "datasets": _dataset_key,
}


def counterpart(kind: str, config: dict[str, Any], candidates: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The config of ``candidates`` (``{uuid: config}`` of ``kind``: ``dashboards|charts|datasets``) paired with
    ``config`` the way ``superset.diff`` pairs two bundles: the same uuid, else the same ``PAIR_KEYS[kind]``."""
    if str(config.get("uuid")) in candidates:
        return candidates[str(config.get("uuid"))]
    key = PAIR_KEYS[kind](config)
    return next((c for c in candidates.values() if key is not None and PAIR_KEYS[kind](c) == key), None)


def dashboard_chart_uuids(config: dict[str, Any]) -> list[str]:
    """Return the chart uuids a dashboard's ``position`` places, in layout order (what the import attaches)."""
    uuids = []
    for item in (config.get("position") or {}).values():
        if isinstance(item, dict) and item.get("type") == "CHART" and (item.get("meta") or {}).get("uuid"):
            uuids.append(str(item["meta"]["uuid"]))
    return list(dict.fromkeys(uuids))


# Keys whose values are database ids or what Superset derives from them on import (chart ids in a layout, a chart's
# ``datasource`` "12__table", its dashboards, a query context, per-chart settings keyed by chart id, filter scopes):
# they differ between two imports of the same objects and say nothing about what a person sees.
IDENTITY_KEYS = frozenset(
    {
        "chartId",
        "datasource",
        "dashboards",
        "slice_id",
        "chartsInScope",
        "chart_configuration",
        "global_chart_configuration",
        "query_context",
        "excluded",
        "datasetId",
        "timestamp",
        "version",
    }
)


# Values that say nothing: an import writes them as defaults (``annotation_layers: []``, ``default_filters: "{}"``).
EMPTY: tuple[Any, ...] = ([], {}, None, "", "{}", "[]")


def comparable(value: Any) -> Any:
    """``value`` (an export's YAML value) without ``IDENTITY_KEYS`` at any depth, and without keys whose value is
    empty (``EMPTY``: an import writes such defaults, e.g. ``annotation_layers: []``): two
    exports of the same objects made in different imports compare equal (issue 28 item 4: "export contents
    compared without ids and timestamps")."""
    if isinstance(value, dict):
        kept = {k: comparable(v) for k, v in value.items() if k not in IDENTITY_KEYS}
        return {k: v for k, v in kept.items() if v not in EMPTY}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


def bundle_comparable(bundle: Bundle, kinds: tuple[str, ...] = ("dashboards", "charts")) -> dict[str, Any]:
    """``{kind: {uuid: comparable(config)}}`` of ``bundle``'s objects of ``kinds``: what a restore must bring back."""
    return {kind: {uuid: comparable(config) for uuid, config in bundle.by_uuid(kind).items()} for kind in kinds}


def zip_merge(parts: list[bytes], *, root: str, kind: str = "Dashboard") -> tuple[bytes, Bundle]:
    """Merge several export zips into one under ``root`` (entries deduplicated by path, bytes unchanged).

    Superset names files by object id (``charts/3.yaml``), so the same path in two exports of one
    environment is the same object. Returns the zip bytes and the merged bundle (parsed).
    """
    merged = Bundle()
    for part in parts:
        bundle = bundle_read(part)
        for path, content in bundle.raw.items():
            if path != "metadata.yaml":
                merged.raw.setdefault(path, content)
                merged.files.setdefault(path, bundle.files.get(path))
    metadata = {"version": "1.0.0", "type": kind, "timestamp": datetime.now(UTC).isoformat()}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"{root}/metadata.yaml", yaml.safe_dump(metadata, sort_keys=False))
        for path in sorted(merged.raw):
            archive.writestr(f"{root}/{path}", merged.raw[path])
    return buffer.getvalue(), merged
