"""The impact of moving dashboards between environments, in words and numbers (DESIGN §8, §9).

``plan_impact`` turns a ``MigrationPlan`` into the impact shape of confirmation cards:
``{"summary": "3 дашборда будут изменены в prod. Создать: 4 графика…", "objects": [{"type", "name", "action"}],
"counts": {type: {action: n}}, …}``, the summary in the language asked for. The same function serves the
preview_migration tool and the ``impact`` look-ups of deploy_dashboard and execute_migration, so preview, card and
deploy agree.
"""

from typing import Annotated, Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy
from pydantic import BaseModel, Field, model_validator

from agentchat.language import in_language
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.superset.migration_plan import TYPES, MigrationPlan, migration_plan, object_count

# What the import will do, as the heading of the objects it does it to («Создать: 3 графика, 1 датасет.»).
ACTIONS = {
    "create": pgettext_lazy("planned import action", "Create"),
    "overwrite": pgettext_lazy("planned import action", "Overwrite"),
    "conflict": pgettext_lazy("planned import action", "Replace (same slug)"),
    "keep": pgettext_lazy("planned import action", "Keep"),
}
CHANGING = ("create", "overwrite", "conflict")

SOURCE_ENV_FIELD = Field(description="Environment the dashboards are taken from (e.g. ss-dev); the page's by default.")
TARGET_ENV_FIELD = Field(description="Environment the dashboards are deployed into (e.g. prod).")


def _headline(plan: MigrationPlan) -> str:
    counts = plan.counts()["dashboard"]
    n = sum(counts.get(a, 0) for a in CHANGING)
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
            _("“%(name)s” (replaced by “%(source)s”)") % {"name": i.name, "source": i.source_name} for i in conflicts
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
    ctx: ToolContext, *, source_env_id: str, target_env_id: str, dashboard_ids: list[int]
) -> dict[str, Any]:
    """Plan moving ``dashboard_ids`` and return ``plan_impact`` of it (read-only on both environments)."""
    source = await ctx.superset(source_env_id)
    target = await ctx.superset(target_env_id)
    _bundle, plan = await migration_plan(source=source, target=target, dashboard_ids=dashboard_ids)
    return plan_impact(plan, ctx.language)


class MigrationArgs(BaseModel):
    dashboard_ids: list[Annotated[int, Field(ge=1)]] = Field(
        min_length=1, max_length=50, description="Numeric Superset ids of the dashboards in the source environment."
    )
    source_env_id: str = SOURCE_ENV_FIELD
    target_env_id: str = TARGET_ENV_FIELD

    @model_validator(mode="after")
    def _different_environments(self) -> "MigrationArgs":
        if self.source_env_id == self.target_env_id:
            raise ValueError("source_env_id and target_env_id must differ")
        return self


async def migration_impact(ctx: ToolContext, args: MigrationArgs) -> dict[str, Any]:
    """Impact look-up of execute_migration (DESIGN §9 card): ``plan_impact`` of the whole set."""
    return await transfer_impact(
        ctx, source_env_id=args.source_env_id, target_env_id=args.target_env_id, dashboard_ids=args.dashboard_ids
    )


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
        "Shows what moving a set of dashboards from one environment to another would do: which dashboards, "
        "charts, datasets and databases would be created or overwritten, and which dashboards with the same "
        "slug would be replaced. Changes nothing."
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
    """Preview moving ``dashboard_ids`` from ``source_env_id`` to ``target_env_id`` (reads both; changes nothing).

    Returns:
        ``plan_impact``: ``{"summary", "objects": [{"type", "name", "action"}], "counts",
        "source_env_id", "target_env_id", "dashboards", "problems"}``.

    Raises:
        TransferError: a dashboard id does not exist in the source.
    """
    return await migration_impact(ctx, args)
