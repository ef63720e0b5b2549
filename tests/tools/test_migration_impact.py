"""The impact summary of moving dashboards (``plan_impact``), the text a confirmation card shows (DESIGN §9;
issue 14): counts with the plural form of their number, in Russian and English, from the catalogue."""

import pytest

from agentchat.superset.migration_plan import MigrationPlan, PlanItem
from agentchat.tools.migration_impact import plan_impact
from tests.support.wording import plural, plural_forms, ptext, text

CHANGED = ("%(count)d dashboard will be changed in %(env)s.", "%(count)d dashboards will be changed in %(env)s.")
DASHBOARDS = ("%(count)d dashboard", "%(count)d dashboards")
CHARTS = ("%(count)d chart", "%(count)d charts")


def plan_of(n: int) -> MigrationPlan:
    """``n`` dashboards overwritten in prod, each bringing one new chart, on one kept database."""
    items = [PlanItem("dashboard", f"Отчёт {i}", "overwrite", f"d-{i}", target_id=i) for i in range(n)]
    items += [PlanItem("chart", f"График {i}", "create", f"c-{i}") for i in range(n)]
    items.append(PlanItem("database", "Energy", "keep", "db", target_id=1))
    dashboards = [{"id": i, "title": f"Отчёт {i}", "slug": None, "uuid": f"d-{i}"} for i in range(n)]
    return MigrationPlan(source_env_id="ss-dev", target_env_id="prod", dashboards=dashboards, items=items)


@pytest.mark.parametrize("n", [1, 2, 5, 21])
@pytest.mark.parametrize("language", ["ru", "en"])
def test_impact_summary_counts_with_the_plural_form_of_each_number(language, n):
    """«1 дашборд будет изменён», «2 дашборда будут изменены», «5 дашбордов будут изменены», «21 дашборд будет
    изменён»; the details name the objects with their number too («Создать: 5 графиков.»)."""
    summary = plan_impact(plan_of(n), language)["summary"]

    headline = plural(language, *CHANGED, n, env="prod")
    create = ptext(language, "planned import action", "Create")
    overwrite = ptext(language, "planned import action", "Overwrite")
    keep = ptext(language, "planned import action", "Keep")
    details = (
        f"{create}: {plural(language, *CHARTS, n)}. {overwrite}: {plural(language, *DASHBOARDS, n)}. "
        f"{keep}: {plural(language, '%(count)d database', '%(count)d databases', 1)}."
    )
    assert summary == f"{headline} {details}"


def test_russian_has_three_forms_and_21_takes_the_form_of_1():
    for message in (CHANGED, DASHBOARDS, CHARTS):
        one, few, many, twenty_one = plural_forms("ru", *message)
        assert len({one, few, many}) == 3, message
        assert twenty_one == one, message
        english = plural_forms("en", *message)
        assert english[0] != english[1] == english[2] == english[3], message
    assert plan_impact(plan_of(2), "ru")["summary"] != plan_impact(plan_of(2), "en")["summary"]


def test_conflicts_and_problems_are_in_the_summary_in_its_language():
    plan = plan_of(1)
    plan.items.append(PlanItem("dashboard", "Чужой отчёт", "conflict", "d-0", target_id=9, source_name="Отчёт 0"))
    for language in ("ru", "en"):
        impact = plan_impact(plan, language)
        taken = text(language, "“%(name)s” (replaced by “%(source)s”)", name="Чужой отчёт", source="Отчёт 0")
        assert (
            text(language, "The same slug is taken in %(env)s: %(names)s.", env="prod", names=taken)
            in (impact["summary"])
        )
