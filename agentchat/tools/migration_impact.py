"""The impact of moving dashboards between environments, in words and numbers (DESIGN §8, §9).

``plan_impact`` turns a ``MigrationPlan`` into the impact shape of confirmation cards:
``{"summary": "3 дашборда будут изменены в prod. Создать: 4 графика…", "objects": [{"type", "name", "action"}],
"counts": {type: {action: n}}, …}``, the summary in the language asked for. The same function serves the
preview_migration tool and the ``impact`` look-ups of deploy_dashboard and execute_migration, so preview, card and
deploy agree.
"""

from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy
from pydantic import Field, model_validator

from agentchat.context.ids import ObjectId
from agentchat.errors import InvalidArguments, ToolError
from agentchat.language import in_language
from agentchat.models import Migration
from agentchat.runtime import plans
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.bundle import Bundle, BundleError, bundle_read
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.superset.diff import bundles_diff, diff_summary
from agentchat.superset.diff_text import changed_lines
from agentchat.superset.migration_plan import TYPES, MigrationPlan, migration_plan, object_count
from agentchat.superset.ownership import owners_required
from agentchat.superset.transfer import dashboards_export, instances_distinct
from agentchat.tools.copies import Change, copy_needed
from agentchat.tools.detached import detached_charts, detached_text, remove_detached_label
from agentchat.tools.drift import drift_text
from agentchat.tools.plan_contradiction import PlanContradiction

# What the import will do, as the heading of the objects it does it to («Создать: 3 графика, 1 датасет.»).
ACTIONS = {
    "create": pgettext_lazy("planned import action", "Create"),
    "overwrite": pgettext_lazy("planned import action", "Overwrite"),
    "conflict": pgettext_lazy("planned import action", "Replace (same slug)"),
    "keep": pgettext_lazy("planned import action", "Keep"),
}
CHANGING = ("create", "overwrite", "conflict")

SOURCE_ENV_FIELD = Field(description="Source environment, e.g. ss-dev.")
TARGET_ENV_FIELD = Field(description="Target environment, e.g. prod.")
REMOVE_DETACHED_FIELD = Field(
    False,
    description=(
        "Also delete the target's charts the deploy leaves on no dashboard (the card names them). Only when the "
        "user asked for it; the card offers it otherwise."
    ),
)


CHANGES_SHOWN = 6  # changed fields named in a card's summary; the rest are counted
CHANGES_MAX = 30  # changed fields listed in the impact's ``changes``


async def target_before(target: SupersetClient, dashboard_ids: list[int]) -> Bundle | None:
    """The target's current export of the dashboards ``dashboard_ids`` a deploy overwrites (Superset API
    ``/api/v1/dashboard/export/``): what the card compares against; None when there are none or the export cannot
    be read (the card then lists the objects only)."""
    if not dashboard_ids:
        return None
    try:
        return bundle_read(await dashboards_export(target, sorted(set(dashboard_ids))))
    except (ToolError, BundleError):
        return None


def changes_text(before: Bundle | None, bundle: Bundle, language: str) -> list[str]:
    """The field changes a deploy of ``bundle`` makes to the target dashboards of ``before`` (``target_before``)
    and their charts (issue 28 item 2), as lines «“Отчёт”: title “old” → “new”» in ``language``; datasets are kept
    by deploys, so their differences are not listed.

    Returns:
        At most ``CHANGES_MAX`` lines; none without ``before``.
    """
    if before is None:
        return []
    with in_language(language):
        lines = changed_lines(diff_summary(bundles_diff(before, bundle), limit=CHANGES_MAX), ("dashboard", "chart"))
    return lines[:CHANGES_MAX]


def _headline(plan: MigrationPlan) -> str:
    counts = plan.counts()["dashboard"]
    n = sum(counts.get(a, 0) for a in CHANGING)
    if n and n == counts.get("create", 0):  # only new dashboards: nothing of the target is changed
        return ngettext(
            "%(count)d dashboard will be created in %(env)s.", "%(count)d dashboards will be created in %(env)s.", n
        ) % {"count": n, "env": plan.target_env_id}
    return ngettext(
        "%(count)d dashboard will be changed in %(env)s.", "%(count)d dashboards will be changed in %(env)s.", n
    ) % {"count": n, "env": plan.target_env_id}


def _details(plan: MigrationPlan) -> str:
    counts = plan.counts()
    sentences = []
    for action, heading in ACTIONS.items():
        objects = [object_count(kind, counts[kind][action]) for kind in TYPES if counts.get(kind, {}).get(action)]
        if objects:
            sentences.append(f"{heading}: {', '.join(objects)}.")
    return " ".join(sentences)


def _summary(plan: MigrationPlan) -> str:
    parts = [_headline(plan), _details(plan)]
    conflicts = [i for i in plan.items if i.action == "conflict"]
    if conflicts:
        names = ", ".join(
            _("“%(name)s” (replaced by “%(source)s”)") % {"name": i.name, "source": i.source_name}
            if i.source_name and i.source_name != i.name
            else _("“%(name)s” (another dashboard of that title)") % {"name": i.name}
            for i in conflicts
        )
        parts.append(_("The same slug is taken in %(env)s: %(names)s.") % {"env": plan.target_env_id, "names": names})
    parts += [_("The deploy cannot run: %(problem)s") % {"problem": p.text(None)} for p in plan.problems]
    return " ".join(part for part in parts if part)


def plan_impact(plan: MigrationPlan, language: str | None = None) -> dict[str, Any]:
    """Return the impact of ``plan`` for a confirmation card or a preview, its texts in ``language`` (``ru``/``en``;
    the active language when None).

    Returns:
        ``{"summary", "objects": [{"type", "name", "action", …}], "counts": {type: {action: n}}, "source_env_id",
        "target_env_id", "dashboards": [source titles], "problems": [text]}``; ``action`` is
        ``create|overwrite|conflict|keep``; a ``conflict`` is named after the target dashboard that the import
        would replace.
    """
    with in_language(language):
        return {
            "summary": _summary(plan),
            "objects": [item.as_dict() for item in plan.items],
            "counts": plan.counts(),
            "source_env_id": plan.source_env_id,
            "target_env_id": plan.target_env_id,
            "dashboards": [d["title"] for d in plan.dashboards],
            "problems": [p.text(None) for p in plan.problems],
        }


async def transfer_impact(
    ctx: ToolContext,
    *,
    source_env_id: str,
    target_env_id: str,
    dashboard_ids: list[int],
    database_names: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Plan moving ``dashboard_ids`` and return ``plan_impact`` of it (read-only on both environments), with
    ``"changes"`` (``changes_text``: the fields the deploy changes in the dashboards and charts it overwrites, also
    the summary's «Изменения: …» line) and
    ``"drift"`` (``drift.drift_text``: target dashboards edited after our last deploy, also in the summary) and
    ``"copy_first": true`` and the summary's line saying so when the deploy will save the target's current versions
    first (``copies.copy_before_change``: the target is not dev and something there is overwritten); ``"summaries"``:
    the summary in every language of ``LANGUAGES``, so a stored preview is read in its reader's (issue 30)."""
    source = await ctx.superset(source_env_id)
    target = await ctx.superset(target_env_id)
    instances_distinct(source, target)
    bundle, plan = await migration_plan(
        source=source, target=target, dashboard_ids=dashboard_ids, database_names=database_names
    )
    impact = plan_impact(plan, ctx.language)
    impact["headline"] = impact["summary"]
    change = Change.of_plan(plan, tool="")
    # Every language's texts from one look-up: a stored preview is read in its reader's language (issue 30).
    languages = list(dict.fromkeys([ctx.language, *(code for code, _name in settings.LANGUAGES)]))
    before, drift = await gather_requests(
        target_before(target, change.dashboard_ids), drift_text(target, change.dashboard_ids, languages)
    )
    detached = await detached_charts(target, before, bundle, change.dashboard_ids) if before else []
    impact["detached"] = [{"id": c["id"], "name": c["name"]} for c in detached]
    impact["copy_first"] = bool(change.dashboard_ids or change.chart_ids) and copy_needed(target)
    summaries = {}
    for language in languages:
        texts = {**impact, "changes": changes_text(before, bundle, language), "drift": drift[language]}
        with in_language(language):
            summaries[language] = plan_impact(plan, language)["summary"] + _impact_tail(texts, target_env_id)
    impact.update(
        changes=changes_text(before, bundle, ctx.language),
        drift=drift[ctx.language],
        summary=summaries[ctx.language],
        summaries=summaries,
    )
    with in_language(ctx.language):
        if detached:
            impact["detached_text"] = detached_text(impact["detached"], target_env_id)
            impact["options"] = [{"name": "remove_detached", "label": remove_detached_label(impact)}]
    return impact


def overwritten(objects: list[dict[str, Any]]) -> dict[str, list[int]]:
    """``{"dashboard": [target ids], "chart": [target ids]}`` an impact's ``objects`` overwrite (same uuid: the
    objects whose ownership Superset's import checks; a dashboard taken over by slug is not checked by it)."""
    out: dict[str, list[int]] = {"dashboard": [], "chart": []}
    for o in objects:
        if o.get("type") in out and o.get("action") == "overwrite" and o.get("target_id"):
            out[o["type"]].append(int(o["target_id"]))
    return out


async def owners_checked(ctx: ToolContext, impact: dict[str, Any]) -> dict[str, Any]:
    """``impact`` of a deploy's or a migration's card, once Superset is known to let the user overwrite what it
    overwrites (``superset.ownership``).

    Raises:
        NotOwner: the user owns some overwritten object and is no Admin there: no card, the reason instead.
    """
    await owners_required(await ctx.superset(impact["target_env_id"]), overwritten(impact["objects"]))
    return impact


def _impact_tail(impact: dict[str, Any], env_id: str) -> str:
    """The summary's sentences after the headline, in the active language: «Изменения: …», the drift lines, the
    charts left on no dashboard, the copy line."""
    parts = []
    if impact["changes"]:
        more = len(impact["changes"]) - CHANGES_SHOWN
        tail = (" " + ngettext("(%(count)d more)", "(%(count)d more)", more) % {"count": more}) if more > 0 else ""
        parts.append(_("Changes: %(changes)s.") % {"changes": "; ".join(impact["changes"][:CHANGES_SHOWN])} + tail)
    parts += [f"{line}." for line in impact["drift"]]
    if impact["detached"]:
        parts.append(detached_text(impact["detached"], env_id))
    if impact["copy_first"]:
        parts.append(_("A copy of the current version is saved before the change."))
    return "".join(" " + part for part in parts)


class MigrationArgs(ToolArgs):
    migration_id: ObjectId | None = Field(
        None,
        description=("Saved migration (on its page: objectId); replaces dashboard_ids and the environments."),
    )
    dashboard_ids: list[ObjectId] | None = Field(
        None,
        min_length=1,
        max_length=50,
        description="Dashboard ids in the source environment.",
    )
    migration_name: str | None = Field(
        None, max_length=200, description="Saved migration by its name, when its id is not known (instead of it)."
    )
    source_env_id: str | None = Field(None, description=SOURCE_ENV_FIELD.description)
    target_env_id: str | None = Field(None, description=TARGET_ENV_FIELD.description)

    @model_validator(mode="after")
    def _plan_or_dashboards(self) -> "MigrationArgs":
        if self.migration_id is None and not self.migration_name:
            if not self.dashboard_ids:
                raise ValueError("dashboard_ids is required (or migration_id of a saved migration)")
            if not self.source_env_id or not self.target_env_id:
                raise ValueError("source_env_id and target_env_id are required (or migration_id)")
        # beside a saved plan a target equal to the source contradicts the plan: said in words (migration_target)
        if self.migration_id is None and self.source_env_id and self.source_env_id == self.target_env_id:
            raise ValueError("source_env_id and target_env_id must differ")
        return self


@dataclass(frozen=True)
class MigrationTarget:
    """What a migration call moves: from the saved plan (``migration``) or from the call's own arguments."""

    source_env_id: str
    target_env_id: str
    dashboard_ids: list[int]
    database_names: dict[str, str]
    migration: Migration | None = None


async def migration_target(args: MigrationArgs) -> MigrationTarget:
    """Resolve ``args``: a ``migration_id`` takes the saved plan (dashboards, environments, mapping). The saved plan
    wins (issue 32 item 2): dashboards or environments given beside it must be the plan's own, else the call is
    refused before Superset is asked, naming each argument that contradicts the plan and the plan's value, so a
    model can call again without them and no card offers objects outside the plan.

    Raises:
        MigrationNotFound: no saved migration with that id. MigrationNameNotFound: none (or several) by that name.
        InvalidArguments: an argument contradicts the saved plan; the plan moves an environment onto itself (or has
            no dashboards).
    """
    if args.migration_id is None and args.migration_name:  # «запусти миграцию energy report to prod»
        migration = await sync_to_async(plans.migration_named)(name=args.migration_name)
    elif args.migration_id is None:
        # The validator requires all three without a plan.
        return MigrationTarget(str(args.source_env_id), str(args.target_env_id), list(args.dashboard_ids or []), {})
    else:
        migration = await sync_to_async(plans.migration_get)(migration_id=args.migration_id)
    saved = {
        "dashboard_ids": sorted(migration.dashboard_ids),
        "source_env_id": migration.source_env_id,
        "target_env_id": migration.target_env_id,
    }
    given = {
        "dashboard_ids": sorted(args.dashboard_ids) if args.dashboard_ids else None,
        "source_env_id": args.source_env_id,
        "target_env_id": args.target_env_id,
    }
    contradicting = [name for name, value in given.items() if value is not None and value != saved[name]]
    if contradicting:
        raise PlanContradiction.of(migration.pk, saved, given, contradicting)
    source, target, ids = migration.source_env_id, migration.target_env_id, list(migration.dashboard_ids)
    if source == target:
        raise InvalidArguments(_("source_env_id and target_env_id must differ"))
    if not ids:
        raise InvalidArguments(_("migration #%(id)s has no dashboards") % {"id": migration.pk})
    return MigrationTarget(source, target, ids, dict(migration.database_mapping or {}), migration)


async def migration_impact(ctx: ToolContext, args: MigrationArgs) -> dict[str, Any]:
    """Impact look-up of execute_migration (DESIGN §9 card): ``plan_impact`` of the whole set; for a saved plan
    also its ``migration`` (``{"id", "name", "url"}``), so the card names the plan."""
    plan = await migration_target(args)
    impact = await transfer_impact(
        ctx,
        source_env_id=plan.source_env_id,
        target_env_id=plan.target_env_id,
        dashboard_ids=plan.dashboard_ids,
        database_names=plan.database_names,
    )
    if plan.migration is not None:
        impact["migration"] = {
            "id": plan.migration.pk,
            "name": plan.migration.name,
            "url": plans.migration_url(plan.migration.pk),
        }
    return impact


@assistant_tool(
    name="preview_migration",
    category="read",
    env_specific=True,
    args=MigrationArgs,
    description_ru=(
        "Показывает, что произойдёт при переносе набора дашбордов из одного окружения в другое: какие дашборды, "
        "графики, датасеты и базы данных будут созданы или перезаписаны, и какие дашборды с тем же slug "
        "будут заменены. Ничего не меняет."
    ),
    description_en=(
        "Previews moving dashboards to another environment without changing anything: which dashboards, charts, "
        "datasets and databases would be created or overwritten."
    ),
    examples_ru=[
        "Что изменится в prod, если перенести дашборды 1 и 2 из ss-dev?",
        "Покажи план миграции этих дашбордов в прод",
        "Какие графики перезапишутся при переносе в prod?",
        "Будут ли конфликты, если выкатить отчёт в прод?",
    ],
    examples_en=[
        "What would change in prod if I migrate dashboards 1 and 2 from ss-dev?",
        "Preview the migration of these dashboards to production",
        "Which charts would be overwritten by moving them to prod?",
        "Will there be conflicts if I deploy this report to prod?",
    ],
)
async def preview_migration(ctx: ToolContext, args: MigrationArgs) -> dict[str, Any]:
    """Preview moving ``dashboard_ids`` from ``source_env_id`` to ``target_env_id`` (reads both; changes nothing
    in Superset). With ``migration_id`` it previews that saved plan and stores the result as its last preview.

    Returns:
        ``plan_impact``: ``{"summary", "objects": [{"type", "name", "action"}], "counts",
        "source_env_id", "target_env_id", "dashboards", "problems"}``.

    Raises:
        TransferError: a dashboard id does not exist in the source.
    """
    impact = await migration_impact(ctx, args)
    if impact.get("migration"):  # a saved plan, by id or by name
        await sync_to_async(plans.migration_previewed)(migration_id=impact["migration"]["id"], impact=impact)
    return impact
