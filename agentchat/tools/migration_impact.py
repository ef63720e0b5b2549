"""The impact of moving dashboards between environments, in words and numbers (DESIGN §8, §9).

``plan_impact`` turns a ``MigrationPlan`` into the impact shape of confirmation cards:
``{"summary_ru": "3 дашборда будут изменены в prod…", "summary_en", "objects": [{"type", "name", "action"}],
"counts": {type: {action: n}}, …}``. The same function serves the preview_migration tool and the ``impact``
look-ups of deploy_dashboard and execute_migration, so preview, card and deploy agree.
"""

from typing import Annotated, Any

from pydantic import BaseModel, Field, model_validator

from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.superset.migration_plan import MigrationPlan, migration_plan

ACTIONS_RU = {
    "create": "создать",
    "overwrite": "перезаписать",
    "conflict": "заменить (тот же slug)",
    "keep": "оставить",
}
ACTIONS_EN = {"create": "create", "overwrite": "overwrite", "conflict": "replace (same slug)", "keep": "keep"}
TYPES_RU = {"dashboard": "Дашборды", "chart": "Графики", "dataset": "Датасеты", "database": "Базы данных"}
TYPES_EN = {"dashboard": "Dashboards", "chart": "Charts", "dataset": "Datasets", "database": "Databases"}
CHANGING = ("create", "overwrite", "conflict")

SOURCE_ENV_FIELD = Field(description="Environment the dashboards are taken from (e.g. ss-dev); the page's by default.")
TARGET_ENV_FIELD = Field(description="Environment the dashboards are deployed into (e.g. prod).")


def plural_ru(n: int, one: str, few: str, many: str) -> str:
    """Return the Russian noun form for ``n`` (1 дашборд, 2 дашборда, 5 дашбордов)."""
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


def _headline(plan: MigrationPlan) -> tuple[str, str]:
    counts = plan.counts()["dashboard"]
    n = sum(counts.get(a, 0) for a in CHANGING)
    noun = plural_ru(n, "дашборд", "дашборда", "дашбордов")
    verb = "будет изменён" if n % 10 == 1 and n % 100 != 11 else "будут изменены"
    return (
        f"{n} {noun} {verb} в {plan.target_env_id}.",
        f"{n} dashboard{'' if n == 1 else 's'} will be changed in {plan.target_env_id}.",
    )


def _details(plan: MigrationPlan, actions: dict[str, str], types: dict[str, str]) -> str:
    counts = plan.counts()
    parts = []
    for kind, by_action in counts.items():
        shown = [f"{actions[a]} — {n}" for a, n in by_action.items() if n]
        if shown:
            parts.append(f"{types[kind]}: " + ", ".join(shown))
    return "; ".join(parts) + "."


def plan_impact(plan: MigrationPlan) -> dict[str, Any]:
    """Return the impact of ``plan`` for a confirmation card or a preview.

    Returns:
        ``{"summary_ru", "summary_en", "objects": [{"type", "name", "action", …}], "counts": {type: {action:
        n}}, "source_env_id", "target_env_id", "dashboards": [source titles], "problems": [{"ru", "en"}]}``;
        ``action`` is ``create|overwrite|conflict|keep``; a ``conflict`` is named after the target dashboard
        that the import would replace.
    """
    head_ru, head_en = _headline(plan)
    summary_ru = f"{head_ru} {_details(plan, ACTIONS_RU, TYPES_RU)}"
    summary_en = f"{head_en} {_details(plan, ACTIONS_EN, TYPES_EN)}"
    conflicts = [i for i in plan.items if i.action == "conflict"]
    if conflicts:
        names_ru = ", ".join(f"«{i.name}» (заменит «{i.source_name}»)" for i in conflicts)
        names_en = ", ".join(f"“{i.name}” (replaced by “{i.source_name}”)" for i in conflicts)
        summary_ru += f" Тот же slug уже занят в {plan.target_env_id}: {names_ru}."
        summary_en += f" The same slug is taken in {plan.target_env_id}: {names_en}."
    for ru, en in plan.problems:
        summary_ru += f" Развёртывание невозможно: {ru}"
        summary_en += f" The deploy cannot run: {en}"
    return {
        "summary_ru": summary_ru,
        "summary_en": summary_en,
        "objects": [item.as_dict() for item in plan.items],
        "counts": plan.counts(),
        "source_env_id": plan.source_env_id,
        "target_env_id": plan.target_env_id,
        "dashboards": [d["title"] for d in plan.dashboards],
        "problems": [{"ru": ru, "en": en} for ru, en in plan.problems],
    }


async def transfer_impact(
    ctx: ToolContext, *, source_env_id: str, target_env_id: str, dashboard_ids: list[int]
) -> dict[str, Any]:
    """Plan moving ``dashboard_ids`` and return ``plan_impact`` of it (read-only on both environments)."""
    source = await ctx.superset(source_env_id)
    target = await ctx.superset(target_env_id)
    _, plan = await migration_plan(source=source, target=target, dashboard_ids=dashboard_ids)
    return plan_impact(plan)


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
        ``plan_impact``: ``{"summary_ru", "summary_en", "objects": [{"type", "name", "action"}], "counts",
        "source_env_id", "target_env_id", "dashboards", "problems"}``.

    Raises:
        TransferError: a dashboard id does not exist in the source.
    """
    return await migration_impact(ctx, args)
