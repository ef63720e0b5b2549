"""Target charts a deploy leaves on no dashboard (issue 28 item 2: "no silent duplicates"; DESIGN §16 "Look").

A deploy overwrites target dashboards, or replaces one that holds the same slug. The charts those dashboards place
now and the incoming versions do not — every chart of a dashboard replaced by slug (its charts have other uuids),
or a chart taken off an overwritten one — stay in the target, detached, often with the names of the new ones.
``detached_charts`` names those that no other target dashboard uses; the card and the deploy's answer list them,
and deleting them is an explicit choice on the card (the ``remove_detached`` option), done by ``detached_remove``
after the import, once the copy saved before the change holds them (``copies``; a rollback brings them back).
"""

from typing import Any

from django.utils.translation import ngettext

from agentchat.errors import SupersetDenied
from agentchat.superset.bundle import Bundle, dashboard_chart_uuids
from agentchat.superset.client import SupersetClient, rison
from agentchat.superset.diff_text import quoted_names
from agentchat.superset.transfer import objects_where

CHART_COLUMNS = ["id", "uuid", "slice_name", "dashboards.id"]


def placed_charts(bundle: Bundle) -> set[str]:
    """The chart uuids the dashboards of ``bundle`` place (their ``position``)."""
    return {uuid for config in bundle.by_uuid("dashboards").values() for uuid in dashboard_chart_uuids(config)}


async def charts_on_dashboards(client: SupersetClient, column: str, values: list[Any]) -> list[dict[str, Any]]:
    """The charts of ``client`` whose ``column`` (``id``/``uuid``) is one of ``values``, each as ``{"id", "uuid",
    "name", "dashboards": [ids]}`` (Superset API ``GET /api/v1/chart/`` with ``dashboards.id``), sorted by name."""
    rows = await objects_where(client, "chart", column, values, columns=CHART_COLUMNS) if values else []
    charts = [
        {
            "id": row["id"],
            "uuid": str(row.get("uuid")),
            "name": str(row.get("slice_name")),
            "dashboards": sorted(d["id"] for d in row.get("dashboards") or [] if isinstance(d, dict)),
        }
        for row in rows
    ]
    return sorted(charts, key=lambda c: (c["name"].casefold(), c["id"]))


async def detached_charts(
    target: SupersetClient, before: Bundle, incoming: Bundle, dashboard_ids: list[int]
) -> list[dict[str, Any]]:
    """The target charts a deploy of ``incoming`` would leave on no dashboard.

    Args:
        target: the client of the environment written.
        before: the target's current export of the dashboards the deploy overwrites or replaces (``dashboard_ids``,
            target ids).
        incoming: the bundle the deploy imports (its dashboards' ``position`` says which charts stay placed).
        dashboard_ids: the target dashboards overwritten or replaced.

    Returns:
        ``[{"id", "uuid", "name", "dashboards"}]`` (target ids) of the charts ``before`` places and ``incoming``
        does not, and that no target dashboard besides ``dashboard_ids`` uses; sorted by name.
    """
    candidates = sorted(placed_charts(before) - placed_charts(incoming))
    replaced = set(dashboard_ids)
    return [c for c in await charts_on_dashboards(target, "uuid", candidates) if set(c["dashboards"]) <= replaced]


async def objects_delete(client: SupersetClient, kind: str, ids: list[int]) -> None:
    """Delete the ``kind`` objects ``ids`` (``chart``, ``dashboard``, ``dataset``) in one request (Superset API
    ``DELETE /api/v1/<kind>/?q=!(ids)``).

    Raises:
        UpstreamError / SupersetDenied / StatusUnknown: Superset refused or failed the delete.
    """
    if ids:
        await client.request("DELETE", f"/api/v1/{kind}/", params={"q": rison(sorted(set(ids)))})


async def detached_remove(
    target: SupersetClient, charts: list[dict[str, Any]], language: str | None = None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Delete those of ``charts`` (``detached_charts`` before the import) that are on no dashboard now, after it.

    A chart someone placed on a dashboard meanwhile is kept. Superset refuses to delete a chart the user does not
    own: that chart is kept and named with Superset's reason, the deploy itself stands (it has happened).

    Returns:
        ``(deleted, refused)``: ``[{"id", "name"}]`` deleted, ``[{"id", "name", "reason"}]`` Superset refused
        (``reason`` in ``language``).

    Raises:
        UpstreamError / StatusUnknown: Superset failed a delete.
    """
    now = await charts_on_dashboards(target, "id", [c["id"] for c in charts])
    deleted, refused = [], []
    for chart in (c for c in now if not c["dashboards"]):
        try:
            await objects_delete(target, "chart", [chart["id"]])
        except SupersetDenied as exc:
            refused.append({"id": chart["id"], "name": chart["name"], "reason": exc.text(language or "")})
            continue
        deleted.append({"id": chart["id"], "name": chart["name"]})
    return deleted, refused


def detached_text(charts: list[dict[str, Any]], env_id: str) -> str:
    """«В prod останутся без дашборда 2 графика: «A», «B».» for ``charts`` (``[{"name"}]``), active language."""
    names = quoted_names(c["name"] for c in charts)
    return ngettext(
        "In %(env)s %(count)d chart will be left on no dashboard: %(names)s.",
        "In %(env)s %(count)d charts will be left on no dashboard: %(names)s.",
        len(charts),
    ) % {"env": env_id, "count": len(charts), "names": names}


def remove_detached_label(impact: dict[str, Any]) -> str:
    """The label of the card's ``remove_detached`` option, saying whether the copy saved before keeps them."""
    n = len(impact["detached"])
    if impact["copy_first"]:
        return ngettext(
            "Also delete this chart after the deploy (the copy saved before keeps it)",
            "Also delete these %(count)d charts after the deploy (the copy saved before keeps them)",
            n,
        ) % {"count": n}
    return ngettext(
        "Also delete this chart after the deploy", "Also delete these %(count)d charts after the deploy", n
    ) % {"count": n}
