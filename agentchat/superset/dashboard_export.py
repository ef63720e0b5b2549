"""A dashboard's export from Superset, unpacked and normalised for the git repository (DESIGN §8, issue 5).

``GET /api/v1/dashboard/export/?q=!(id)`` answers a zip whose top folder is ``dashboard_export_<timestamp>/`` and
which holds ``metadata.yaml``, ``dashboards/``, ``charts/``, ``datasets/``, ``databases/``. Two exports of an
unchanged dashboard differ in two volatile places, which are normalised here so the repository reads as clean:

- ``metadata.yaml`` carries the export ``timestamp`` (the line is dropped);
- charts that are on the dashboard but not in its saved layout (e.g. a dashboard made through the API) are placed
  by Superset's exporter in a generated row ``ROW-N-<8 random>`` holding ``CHART-<8 random>`` entries, in set order
  (superset/commands/dashboard/export.py ``append_charts``); those get stable ids and chart-id order.
"""

import asyncio
import io
import re
import zipfile
from typing import Any

import yaml

from agentchat.errors import UpstreamError
from agentchat.gitstore import repo as gitrepo
from agentchat.superset.client import SupersetClient
from agentchat.superset.transfer import objects_export

MAX_EXPORT_FILES = 5000
MAX_EXPORT_BYTES = 100 * 1024 * 1024  # uncompressed; a dashboard export is tens of kilobytes
_TIMESTAMP_LINE = re.compile(rb"^timestamp: .*\n?", re.MULTILINE)
_GENERATED_ROW = re.compile(r"^ROW-N-[A-Z0-9]{8}$")
_GENERATED_CHART = re.compile(r"^CHART-[A-Z0-9]{8}$")


class ExportError(UpstreamError):
    """Superset's answer is not a usable export zip (corrupt, unsafe paths, too large)."""


def export_title(files: dict[str, bytes]) -> str | None:
    """Return the ``dashboard_title`` of the (single) dashboard in an unpacked export, or None."""
    for path, content in sorted(files.items()):
        if path.startswith("dashboards/") and path.endswith(".yaml"):
            try:
                payload = yaml.safe_load(content)
            except yaml.YAMLError:
                return None
            return payload.get("dashboard_title") if isinstance(payload, dict) else None
    return None


async def dashboard_export_files(client: SupersetClient, dashboard_id: int) -> dict[str, bytes]:
    """Export one dashboard and return its files, unpacked and normalised.

    Returns:
        ``{path inside the export (e.g. "charts/x_1.yaml"): bytes}``.

    Raises:
        UpstreamError / UpstreamUnavailable / …: from the Superset client (404 for an unknown dashboard).
        ExportRefused: Superset lists the dashboard to this account yet fails its export (``transfer``).
        ExportError: the zip is unusable.
    """
    return export_normalise(export_unpack(await objects_export(client, "dashboard", [dashboard_id])))


async def dashboard_export_status(
    client: SupersetClient, *, env_id: str, dashboard_id: int, branch: str = gitrepo.MAIN
) -> dict[str, Any]:
    """Export the dashboard now and compare it with ``branch`` of the environment's repository.

    Returns:
        ``gitrepo.export_status``'s dict plus ``"title"`` (from the export) and ``"files"`` (number of files).
    """
    files = await dashboard_export_files(client, dashboard_id)
    status = await asyncio.to_thread(
        gitrepo.export_status, env_id=env_id, dashboard_id=dashboard_id, branch=branch, files=files
    )
    return {**status, "title": export_title(files), "files": len(files)}


def export_unpack(data: bytes) -> dict[str, bytes]:
    """Return the files of an export zip keyed by their path below the zip's single top folder.

    Raises:
        ExportError: not a zip, more than ``MAX_EXPORT_FILES`` files or ``MAX_EXPORT_BYTES`` bytes, or a path that
            is absolute, climbs with ``..``, or lies outside the top folder.
    """
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ExportError(f"export is not a zip: {exc}") from None
    with archive:
        infos = [info for info in archive.infolist() if not info.is_dir()]
        if len(infos) > MAX_EXPORT_FILES or sum(i.file_size for i in infos) > MAX_EXPORT_BYTES:
            raise ExportError("export too large")
        files: dict[str, bytes] = {}
        for info in infos:
            parts = info.filename.split("/")
            if info.filename.startswith("/") or "\\" in info.filename or any(p in ("", ".", "..") for p in parts):
                raise ExportError(f"unsafe path in export: {info.filename!r}")
            if len(parts) < 2:
                raise ExportError(f"file outside the export folder: {info.filename!r}")
            files["/".join(parts[1:])] = archive.read(info)
    if not files:
        raise ExportError("export is empty")
    return files


def export_normalise(files: dict[str, bytes]) -> dict[str, bytes]:
    """Return ``files`` with the volatile parts of an export made stable (see the module docstring)."""
    out = dict(files)
    if "metadata.yaml" in out:
        out["metadata.yaml"] = _TIMESTAMP_LINE.sub(b"", out["metadata.yaml"])
    for path, content in files.items():
        if path.startswith("dashboards/") and path.endswith(".yaml") and b"CHART-" in content:
            out[path] = _stable_layout(content)
    return out


def _stable_layout(content: bytes) -> bytes:
    """Rename the exporter's generated layout entries to stable ids, in chart-id order; other bytes untouched."""
    try:
        payload = yaml.safe_load(content)
    except yaml.YAMLError:
        return content
    position = payload.get("position") if isinstance(payload, dict) else None
    if not isinstance(position, dict):
        return content
    rows = {key for key, value in position.items() if _GENERATED_ROW.match(str(key)) and _is_generated_row(value)}
    charts = {
        key
        for key, value in position.items()
        if _GENERATED_CHART.match(str(key)) and isinstance(value, dict) and _generated_chart_parent(value, rows)
    }
    if not charts or len(rows) > 1:  # the exporter appends at most one row
        return content
    renamed = {row: "ROW-N-EXPORTED" for row in rows}
    ordered = sorted(charts, key=lambda key: _chart_id(position[key]))
    renamed.update({key: f"CHART-EXPORTED-{_chart_id(position[key])}" for key in ordered})
    kept = {key: value for key, value in position.items() if key not in renamed}
    generated = [key for key in position if key in rows] + ordered
    new_position = {}
    for key, value in [*kept.items(), *((key, position[key]) for key in generated)]:
        new_position[renamed.get(key, key)] = _rename_ids(value, renamed)
    for key in rows:
        new_position[renamed[key]]["children"] = [renamed[c] for c in ordered]
    payload["position"] = new_position
    # The exporter dumps with yaml.safe_dump(payload, sort_keys=False); the same options keep the style.
    return yaml.safe_dump(payload, sort_keys=False).encode()


def _is_generated_row(value: Any) -> bool:
    # append_charts gives its row the quirky meta {"0": "ROOT_ID", ...}; the frontend never does.
    return isinstance(value, dict) and isinstance(value.get("meta"), dict) and value["meta"].get("0") == "ROOT_ID"


def _generated_chart_parent(value: dict[str, Any], rows: set[str]) -> bool:
    parents = value.get("parents")
    if parents is None:  # appended without a grid: no parents at all
        return True
    return bool(parents) and parents[-1] in rows


def _chart_id(value: dict[str, Any]) -> int:
    chart_id = (value.get("meta") or {}).get("chartId")
    if chart_id is None:
        return 0
    try:
        return int(chart_id)
    except (TypeError, ValueError):
        return 0


def _rename_ids(value: Any, renamed: dict[str, str]) -> Any:
    """Replace generated ids inside one layout entry (its ``id``, ``children`` and ``parents``)."""
    if isinstance(value, str):
        return renamed.get(value, value)
    if isinstance(value, list):
        return [_rename_ids(item, renamed) for item in value]
    if isinstance(value, dict):
        return {
            key: _rename_ids(item, renamed) if key in ("id", "children", "parents") else item
            for key, item in value.items()
        }
    return value
