"""Superset object transfer over the REST API: list look-ups by uuid/name, dashboard export and bundle import.

Every request goes through the environment's ``SupersetClient`` (DESIGN §10). Look-ups use the list endpoints'
Rison filters (``opr: "in"``) in chunks, so a set of 40 dashboards costs a handful of requests.
"""

from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext_lazy, ngettext_lazy

from agentchat.errors import NOT_APPLICABLE, ToolError, UpstreamError, UpstreamUnavailable
from agentchat.language import in_language
from agentchat.superset.client import SupersetClient, rison

if TYPE_CHECKING:  # the stubs' type of a text or a lazy msgid (django-stubs-ext is a dev dependency)
    from django_stubs_ext import StrOrPromise

LOOKUP_CHUNK = 50
PAGE_SIZE = 100
LIST_COLUMNS: dict[str, list[str]] = {
    "dashboard": ["id", "uuid", "slug", "dashboard_title", "url"],
    "chart": ["id", "uuid", "slice_name"],
    "dataset": ["id", "uuid", "table_name", "schema", "database.database_name"],
    "database": ["id", "uuid", "database_name"],
}


class TransferError(ToolError):
    """A deploy, migration or backup step that cannot go on; its text is a catalogue message (DESIGN §10).

    Args:
        message: a ``gettext_lazy`` (or ``ngettext_lazy(…, "key")``) msgid with ``%(name)s`` placeholders.
        params: the placeholders' values (rendered when the text is asked for, in that language).

    ``code`` is ``upstream_error`` (the wire code of failures Superset-side work explains to the user). ``parts``
    holds one or more ``(message, params)``; ``joined`` makes one error of several, whose text is theirs in turn.
    """

    code = "upstream_error"

    def __init__(self, message: "StrOrPromise", /, **params: Any):
        self._parts_set([(message, params)])

    def _parts_set(self, parts: "list[tuple[StrOrPromise, dict[str, Any]]]") -> None:
        self.parts = parts
        super().__init__(self.text("en"))  # the detail (logs, audit) in the msgids' language

    @classmethod
    def joined(cls, errors: "list[TransferError]") -> "TransferError":
        """Return one error whose text is the texts of ``errors``, separated by spaces."""
        error = cls.__new__(cls)
        error._parts_set([part for e in errors for part in e.parts])
        return error

    def text(self, language: str | None = "") -> str:
        """Return the message in ``language`` (``ru``/``en``; the active language when empty or None)."""
        with in_language(language):
            return " ".join(str(message % params) if params else str(message) for message, params in self.parts)


class SameInstance(TransferError):
    """Source and target are one Superset instance (the same URL under two environment ids, e.g. a demo's staging
    on ss-dev's Superset): a deploy onto itself is refused before anything is read or written. ``invalid_args``:
    the call cannot succeed, so no confirmation card is offered (DESIGN §9)."""

    code = "invalid_args"


class DashboardsMissing(TransferError):
    """Dashboards a deploy or migration names that the source environment does not have (an id nobody can see
    there): the call cannot succeed, so no confirmation card is offered — a red prod card for an object that does
    not exist promised a change it could not make (issue 32 review) — and the answer says which ids
    (``not_applicable``: no validator prefix, no error frame; ``turn.calls``)."""

    code = NOT_APPLICABLE


class ExportRefused(TransferError):
    """Superset lists the objects to the person yet fails their export with a 5xx: Superset 6.1's export checks
    that it can read every object inside (a dashboard's charts and datasets) and fails with «Fatal error» (HTTP
    500, ``ChartNotFoundError`` in its log) when some are hidden from the account (DESIGN §15: acting as the
    person). Not an outage — Superset answers — and not retried: the same export fails the same way."""


# kind → what the person reads when Superset shows them the objects but fails their export (``ExportRefused``).
_EXPORT_REFUSED: "dict[str, StrOrPromise]" = {
    "dashboard": ngettext_lazy(
        "Superset shows you dashboard %(ids)s in %(env)s but fails its export (HTTP %(status)s): it does so when "
        "some of the dashboard's charts or datasets are hidden from your account. Superset's administrator can "
        "grant you access to them.",
        "Superset shows you dashboards %(ids)s in %(env)s but fails their export (HTTP %(status)s): it does so "
        "when some of their charts or datasets are hidden from your account. Superset's administrator can grant "
        "you access to them.",
        "count",
    ),
    "chart": ngettext_lazy(
        "Superset shows you chart %(ids)s in %(env)s but fails its export (HTTP %(status)s): it does so when the "
        "chart's dataset is hidden from your account. Superset's administrator can grant you access to it.",
        "Superset shows you charts %(ids)s in %(env)s but fails their export (HTTP %(status)s): it does so when "
        "their datasets are hidden from your account. Superset's administrator can grant you access to them.",
        "count",
    ),
}


def instances_distinct(source: SupersetClient, target: SupersetClient) -> None:
    """Refuse moving objects from an instance onto itself (issue 15: an honest demo).

    Raises:
        SameInstance: ``source`` and ``target`` have the same base URL (or are the same environment).
    """
    if source.base_url.rstrip("/").casefold() != target.base_url.rstrip("/").casefold():
        return
    raise SameInstance(
        gettext_lazy(
            "%(source)s and %(target)s are the same Superset instance (%(url)s): a deploy onto itself is refused — "
            "it would change nothing, and its import would overwrite the source's own objects."
        ),
        source=source.env_id,
        target=target.env_id,
        url=source.base_url,
    )


async def objects_where(
    client: SupersetClient, kind: str, column: str, values: list[Any], *, columns: list[str] | None = None
) -> list[dict[str, Any]]:
    """Return the ``kind`` objects (``dashboard|chart|dataset|database``) whose ``column`` is one of ``values``.

    Rows carry ``columns`` (default ``LIST_COLUMNS[kind]``; Superset's list-endpoint names, nested ones such as
    ``changed_by.first_name`` come back nested); uuids are strings. Values are sent in chunks of ``LOOKUP_CHUNK``.
    """
    rows: list[dict[str, Any]] = []
    unique = list(dict.fromkeys(v for v in values if v is not None))
    for start in range(0, len(unique), LOOKUP_CHUNK):
        chunk = unique[start : start + LOOKUP_CHUNK]
        q = {
            "columns": columns or LIST_COLUMNS[kind],
            "filters": [{"col": column, "opr": "in", "value": chunk}],
            "page_size": PAGE_SIZE,
        }
        body = await client.get_json(f"/api/v1/{kind}/", q=q)
        rows.extend(_flat(row) for row in body.get("result", []))
    return rows


async def dashboards_all(client: SupersetClient) -> list[dict[str, Any]]:
    """Return every dashboard the service account sees (all pages of the list endpoint, deduplicated by id).

    Ordered by title: the list endpoint cannot order by id, and its default order (last change) moves rows
    between pages while people edit.
    """
    rows: dict[int, dict[str, Any]] = {}
    page = 0
    while True:
        q = {
            "columns": LIST_COLUMNS["dashboard"],
            "page": page,
            "page_size": PAGE_SIZE,
            "order_column": "dashboard_title",
            "order_direction": "asc",
        }
        body = await client.get_json("/api/v1/dashboard/", q=q)
        batch = body.get("result", [])
        rows.update((row["id"], _flat(row)) for row in batch)
        if len(batch) < PAGE_SIZE:
            return list(rows.values())
        page += 1


async def objects_count(client: SupersetClient, kind: str) -> int:
    """Return how many ``kind`` objects the service account sees (the list endpoint's ``count``)."""
    body = await client.get_json(f"/api/v1/{kind}/", q={"columns": ["id"], "page_size": 1})
    return int(body.get("count", 0))


def _flat(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    if out.get("uuid") is not None:
        out["uuid"] = str(out["uuid"])
    database = out.pop("database", None)
    if isinstance(database, dict):
        out["database_name"] = database.get("database_name")
    return out


async def dashboards_require(client: SupersetClient, dashboard_ids: list[int]) -> list[dict[str, Any]]:
    """Return the dashboards ``dashboard_ids`` of the environment, in the given order.

    Raises:
        TransferError: some ids do not exist there (named in the message).
    """
    rows = {row["id"]: row for row in await objects_where(client, "dashboard", "id", list(dashboard_ids))}
    missing = [i for i in dashboard_ids if i not in rows]
    if missing:
        ids = ", ".join(str(i) for i in missing)
        raise DashboardsMissing(
            gettext_lazy("Environment %(env)s has no dashboards with id %(ids)s."), env=client.env_id, ids=ids
        )
    return [rows[i] for i in dict.fromkeys(dashboard_ids)]


async def objects_export(client: SupersetClient, kind: str, ids: list[int]) -> bytes:
    """Export objects of ``kind`` (``dashboard``, ``chart``, ``dataset``) with what they use
    (``GET /api/v1/<kind>/export/``: a dashboard's charts, a chart's dataset, a dataset's database).

    Returns:
        The zip bytes.

    Raises:
        ExportRefused: Superset answered the export with a 5xx while it lists every one of ``ids`` to this
            account (a dashboard or chart only; see the class).
        UpstreamUnavailable / UpstreamError / SupersetDenied: see ``SupersetClient.request``.
    """
    try:
        response = await client.request("GET", f"/api/v1/{kind}/export/", params={"q": rison(list(ids))})
    except UpstreamUnavailable as exc:
        status = exc.params.get("status")
        if kind not in _EXPORT_REFUSED or status is None or not await _all_listed(client, kind, ids):
            raise
        raise ExportRefused(
            _EXPORT_REFUSED[kind],
            env=client.env_id,
            ids=", ".join(f"#{i}" for i in ids),
            count=len(ids),
            status=status,
        ) from exc
    return response.content


async def _all_listed(client: SupersetClient, kind: str, ids: list[int]) -> bool:
    """Whether Superset's list endpoint shows every one of ``ids`` to the client's account (False when it does
    not answer either: then the failed export was an outage after all)."""
    try:
        listed = {row["id"] for row in await objects_where(client, kind, "id", list(ids), columns=["id"])}
    except ToolError:
        return False
    return set(ids) <= listed


async def dashboards_export(client: SupersetClient, dashboard_ids: list[int]) -> bytes:
    """Export dashboards with their charts, datasets and databases (``objects_export`` of ``dashboard``)."""
    return await objects_export(client, "dashboard", dashboard_ids)


async def dashboards_export_present(client: SupersetClient, dashboard_ids: list[int]) -> tuple[bytes | None, list[int]]:
    """Export those of ``dashboard_ids`` that still exist (a dashboard deleted meanwhile is skipped).

    Returns:
        ``(zip bytes or None when none exist, ids exported)``.
    """
    try:
        return await dashboards_export(client, dashboard_ids), list(dashboard_ids)
    except UpstreamError as exc:
        if exc.params.get("status") != 404:
            raise
    present = [row["id"] for row in await objects_where(client, "dashboard", "id", list(dashboard_ids))]
    if not present:
        return None, []
    return await dashboards_export(client, present), present


async def bundle_import(client: SupersetClient, kind: str, data: bytes, *, overwrite: bool = True) -> None:
    """Import a bundle zip (``POST /api/v1/<kind>/import/``, multipart ``formData``).

    Args:
        kind: ``dashboard`` or ``chart`` (the bundle's ``metadata.yaml`` type must match).
        data: the zip bytes (see ``bundle.bundle_zip``).
        overwrite: replace objects of the same uuid of this kind (related objects are never overwritten).

    Raises:
        UpstreamError / StatusUnknown: Superset refused or failed the import.
    """
    await client.request(
        "POST",
        f"/api/v1/{kind}/import/",
        files={"formData": (f"{kind}_import.zip", data, "application/zip")},
        data={"overwrite": "true" if overwrite else "false"},
    )
