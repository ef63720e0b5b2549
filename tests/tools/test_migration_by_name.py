"""A saved migration named by its name from no page (issue 29; turns_day2 u51, turns_day5 x43: «запусти миграцию
energy report to prod» asked «Какие дашборды?»): the plan is found by its name, previewed, and its card offered; a
name no plan has is said, with the saved plans' names. On the real local Superset pair, offline planner."""

import pytest
from channels.db import database_sync_to_async

from agentchat.models import Migration, PendingConfirmation
from tests.llm.test_offline_turns import ask, page
from tests.support.wording import text
from tests.tools.test_migration_plans import _offline, energy_plan  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("env_id", ["ss-dev", "prod"])  # the page's environment is not put beside the plan's
async def test_a_plan_named_from_no_page_is_previewed_then_carded(users, energy_plan, env_id):  # noqa: F811
    frames = await ask(users["admin"], "запусти миграцию «Энергетика в прод»", page(None, None, env_id=env_id))

    assert frames.tools == ["preview_migration"]
    (card,) = frames.of("confirm_required")
    assert card["tool"] == "execute_migration"
    assert f"#{energy_plan.pk} «{energy_plan.name}»" in card["html"]
    row = await database_sync_to_async(PendingConfirmation.objects.get)(pk=card["confirmation_id"])
    assert row.args["migration_name"] == energy_plan.name
    saved = await database_sync_to_async(Migration.objects.get)(pk=energy_plan.pk)
    assert saved.status == "previewed"


async def test_a_name_no_plan_has_is_said_with_the_saved_names(users, energy_plan):  # noqa: F811
    frames = await ask(users["admin"], "запусти миграцию «Продажи в прод»", page(None, None))

    assert frames.of("confirm_required") == []
    expected = text(
        "ru",
        "There is no saved migration “%(name)s”. Saved migrations: %(names)s.",
        name="Продажи в прод",
        names=f"“{energy_plan.name}”",
    )
    assert expected in frames.answer
