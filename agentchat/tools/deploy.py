"""deploy_dashboard: export a dashboard from one environment and import it into another (DESIGN §8).

``deploy_apply`` is the one deploy path (execute_migration runs it per dashboard): plan (``migration_plan``) →
refuse if the plan has problems → outside dev, save the target's current versions of what it overwrites
(``copies.copy_before_change``; no copy, no write) → map databases and datasets to the target's uuids → import
the charts with overwrite (Superset's dashboard import never overwrites existing charts) → import the dashboards
with overwrite → verify in the target that every dashboard exists with its title and all its charts attached.
"""

from datetime import UTC, datetime
from typing import Any

from django.utils.translation import gettext_lazy, ngettext_lazy
from pydantic import Field, model_validator

from agentchat.context.ids import ObjectId
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.bundle import Bundle, bundle_remap, bundle_zip, dashboard_chart_uuids
from agentchat.superset.client import SupersetClient
from agentchat.superset.migration_plan import migration_plan
from agentchat.superset.ownership import owners_required
from agentchat.superset.transfer import TransferError, bundle_import, instances_distinct, objects_where
from agentchat.tools.copies import Change, copy_before_change
from agentchat.tools.detached import detached_charts, detached_remove
from agentchat.tools.migration_impact import (
    REMOVE_DETACHED_FIELD,
    SOURCE_ENV_FIELD,
    TARGET_ENV_FIELD,
    overwritten,
    owners_checked,
    plan_impact,
    target_before,
    transfer_impact,
)


class DeployArgs(ToolArgs):
    dashboard_id: ObjectId | None = Field(None, description="Dashboard id in the source environment.")
    dashboard: str | None = Field(None, min_length=1, max_length=255, description="Dashboard slug (instead of the id).")
    source_env_id: str = SOURCE_ENV_FIELD
    target_env_id: str = TARGET_ENV_FIELD
    remove_detached: bool = REMOVE_DETACHED_FIELD

    @model_validator(mode="after")
    def _check(self) -> "DeployArgs":
        if self.dashboard_id is None and not self.dashboard:
            raise ValueError("give dashboard_id or dashboard (slug)")
        if self.source_env_id == self.target_env_id:
            raise ValueError("source_env_id and target_env_id must differ")
        return self


class DashboardContradiction(TransferError):
    """``dashboard_id`` and the ``dashboard`` slug of one call name two dashboards (issue 16 review): a small model
    copies the schema's default, the page's id, beside the slug it was asked for. Refused as arguments (no card)."""

    code = "invalid_args"


async def dashboard_resolve(client: SupersetClient, args: DeployArgs) -> int:
    """Return the source dashboard id of ``args``: its ``dashboard_id``, or the id of the ``dashboard`` slug; with
    both, the id when the slug is that dashboard's.

    Raises:
        TransferError: no dashboard has that slug.
        DashboardContradiction: the id and the slug are two dashboards (the id no longer wins silently: on the
            page of «Обзор регионов» a deploy of energy-report proposed the page's dashboard, issue 16 review).
    """
    if args.dashboard_id is not None and not args.dashboard:
        return args.dashboard_id
    rows = await objects_where(client, "dashboard", "slug", [args.dashboard])
    if not rows:
        raise TransferError(
            gettext_lazy("%(env)s has no dashboard with slug “%(slug)s”."), env=client.env_id, slug=args.dashboard
        )
    slug_id: int = rows[0]["id"]
    if args.dashboard_id is not None and args.dashboard_id != slug_id:
        raise DashboardContradiction(
            gettext_lazy(
                "In %(env)s dashboard_id %(id)s and slug “%(slug)s” (dashboard %(slug_id)s) are two dashboards: "
                "give only the one asked for."
            ),
            env=client.env_id,
            id=args.dashboard_id,
            slug=args.dashboard,
            slug_id=slug_id,
        )
    return slug_id


async def deploy_apply(
    *,
    source: SupersetClient,
    target: SupersetClient,
    dashboard_ids: list[int],
    database_names: dict[str, str] | None = None,
    user_id: int | None = None,
    tool: str = "deploy_dashboard",
    remove_detached: bool = False,
) -> dict[str, Any]:
    """Deploy ``dashboard_ids`` from ``source`` into ``target`` and verify the result there; ``database_names``
    maps source database names to target ones (a saved migration's mapping; by name when None); ``user_id`` and
    ``tool`` are recorded on the copy saved before the overwrite (issue 28); ``remove_detached``: afterwards delete
    the target charts the deploy left on no dashboard (``detached``; the copy holds them).

    Returns:
        ``{"source_env_id", "target_env_id", "source_dashboard_ids", "dashboards": [{"id", "title", "slug", "url",
        "charts": [names]}] (target ids), "objects": [{"type", "name", "action"}] (what was done), "counts",
        "verified": true,
        "copy": {"backup_id", "file", "dashboards", "charts"} or None (dev),
        "detached": [{"id", "name"}] (target charts left on no dashboard), "removed": [{"id", "name"}] (those
        deleted with ``remove_detached``), "not_removed": [{"id", "name", "reason"}] (Superset refused to delete
        them: another person's charts)}``.

    Raises:
        NotOwner: Superset would refuse to overwrite an object the user does not own (nothing changed then).
        CopyFailed: the target is not dev and its current version could not be saved (nothing changed then).
        TransferError: the plan cannot run (nothing changed then), or the verification failed after import.
        UpstreamError / StatusUnknown: Superset refused or failed an import.
    """
    instances_distinct(source, target)
    bundle, plan = await migration_plan(
        source=source, target=target, dashboard_ids=dashboard_ids, database_names=database_names
    )
    if plan.problems:
        raise TransferError.joined(plan.problems)
    change = Change.of_plan(plan, tool=tool)
    await owners_required(target, overwritten(plan_impact(plan)["objects"]))
    before = await target_before(target, change.dashboard_ids)
    detached = await detached_charts(target, before, bundle, change.dashboard_ids) if before else []
    copy = await copy_before_change(target, change, user_id=user_id)
    remapped = bundle_remap(bundle, databases=plan.database_map, datasets=plan.dataset_map)
    root = "agentchat_deploy_" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    if any(item.type == "chart" and item.action == "overwrite" for item in plan.items):
        await bundle_import(target, "chart", bundle_zip(remapped, root=root, kind="Slice"))
    await bundle_import(target, "dashboard", bundle_zip(remapped, root=root))
    impact = plan_impact(plan)
    verified = await deploy_verify(target=target, bundle=remapped)
    removed, kept = await detached_remove(target, detached) if remove_detached and detached else ([], [])
    gone = {c["id"] for c in removed} | {c["id"] for c in kept}
    return {
        "source_env_id": source.env_id,
        "target_env_id": target.env_id,
        "source_dashboard_ids": list(dashboard_ids),
        "dashboards": verified,
        "objects": impact["objects"],
        "counts": impact["counts"],
        "verified": True,
        "copy": copy,
        "detached": [{"id": c["id"], "name": c["name"]} for c in detached if c["id"] not in gone],
        "removed": removed,
        "not_removed": kept,
    }


async def deploy_verify(*, target: SupersetClient, bundle: Bundle) -> list[dict[str, Any]]:
    """Check in ``target`` that every dashboard of ``bundle`` exists (by uuid) with its title and charts.

    Returns:
        ``[{"id", "title", "slug", "url", "charts": [names]}]`` as the target has them.

    Raises:
        TransferError: a dashboard or one of its charts is missing after the import.
    """
    configs = bundle.by_uuid("dashboards")
    rows = {r["uuid"]: r for r in await objects_where(target, "dashboard", "uuid", list(configs))}
    wanted = {u for config in configs.values() for u in dashboard_chart_uuids(config)}
    charts = {r["uuid"]: r for r in await objects_where(target, "chart", "uuid", list(wanted))}
    out = []
    for uuid, config in configs.items():
        title = config.get("dashboard_title")
        row = rows.get(uuid)
        if row is None or row.get("dashboard_title") != title:
            raise TransferError(
                gettext_lazy(
                    "The import into %(env)s finished but dashboard “%(title)s” is not there — check it by hand."
                ),
                env=target.env_id,
                title=title,
            )
        body = await target.get_json(f"/api/v1/dashboard/{row['id']}/charts")
        attached = {c.get("id") for c in body.get("result", [])}
        expected = dashboard_chart_uuids(config)
        missing = [u for u in expected if u not in charts or charts[u]["id"] not in attached]
        if missing:
            raise TransferError(
                ngettext_lazy(
                    "Dashboard “%(title)s” was imported into %(env)s but %(count)d of its charts is missing.",
                    "Dashboard “%(title)s” was imported into %(env)s but %(count)d of its charts are missing.",
                    "count",
                ),
                title=title,
                env=target.env_id,
                count=len(missing),
            )
        out.append(
            {
                "id": row["id"],
                "title": title,
                "slug": row.get("slug"),
                "url": target.base_url + (row.get("url") or f"/superset/dashboard/{row['id']}/"),
                "charts": [charts[u]["slice_name"] for u in expected],
            }
        )
    return out


async def deploy_impact(ctx: ToolContext, args: DeployArgs) -> dict[str, Any]:
    """Impact look-up of deploy_dashboard (DESIGN §9 card): what the deploy would create, overwrite or replace."""
    source = await ctx.superset(args.source_env_id)
    dashboard_id = await dashboard_resolve(source, args)
    impact = await transfer_impact(
        ctx, source_env_id=args.source_env_id, target_env_id=args.target_env_id, dashboard_ids=[dashboard_id]
    )
    return await owners_checked(ctx, impact)


@assistant_tool(
    name="deploy_dashboard",
    category="dangerous",
    env_specific=True,
    args=DeployArgs,
    description_ru=(
        "Разворачивает дашборд из одного окружения в другое (например, из ss-dev в prod): экспорт вместе с "
        "графиками и датасетами, импорт с перезаписью, сопоставление баз данных по имени; после импорта "
        "проверяет результат и сообщает, что создано и что перезаписано."
    ),
    description_en=(
        "Deploys a dashboard with its charts and datasets to another environment (e.g. prod), overwriting "
        "there; reports what was created or overwritten."
    ),
    examples_ru=[
        "Выкати этот дашборд в прод",
        "Разверни отчёт по энергопотреблению из ss-dev в prod",
        "Перенеси дашборд energy-report на продакшен",
        "Задеплой этот дашборд в staging",
    ],
    examples_en=[
        "Deploy this dashboard to prod",
        "Roll the energy report out from ss-dev to production",
        "Push the energy-report dashboard to prod",
        "Ship this dashboard to staging",
    ],
    impact=deploy_impact,
)
async def deploy_dashboard(ctx: ToolContext, args: DeployArgs) -> dict[str, Any]:
    """Deploy one dashboard from ``source_env_id`` to ``target_env_id`` (see ``deploy_apply``).

    Returns:
        ``deploy_apply``'s result: target dashboards with their charts, the objects created/overwritten/kept
        (``objects``, ``counts``) and ``verified``.

    Raises:
        TransferError: unknown dashboard, a plan problem (nothing changed), or a failed verification.
    """
    source = await ctx.superset(args.source_env_id)
    target = await ctx.superset(args.target_env_id)
    dashboard_id = await dashboard_resolve(source, args)
    return await deploy_apply(
        source=source,
        target=target,
        dashboard_ids=[dashboard_id],
        user_id=ctx.user.pk if ctx.user else None,
        remove_detached=args.remove_detached,
    )
