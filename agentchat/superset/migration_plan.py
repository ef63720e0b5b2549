"""What moving dashboards from one environment to another does in the target, decided before anything changes.

``migration_plan`` exports the dashboards from the source and looks their objects up in the target the way
Superset's import will (DESIGN §8):

- dashboards: same uuid → ``overwrite``; otherwise a target dashboard with the same slug is a ``conflict``
  (Superset's import would take that other dashboard over and replace it, so it is named); otherwise ``create``;
- charts: same uuid → ``overwrite`` (deploys import charts with overwrite), otherwise ``create``;
- databases: same uuid, else the same ``database_name`` → ``keep`` (the target's connection is never touched; the
  bundle is rewritten to its uuid); otherwise ``create``;
- datasets: same uuid, else the same database name + schema + table → ``keep`` (mapped like databases);
  otherwise ``create``.

The plan is shared by preview_migration, the impact look-ups of the confirmation cards (``migration_impact``)
and the deploys themselves, so the card shows exactly what the deploy does.
"""

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_lazy, ngettext

from agentchat.superset.bundle import Bundle, BundleError, bundle_read
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.superset.transfer import TransferError, dashboards_export, dashboards_require, objects_where

MASKED_PASSWORD = "XXXXXXXXXX"  # noqa: S105 - not a secret: what Superset exports in place of a database password
TYPES = ("dashboard", "chart", "dataset", "database")


def object_count(kind: str, n: int) -> str:
    """Return «3 графика» (or "3 charts") for ``n`` objects of ``kind`` (one of ``TYPES``) in the active language;
    another kind reads ``n kind``."""
    if kind == "dashboard":
        text = ngettext("%(count)d dashboard", "%(count)d dashboards", n)
    elif kind == "chart":
        text = ngettext("%(count)d chart", "%(count)d charts", n)
    elif kind == "dataset":
        text = ngettext("%(count)d dataset", "%(count)d datasets", n)
    elif kind == "database":
        text = ngettext("%(count)d database", "%(count)d databases", n)
    else:
        return f"{n} {kind}"
    return text % {"count": n}


@dataclass
class PlanItem:
    """One object of the bundle and what the import does with it in the target.

    Attributes:
        type: ``dashboard|chart|dataset|database``.
        name: the name users know it by; for a ``conflict``, the TARGET dashboard's title (the one replaced).
        action: ``create|overwrite|conflict|keep``.
        uuid: the object's uuid in the bundle (before mapping).
        target_id: id of the matched target object, if any.
        source_name: for a ``conflict``, the source dashboard that replaces it.
        target_name: for an ``overwrite``, the target object's current name when it differs.
    """

    type: str
    name: str
    action: str
    uuid: str
    target_id: int | None = None
    source_name: str | None = None
    target_name: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """Return ``{"type", "name", "action"}`` plus ``target_id`` / ``source_name`` / ``target_name`` if set."""
        out: dict[str, Any] = {"type": self.type, "name": self.name, "action": self.action}
        if self.target_id is not None:
            out["target_id"] = self.target_id
        for key in ("source_name", "target_name"):
            value = getattr(self, key)
            if value and value != self.name:
                out[key] = value
        return out


@dataclass
class MigrationPlan:
    """The plan of moving ``dashboards`` from ``source_env_id`` to ``target_env_id``.

    Attributes:
        dashboards: source dashboards ``{"id", "title", "slug", "uuid"}`` in request order.
        items: every object of the bundle with its action (see module docstring).
        database_map / dataset_map: source uuid → target uuid for objects matched by name.
        database_names: source database name → the target database name to match it with (a saved migration's
            editable mapping); a database not listed is matched by its own name.
        problems: the reasons the deploy cannot run, as the errors it raises (it refuses before changing anything).
    """

    source_env_id: str
    target_env_id: str
    dashboards: list[dict[str, Any]]
    items: list[PlanItem] = field(default_factory=list)
    database_map: dict[str, str] = field(default_factory=dict)
    dataset_map: dict[str, str] = field(default_factory=dict)
    problems: list[TransferError] = field(default_factory=list)
    database_names: dict[str, str] = field(default_factory=dict)

    def target_database(self, name: Any) -> Any:
        """The target database name the source database ``name`` is matched with (itself unless mapped)."""
        return self.database_names.get(str(name), name) if name is not None else None

    def counts(self) -> dict[str, dict[str, int]]:
        """Return ``{type: {action: n}}`` over the items."""
        out: dict[str, dict[str, int]] = {t: {} for t in TYPES}
        for item in self.items:
            out[item.type][item.action] = out[item.type].get(item.action, 0) + 1
        return out


async def migration_plan(
    *,
    source: SupersetClient,
    target: SupersetClient,
    dashboard_ids: list[int],
    database_names: dict[str, str] | None = None,
) -> tuple[Bundle, MigrationPlan]:
    """Export ``dashboard_ids`` from ``source`` and plan their import into ``target`` (read-only on both).

    ``database_names`` maps a source database name to the target database to use (``MigrationPlan``); by
    default every database is matched by its own name.

    Returns:
        ``(bundle as exported, plan)``.

    Raises:
        TransferError: a dashboard id does not exist in the source, or its export is not a readable bundle.
        ToolError subclasses of the client (Superset unreachable, session expired, …).
    """
    rows = await dashboards_require(source, dashboard_ids)
    try:
        bundle = bundle_read(await dashboards_export(source, [row["id"] for row in rows]))
    except BundleError as exc:
        raise TransferError(
            gettext_lazy("The export from %(env)s could not be read: %(error)s."), env=source.env_id, error=exc
        ) from exc
    plan = MigrationPlan(
        source_env_id=source.env_id,
        target_env_id=target.env_id,
        dashboards=[
            {"id": r["id"], "title": r.get("dashboard_title"), "slug": r.get("slug"), "uuid": r.get("uuid")}
            for r in rows
        ],
        database_names=dict(database_names or {}),
    )
    # The look-ups are independent: run them together, then list the items in a fixed order.
    parts = await gather_requests(
        _plan_dashboards(plan, bundle, target),
        _plan_charts(plan, bundle, target),
        _plan_datasets(plan, bundle, target),
        _plan_databases(plan, bundle, target),
    )
    plan.items = [item for part in parts for item in part]
    return bundle, plan


async def _plan_databases(plan: MigrationPlan, bundle: Bundle, target: SupersetClient) -> list[PlanItem]:
    items: list[PlanItem] = []
    configs = bundle.by_uuid("databases")
    by_uuid = {r["uuid"]: r for r in await objects_where(target, "database", "uuid", list(configs))}
    names = [plan.target_database(c.get("database_name")) for u, c in configs.items() if u not in by_uuid]
    by_name = {r["database_name"]: r for r in await objects_where(target, "database", "database_name", names)}
    for uuid, config in configs.items():
        name = str(config.get("database_name"))
        match = by_uuid.get(uuid) or by_name.get(plan.target_database(name))
        if match is None:
            items.append(PlanItem("database", name, "create", uuid))
            if MASKED_PASSWORD in str(config.get("sqlalchemy_uri") or ""):
                plan.problems.append(
                    TransferError(
                        gettext_lazy(
                            "%(env)s has no database “%(name)s” and its password is not exported: create the "
                            "connection “%(name)s” in %(env)s and retry."
                        ),
                        env=plan.target_env_id,
                        name=name,
                    )
                )
            continue
        if match["uuid"] != uuid:
            plan.database_map[uuid] = match["uuid"]
        items.append(PlanItem("database", name, "keep", uuid, target_id=match["id"]))
    return items


async def _plan_datasets(plan: MigrationPlan, bundle: Bundle, target: SupersetClient) -> list[PlanItem]:
    items: list[PlanItem] = []
    configs = bundle.by_uuid("datasets")
    database_names = {u: plan.target_database(c.get("database_name")) for u, c in bundle.by_uuid("databases").items()}
    by_uuid = {r["uuid"]: r for r in await objects_where(target, "dataset", "uuid", list(configs))}
    tables = [c.get("table_name") for u, c in configs.items() if u not in by_uuid]
    candidates = await objects_where(target, "dataset", "table_name", tables)
    for uuid, config in configs.items():
        name = str(config.get("table_name"))
        match = by_uuid.get(uuid)
        if match is None:
            key = (database_names.get(str(config.get("database_uuid"))), config.get("schema"), name)
            match = next(
                (r for r in candidates if (r.get("database_name"), r.get("schema"), r.get("table_name")) == key),
                None,
            )
        if match is None:
            items.append(PlanItem("dataset", name, "create", uuid))
            continue
        if match["uuid"] != uuid:
            plan.dataset_map[uuid] = match["uuid"]
        items.append(PlanItem("dataset", name, "keep", uuid, target_id=match["id"]))
    return items


async def _plan_charts(plan: MigrationPlan, bundle: Bundle, target: SupersetClient) -> list[PlanItem]:
    items: list[PlanItem] = []
    configs = bundle.by_uuid("charts")
    by_uuid = {r["uuid"]: r for r in await objects_where(target, "chart", "uuid", list(configs))}
    for uuid, config in configs.items():
        name = str(config.get("slice_name"))
        match = by_uuid.get(uuid)
        if match is None:
            items.append(PlanItem("chart", name, "create", uuid))
        else:
            items.append(
                PlanItem("chart", name, "overwrite", uuid, target_id=match["id"], target_name=match.get("slice_name"))
            )
    return items


async def _plan_dashboards(plan: MigrationPlan, bundle: Bundle, target: SupersetClient) -> list[PlanItem]:
    items: list[PlanItem] = []
    configs = bundle.by_uuid("dashboards")
    by_uuid = {r["uuid"]: r for r in await objects_where(target, "dashboard", "uuid", list(configs))}
    slugs = [c.get("slug") for c in configs.values() if c.get("slug")]
    by_slug = {r["slug"]: r for r in await objects_where(target, "dashboard", "slug", slugs)}
    for uuid, config in configs.items():
        title = str(config.get("dashboard_title"))
        same = by_uuid.get(uuid)
        holder = by_slug.get(config.get("slug")) if config.get("slug") else None
        if same is not None:
            items.append(
                PlanItem(
                    "dashboard", title, "overwrite", uuid, target_id=same["id"], target_name=same.get("dashboard_title")
                )
            )
        if holder is not None and holder["uuid"] != uuid:
            replaced = str(holder.get("dashboard_title"))
            items.append(PlanItem("dashboard", replaced, "conflict", uuid, target_id=holder["id"], source_name=title))
            if same is not None:
                plan.problems.append(
                    TransferError(
                        gettext_lazy(
                            "Slug “%(slug)s” in %(env)s belongs to another dashboard “%(replaced)s” while "
                            "“%(title)s” exists there too: change one of the slugs."
                        ),
                        slug=config["slug"],
                        env=plan.target_env_id,
                        replaced=replaced,
                        title=title,
                    )
                )
        elif same is None:
            items.append(PlanItem("dashboard", title, "create", uuid))
    return items
