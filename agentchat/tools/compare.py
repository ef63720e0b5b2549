"""compare_versions: one dashboard or dataset against its version in another environment or in a saved copy
(issue 28 item 1; DESIGN §8).

The object is exported from its environment (Superset API ``/api/v1/<kind>/export/``); the other version is the
same object found in the other environment the way Superset's import finds it (uuid, then a dashboard's slug or a
dataset's schema + table), exported the same way, or the same object inside a saved copy (``Backup``: a full
backup or the copy made before a change, ``tools.copies``). ``superset.diff`` compares the two; the result lists
the differences field by field, as the cards do.
"""

from typing import Any

from asgiref.sync import sync_to_async
from pydantic import Field, model_validator

from agentchat.context.ids import ObjectId
from agentchat.errors import ToolError
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.bundle import Bundle, BundleError, bundle_read, counterpart, dashboard_chart_uuids
from agentchat.superset.client import SupersetClient
from agentchat.superset.diff import bundles_diff, diff_summary
from agentchat.superset.transfer import objects_export, objects_where
from agentchat.tools.copies import copy_read

LINES_PER_OBJECT = 8  # differences listed per dashboard, chart or dataset; the rest are counted ("more")


class CompareArgs(ToolArgs):
    env_id: str = Field(description="Environment of the object compared, e.g. ss-dev (the page's).")
    dashboard_id: ObjectId | None = Field(None, description="Numeric id of the dashboard in env_id.")
    dataset_id: ObjectId | None = Field(None, description="Numeric id of the dataset in env_id.")
    other_env_id: str | None = Field(
        None, description="Environment whose version of the same object it is compared with, e.g. prod."
    )
    backup_id: ObjectId | None = Field(
        None, description="Id of a saved copy (list_backups) to compare with instead of another environment."
    )

    @model_validator(mode="after")
    def _one_each(self) -> "CompareArgs":
        if (self.dashboard_id is None) == (self.dataset_id is None):
            raise ValueError("give exactly one of dashboard_id and dataset_id")
        if (self.other_env_id is None) == (self.backup_id is None):
            raise ValueError("give exactly one of other_env_id and backup_id")
        if self.other_env_id is not None and self.other_env_id == self.env_id:
            raise ValueError("other_env_id must be another environment than env_id")
        return self


async def _exported(client: SupersetClient, kind: str, object_id: int) -> Bundle:
    try:
        return bundle_read(await objects_export(client, kind, [object_id]))
    except BundleError as exc:
        raise ToolError(f"{client.env_id}: {exc}") from exc


def _own(bundle: Bundle, kind: str) -> dict[str, Any]:
    """The one object of ``kind`` an export of one object holds (its config)."""
    found = list(bundle.of(kind + "s").values())
    if not found:
        raise ToolError(f"the export holds no {kind}")
    return found[0]


async def _match(other: SupersetClient, kind: str, config: dict[str, Any]) -> tuple[int | None, str]:
    """The id of the same object in ``other`` and how it was found (``uuid``, ``slug`` or ``table``): same uuid,
    else the same slug (dashboard) or schema + table (dataset), as Superset's import matches (DESIGN §8)."""
    rows = await objects_where(other, kind, "uuid", [str(config.get("uuid"))])
    if rows:
        return rows[0]["id"], "uuid"
    if kind == "dashboard" and config.get("slug"):
        rows = await objects_where(other, kind, "slug", [config["slug"]])
    if not rows and kind == "dataset" and config.get("table_name"):
        rows = [
            r
            for r in await objects_where(other, kind, "table_name", [config["table_name"]])
            if (r.get("schema") or "") == (config.get("schema") or "")
        ]
    return (rows[0]["id"], "slug" if kind == "dashboard" else "table") if rows else (None, "")


async def _with_owners(client: SupersetClient, kind: str, object_id: int, bundle: Bundle) -> None:
    """Put the object's owners into its config in ``bundle``: Superset's export leaves them out, its REST answer
    (``GET /api/v1/<kind>/<id>``: ``result.owners``, ``{"id", "first_name", "last_name"}`` each) has them, and
    issue 28 item 1 compares them. Only for two environments: a saved copy is an export, without owners."""
    body = await client.get_json(f"/api/v1/{kind}/{object_id}")
    _own(bundle, kind)["owners"] = (body.get("result") or {}).get("owners") or []


def _scoped(copy: Bundle, kind: str, config: dict[str, Any]) -> Bundle:
    """The part of a saved copy that is ``config``'s object (``bundle.counterpart``), and for a
    dashboard its charts and their datasets; empty when the copy does not hold it."""
    found = counterpart(kind + "s", config, copy.by_uuid(kind + "s"))
    if found is None:
        return Bundle()
    parts = [(kind + "s", found)]
    if kind == "dashboard":
        placed = set(dashboard_chart_uuids(found))
        charts = [c for uuid, c in copy.by_uuid("charts").items() if uuid in placed]
        used = {str(c.get("dataset_uuid")) for c in charts}
        parts += [("charts", c) for c in charts]
        parts += [("datasets", d) for uuid, d in copy.by_uuid("datasets").items() if uuid in used]
    return Bundle(files={f"{folder}/{c['uuid']}.yaml": c for folder, c in parts})


@assistant_tool(
    name="compare_versions",
    category="read",
    env_specific=True,
    args=CompareArgs,
    description_ru=(
        "Сравнивает дашборд или датасет с его версией в другом окружении или в сохранённой копии: заголовок, "
        "slug, публикация, владельцы, фильтры, графики (добавлены, удалены, перемещены), у графиков тип, датасет, "
        "метрики, группировка, фильтры и период, у датасетов SQL, колонки и метрики."
    ),
    description_en=(
        "Compares a dashboard or dataset with its version in another environment or in a saved copy, field by "
        "field: title, slug, published, owners, filters, charts added/removed/moved, each chart's type, dataset, "
        "metrics, group-by, filters and time range, a dataset's SQL, columns and metrics."
    ),
    examples_ru=[
        "Чем этот дашборд отличается от версии в prod?",
        "Сравни этот датасет с тем, что в staging",
        "Что поменялось в дашборде по сравнению с копией 12?",
        "Есть ли расхождения между dev и prod по этому отчёту?",
    ],
    examples_en=[
        "How does this dashboard differ from the prod version?",
        "Compare this dataset with staging",
        "What changed in this dashboard since backup 12?",
        "Is the prod version of this report the same as dev?",
    ],
)
async def compare_versions(ctx: ToolContext, args: CompareArgs) -> dict[str, Any]:
    """Compare one object with its other version (see the module docstring); the other version is the old side.

    Returns:
        ``{"env_id", "object": {"type", "id", "name"}, "other": {"env_id", "id", "matched_by": "uuid" | "slug" |
        "table"} | {"backup_id", "env_id", "created_at"}, "found": bool, "charts_anew": int, "counts": {"changed",
        "added", "removed", "same"}, "differences": [superset.diff.diff_summary line]}``; ``charts_anew`` counts
        the charts whose uuids the other side does not hold (a deploy creates them anew there); ``found`` False (no
        counts, no differences) when the other side has no such object; at most ``LINES_PER_OBJECT`` lines per
        object.

    Raises:
        InvalidArguments: no saved copy ``backup_id``. CopyUnreadable: its file is gone or not an export.
        ToolError / UpstreamError: Superset's refusals and failures (the user's own rights apply, DESIGN §15).
    """
    kind, object_id = ("dashboard", args.dashboard_id) if args.dashboard_id else ("dataset", int(args.dataset_id or 0))
    client = await ctx.superset(args.env_id)
    current = await _exported(client, kind, object_id)
    config = _own(current, kind)
    name = config.get("dashboard_title") if kind == "dashboard" else config.get("table_name")
    out: dict[str, Any] = {"env_id": args.env_id, "object": {"type": kind, "id": object_id, "name": name}}
    if args.backup_id is not None:
        backup, copy = await sync_to_async(copy_read)(args.backup_id)
        await ctx.superset(backup.env_id)  # the copy is read only by someone who may act in its environment
        out["other"] = {"backup_id": backup.pk, "env_id": backup.env_id, "created_at": backup.created_at.isoformat()}
        before = _scoped(copy, kind, config)
    else:
        other = await ctx.superset(str(args.other_env_id))
        other_id, matched_by = await _match(other, kind, config)
        out["other"] = {"env_id": other.env_id, "id": other_id, "matched_by": matched_by}
        before = await _exported(other, kind, other_id) if other_id is not None else Bundle()
        if other_id is not None:
            await _with_owners(client, kind, object_id, current)
            await _with_owners(other, kind, other_id, before)
    out["found"] = bool(before.of(kind + "s"))
    if not out["found"]:
        return out
    diff = bundles_diff(before, current)
    # Charts the other side holds under other uuids: a deploy (an import by uuid) makes them anew there.
    out["charts_anew"] = len(set(current.by_uuid("charts")) - set(before.by_uuid("charts")))
    out["counts"] = diff["counts"]
    out["differences"] = diff_summary(diff, limit=LINES_PER_OBJECT)
    return out
