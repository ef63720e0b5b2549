"""rollback_deploy: undo a deploy or migration run by bringing back the copy saved before it (issue 28 item 4;
DESIGN §16 "Undo").

The copy (``Backup`` of kind ``pre_change``, ``tools.copies``) holds the target's versions of the dashboards and
charts the change overwrote and names what it created. A rollback plans against the target as it is now
(``rollback_plan``): the copy's dashboards and charts are restored (imported back with overwrite: charts first,
then dashboards — Superset's dashboard import never overwrites existing charts), and the objects the change created
that nothing else uses after the restore are deleted (dashboards, then charts, then datasets). The card shows the
way back as a field diff (the target now → the copy). It is itself a guarded write: outside dev it saves its own
copy first (no copy, no write; that copy's ``change.rolls_back`` names the copy restored, so the same deploy is
not rolled back twice by «the last one»), then verifies that the target's export equals the copy without ids and
timestamps (``bundle.bundle_comparable``).
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from asgiref.sync import sync_to_async
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from pydantic import Field

from agentchat.context.ids import ObjectId
from agentchat.errors import NOT_APPLICABLE
from agentchat.language import in_language
from agentchat.llm.offline.answers.base import when
from agentchat.models import Backup
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.bundle import Bundle, bundle_comparable, bundle_read, bundle_zip
from agentchat.superset.client import SupersetClient
from agentchat.superset.diff import bundles_diff, diff_summary
from agentchat.superset.diff_text import changed_lines, quoted_names
from agentchat.superset.ownership import owners_required
from agentchat.superset.transfer import TransferError, bundle_import, dashboards_export, objects_where
from agentchat.tools.copies import Change, copy_before_change, copy_needed, copy_read
from agentchat.tools.detached import charts_on_dashboards, detached_charts, detached_text, objects_delete
from agentchat.tools.history import DEPLOY_TOOLS

CHANGES_MAX = 30


class RollbackArgs(ToolArgs):
    env_id: str = Field(description="Environment whose change is undone, e.g. prod (the deploy's target).")
    backup_id: ObjectId | None = Field(
        None,
        description=(
            "Id of the copy saved before the change to undo (deploy_history and list_backups name it); "
            "default: the copy made before the last deploy or migration into env_id."
        ),
    )


class RollbackRefused(TransferError):
    """Nothing to roll back, or a copy that is not a copy made before a change in that environment: told instead
    of a card (``not_applicable``: the reason, no validator prefix)."""

    code = NOT_APPLICABLE


@dataclass
class RollbackPlan:
    """What a rollback does in ``target`` now.

    Attributes:
        backup: the copy restored; copy: its bundle.
        restore_dashboards / restore_charts: ``[{"uuid", "name", "target_id" or None}]`` of the copy's objects
            (target id now, None when the object is gone and will be re-created).
        remove: ``[{"type", "id", "name"}]`` objects the undone change created that nothing else uses after.
        kept: ``[{"type", "name"}]`` created objects that something else uses now (left in place).
    """

    backup: Backup
    copy: Bundle
    restore_dashboards: list[dict[str, Any]] = field(default_factory=list)
    restore_charts: list[dict[str, Any]] = field(default_factory=list)
    remove: list[dict[str, Any]] = field(default_factory=list)
    kept: list[dict[str, Any]] = field(default_factory=list)

    def target_ids(self, kind: str) -> list[int]:
        """Target ids the rollback overwrites or deletes of ``kind`` (``dashboard``/``chart``): its own copy."""
        restored = self.restore_dashboards if kind == "dashboard" else self.restore_charts
        ids = [o["target_id"] for o in restored if o["target_id"]]
        return ids + [o["id"] for o in self.remove if o["type"] == kind]


def rollback_source(env_id: str, backup_id: int | None) -> Backup:
    """The copy a rollback restores: ``backup_id``, else the newest copy made before a deploy or migration into
    ``env_id`` (DB read).

    Raises:
        RollbackRefused: no such copy in ``env_id``, a full backup, or «the last deploy» already rolled back.
        CopyNotFound: ``backup_id`` does not exist.
    """
    if backup_id is None:
        copies = Backup.objects.filter(env_id=env_id, kind=Backup.Kind.PRE_CHANGE, change__tool__in=DEPLOY_TOOLS)
        backup = copies.select_related("created_by").first()
        if backup is None:
            raise RollbackRefused(
                gettext_lazy(
                    "There is nothing to roll back in %(env)s: the agent has made no deploy or migration there that "
                    "saved a copy first (copies are made outside dev only)."
                ),
                env=env_id,
            )
    else:
        backup = Backup.objects.select_related("created_by").filter(pk=backup_id).first() or copy_read(backup_id)[0]
        if backup.env_id != env_id or backup.kind != Backup.Kind.PRE_CHANGE:
            raise RollbackRefused(
                gettext_lazy("Copy #%(id)s is not a copy made before a change in %(env)s."), id=backup.pk, env=env_id
            )
    undone = Backup.objects.filter(env_id=env_id, kind=Backup.Kind.PRE_CHANGE, change__rolls_back=backup.pk).first()
    if undone is not None:
        raise RollbackRefused(
            gettext_lazy(
                "The change saved in copy #%(id)s was already rolled back (%(when)s); to undo an earlier one, name "
                "its copy."
            ),
            id=backup.pk,
            when=when(undone.created_at),
        )
    return backup


async def rollback_plan(target: SupersetClient, backup: Backup, copy: Bundle) -> RollbackPlan:
    """Plan restoring ``copy`` (the file of ``backup``) into ``target`` as it is now (reads only)."""
    plan = RollbackPlan(backup=backup, copy=copy)
    dashboards = copy.by_uuid("dashboards")
    now = {r["uuid"]: r for r in await objects_where(target, "dashboard", "uuid", list(dashboards))}
    slugs = [c.get("slug") for u, c in dashboards.items() if u not in now and c.get("slug")]
    by_slug = {r["slug"]: r for r in await objects_where(target, "dashboard", "slug", slugs)}
    for uuid, config in dashboards.items():
        row = now.get(uuid) or by_slug.get(config.get("slug"))  # a deploy by slug took the row over
        name = str(config.get("dashboard_title"))
        plan.restore_dashboards.append({"uuid": uuid, "name": name, "target_id": row["id"] if row else None})
    charts = copy.by_uuid("charts")
    chart_now = {r["uuid"]: r for r in await objects_where(target, "chart", "uuid", list(charts))}
    for uuid, config in charts.items():
        row = chart_now.get(uuid)
        plan.restore_charts.append(
            {"uuid": uuid, "name": str(config.get("slice_name")), "target_id": row["id"] if row else None}
        )
    await _plan_removals(plan, target)
    return plan


async def _plan_removals(plan: RollbackPlan, target: SupersetClient) -> None:
    """The created objects of the undone change that are still there and used by nothing that stays."""
    created = plan.backup.change.get("created") or []
    uuids = {kind: [str(o["uuid"]) for o in created if o.get("type") == kind] for kind in ("dashboard", "dataset")}
    for row in await objects_where(target, "dashboard", "uuid", uuids["dashboard"]):
        plan.remove.append({"type": "dashboard", "id": row["id"], "name": str(row.get("dashboard_title"))})
    affected = {d["target_id"] for d in plan.restore_dashboards if d["target_id"]}
    affected |= {o["id"] for o in plan.remove}
    chart_uuids = [str(o["uuid"]) for o in created if o.get("type") == "chart"]
    for chart in await charts_on_dashboards(target, "uuid", chart_uuids):
        unused = set(chart["dashboards"]) <= affected
        entry = {"type": "chart", "id": chart["id"], "name": chart["name"]}
        (plan.remove if unused else plan.kept).append(entry)
    removed_charts = {o["id"] for o in plan.remove if o["type"] == "chart"}
    for row in await objects_where(target, "dataset", "uuid", uuids["dataset"]):
        related = await target.get_json(f"/api/v1/dataset/{row['id']}/related_objects")
        users = {c.get("id") for c in (related.get("charts") or {}).get("result") or []}
        entry = {"type": "dataset", "id": row["id"], "name": str(row.get("table_name"))}
        (plan.remove if users <= removed_charts else plan.kept).append(entry)


def rolled_back_mark(*, copy_id: int, restored_id: int) -> None:
    """Record on the rollback's own copy ``copy_id`` that it restored the copy ``restored_id`` (``change.rolls_back``,
    read by ``rollback_source``), once the restore has been written."""
    backup = Backup.objects.get(pk=copy_id)
    backup.change = {**backup.change, "rolls_back": restored_id}
    backup.save(update_fields=["change"])


async def _current(target: SupersetClient, plan: RollbackPlan) -> Bundle | None:
    """The target's current export of the dashboards the rollback restores (None when none exists now)."""
    ids = sorted({d["target_id"] for d in plan.restore_dashboards if d["target_id"]})
    return bundle_read(await dashboards_export(target, ids)) if ids else None


def _impact(
    plan: RollbackPlan, env_id: str, current: Bundle | None, *, copy: bool, detached: list[dict[str, Any]]
) -> dict[str, Any]:
    """The card's impact (active language): headline, the way back as field changes, what is deleted, the copy."""
    change, backup = plan.backup.change, plan.backup
    who = (backup.created_by.get_full_name() or backup.created_by.get_username()) if backup.created_by else "—"
    if change.get("tool") == "execute_migration":
        text = _(
            "Rolls back the migration %(src)s → %(env)s of %(names)s: restores copy #%(id)s saved %(when)s (%(who)s)."
        )
    else:
        text = _(
            "Rolls back the deploy %(src)s → %(env)s of %(names)s: restores copy #%(id)s saved %(when)s (%(who)s)."
        )
    headline = text % {
        "src": change.get("source_env_id") or "—",
        "env": env_id,
        "names": quoted_names(change.get("dashboards") or []) or "—",
        "id": backup.pk,
        "when": when(backup.created_at),
        "who": who,
    }
    objects = [{"type": "dashboard", "name": d["name"], "action": "restore"} for d in plan.restore_dashboards]
    objects += [{"type": "chart", "name": c["name"], "action": "restore"} for c in plan.restore_charts]
    objects += [{"type": o["type"], "name": o["name"], "action": "delete"} for o in plan.remove]
    changes = []
    if current is not None:
        summary = diff_summary(bundles_diff(current, plan.copy, charts_by_name=False), limit=CHANGES_MAX)
        changes = changed_lines(summary, ("dashboard", "chart"))[:CHANGES_MAX]
    parts = [headline]
    if plan.remove:
        parts.append(
            _("Will be deleted, as created by that change and used by nothing else: %(names)s.")
            % {"names": quoted_names(o["name"] for o in plan.remove)}
        )
    if plan.kept:
        parts.append(
            _("Kept, as they are used elsewhere now: %(names)s.")
            % {"names": quoted_names(o["name"] for o in plan.kept)}
        )
    if detached:
        parts.append(detached_text(detached, env_id))
    if copy:
        parts.append(_("A copy of the current version is saved before the change."))
    return {
        "headline": headline,
        "detached": [{"id": c["id"], "name": c["name"]} for c in detached],
        "detached_text": detached_text(detached, env_id) if detached else "",
        "summary": " ".join(parts),
        "objects": objects,
        "changes": changes,
        "copy_first": copy,
        "backup_id": backup.pk,
        "target_env_id": env_id,
    }


async def _planned(ctx: ToolContext, args: RollbackArgs) -> tuple[SupersetClient, RollbackPlan]:
    """The target and the plan, once Superset is known to let the user overwrite and delete what it touches.

    Raises:
        NotOwner: an object the rollback overwrites or deletes is another person's (nothing is written).
    """
    target = await ctx.superset(args.env_id)
    backup = await sync_to_async(rollback_source)(args.env_id, args.backup_id)
    _backup, copy = await sync_to_async(copy_read)(backup.pk)
    plan = await rollback_plan(target, backup, copy)
    kinds = ("dashboard", "chart", "dataset")
    touched = {kind: plan.target_ids(kind) if kind != "dataset" else [] for kind in kinds}
    touched["dataset"] = [o["id"] for o in plan.remove if o["type"] == "dataset"]
    touched["chart"] = [o["target_id"] for o in plan.restore_charts if o["target_id"]] + [
        o["id"] for o in plan.remove if o["type"] == "chart"
    ]
    await owners_required(target, touched)
    return target, plan


async def rollback_impact(ctx: ToolContext, args: RollbackArgs) -> dict[str, Any]:
    """Impact look-up of rollback_deploy (DESIGN §9 card, §16): the copy restored, the way back field by field,
    what is deleted, and whether a copy is saved first."""
    target, plan = await _planned(ctx, args)
    current = await _current(target, plan)
    restored = [d["target_id"] for d in plan.restore_dashboards if d["target_id"]]
    removed = {o["id"] for o in plan.remove if o["type"] == "chart"}
    detached = await detached_charts(target, current, plan.copy, restored) if current else []
    detached = [c for c in detached if c["id"] not in removed]  # the change's own charts are deleted, not left
    with in_language(ctx.language):
        return _impact(plan, args.env_id, current, copy=copy_needed(target), detached=detached)


async def rollback_apply(target: SupersetClient, plan: RollbackPlan, *, user_id: int | None) -> dict[str, Any]:
    """Restore ``plan`` in ``target``: its own copy first (outside dev), import the copy back (charts, then
    dashboards, with overwrite), delete what the undone change created and nothing uses, verify.

    Returns:
        ``{"env_id", "backup_id", "restored": {"dashboards": [titles], "charts": n}, "removed": [{"type", "name"}],
        "kept": [{"type", "name"}], "copy": {...} or None, "verified": bool, "differences": [lines], "dashboards":
        [{"id", "title"}], "target_env_id", "source_env_id": None, "source_dashboard_ids": []}`` (the last three for
        the audit row's deploy history).

    Raises:
        CopyFailed: outside dev, the target's current version could not be saved (nothing changed then).
        UpstreamError / StatusUnknown: Superset refused or failed an import or a delete.
    """
    change = Change(
        tool="rollback_deploy",
        source_env_id=None,
        dashboards=[d["name"] for d in plan.restore_dashboards],
        dashboard_ids=plan.target_ids("dashboard"),
        chart_ids=plan.target_ids("chart"),
    )
    copy = await copy_before_change(target, change, user_id=user_id)
    root = "agentchat_rollback_" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    if plan.restore_charts:
        await bundle_import(target, "chart", bundle_zip(plan.copy, root=root, kind="Slice"))
    if plan.restore_dashboards:
        await bundle_import(target, "dashboard", bundle_zip(plan.copy, root=root))
    for kind in ("dashboard", "chart", "dataset"):
        await objects_delete(target, kind, [o["id"] for o in plan.remove if o["type"] == kind])
    if copy is not None:  # written: «the last deploy» is this copy's no more (a failed attempt above marks nothing)
        await sync_to_async(rolled_back_mark)(copy_id=copy["backup_id"], restored_id=plan.backup.pk)
    restored = await objects_where(target, "dashboard", "uuid", [d["uuid"] for d in plan.restore_dashboards])
    differences: list[str] = []
    same = len(restored) == len(plan.restore_dashboards)
    if restored:
        now = bundle_read(await dashboards_export(target, [r["id"] for r in restored]))
        if bundle_comparable(now) != bundle_comparable(plan.copy):
            same = False
            summary = diff_summary(bundles_diff(plan.copy, now), limit=CHANGES_MAX)
            differences = changed_lines(summary, ("dashboard", "chart"))
    return {
        "env_id": target.env_id,
        "target_env_id": target.env_id,
        "source_env_id": None,
        "source_dashboard_ids": [],
        "backup_id": plan.backup.pk,
        "restored": {"dashboards": [d["name"] for d in plan.restore_dashboards], "charts": len(plan.restore_charts)},
        "dashboards": [{"id": r["id"], "title": r.get("dashboard_title")} for r in restored],
        "removed": [{"type": o["type"], "name": o["name"]} for o in plan.remove],
        "kept": [{"type": o["type"], "name": o["name"]} for o in plan.kept],
        "copy": copy,
        "verified": same,
        "differences": differences,
    }


@assistant_tool(
    name="rollback_deploy",
    category="dangerous",
    env_specific=True,
    args=RollbackArgs,
    description_ru=(
        "Откатывает деплой или миграцию в окружении: возвращает дашборды и графики к копии, сохранённой перед "
        "изменением (по умолчанию — перед последним деплоем), и удаляет созданное тем изменением, если оно больше "
        "нигде не используется. Перед откатом сохраняет копию текущей версии."
    ),
    description_en=(
        "Rolls back a deploy or migration in an environment: restores the dashboards and charts from the copy saved "
        "before the change (default: before the last deploy) and deletes what that change created if nothing else "
        "uses it; saves a copy of the current version first."
    ),
    examples_ru=[
        "Откати последний деплой в prod",
        "Верни прод к копии 12",
        "Отмени последнюю миграцию в prod",
        "Восстанови дашборд в проде как было до деплоя",
    ],
    examples_en=[
        "Roll back the last deploy to prod",
        "Restore prod from copy 12",
        "Undo the last migration into production",
        "Put the prod dashboard back the way it was before the deploy",
    ],
    impact=rollback_impact,
)
async def rollback_deploy(ctx: ToolContext, args: RollbackArgs) -> dict[str, Any]:
    """Undo the change saved in ``args.backup_id`` (default: the last deploy or migration into ``args.env_id``).

    Returns:
        ``rollback_apply``'s result.

    Raises:
        RollbackRefused: nothing to roll back, a copy of another kind or environment, or already rolled back.
        CopyFailed / UpstreamError / StatusUnknown: see ``rollback_apply``.
    """
    target, plan = await _planned(ctx, args)
    return await rollback_apply(target, plan, user_id=ctx.user.pk if ctx.user else None)
