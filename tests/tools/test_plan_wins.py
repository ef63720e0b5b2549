"""Issue 32 item 2, from a fresh check of the planner-led model: on a migration page the saved plan wins.

«запусти эту миграцию в prod для дашбордов 1 и 2» on the page of a plan that moves dashboard 1 sent
``execute_migration`` with ``dashboard_ids: [1, 2]`` and no ``migration_id`` — a call about no plan — and built a red
prod card for both dashboards. A call on a migration page is about its plan (``runtime.plans.plan_arguments``);
dashboards outside the plan are refused before any card, and the refusal is worded once (it read «Неверные
аргументы инструмента: Неверные аргументы инструмента: …»).
"""

import re

import pytest

from agentchat.turn.agent import AgentTurn
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support import superset_api
from tests.support.chat_server import Reply
from tests.support.frames import Frames
from tests.tools.test_migration_plans import energy_plan, migration_page  # noqa: F401 - the fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]


def _question(plan) -> str:
    regions = superset_api.dashboard_by_slug("ss-dev", "regions-overview")
    return f"запусти эту миграцию в prod для дашбордов {plan.dashboard_ids[0]} и {regions['id']}"


async def _turn(user, plan) -> Frames:
    frames = Frames()
    await AgentTurn(user=user, emit=frames).run(
        conversation_id=None, text=_question(plan), context=migration_page(plan)
    )
    return frames


async def test_offline_dashboards_outside_the_saved_plan_get_no_card(users, energy_plan):  # noqa: F811
    frames = await _turn(users["admin"], energy_plan)

    assert frames.of("confirm_required") == []
    answer = frames.of("message")[-1]["text"]
    assert f"#{energy_plan.pk}" in answer, answer
    assert answer.count("Неверные аргументы инструмента") <= 1, answer
    # the person reads the plan in words, not the model's instruction (a fresh check: «вызовите снова только с
    # migration_id»)
    assert not re.search(r"dashboard_ids|migration_id|вызовите", answer), answer
    assert "создайте новую миграцию" in answer, answer


async def test_planner_led_the_planner_s_refused_call_is_not_handed_to_the_model(
    users,
    settings,
    openai_provider,  # noqa: F811
    energy_plan,  # noqa: F811
):
    settings.LLM_FIRST_STEP = "planner"
    server = openai_provider(default=lambda request: Reply(text="Готово."))

    frames = await _turn(users["admin"], energy_plan)

    assert frames.of("confirm_required") == []
    assert server.requests == []  # the planner says why; the model is not asked to repair the planner's call
    assert f"#{energy_plan.pk}" in frames.of("message")[-1]["text"]


async def test_offline_a_target_the_plan_does_not_have_is_said_not_replaced_by_the_plan_s(users, energy_plan):  # noqa: F811
    """A fresh check: «запусти эту миграцию в ss-dev» on a plan to prod showed the red prod card, no word of ss-dev."""
    frames = Frames()
    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="запусти эту миграцию в ss-dev", context=migration_page(energy_plan)
    )

    assert frames.of("confirm_required") == []
    answer = frames.of("message")[-1]["text"]
    assert "ss-dev → prod" in answer, answer
    assert "в ss-dev" in answer, answer


async def test_offline_dashboards_of_the_plan_named_on_its_page_run_the_plan(users, energy_plan):  # noqa: F811
    """A fresh check: «запусти эту миграцию для дашборда 1» asked «В какое окружение? … «в staging»» though the
    plan has its target (and staging is off)."""
    frames = Frames()
    question = f"запусти эту миграцию для дашборда {energy_plan.dashboard_ids[0]}"
    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text=question, context=migration_page(energy_plan)
    )

    assert [f["tool"] for f in frames.of("confirm_required")] == ["execute_migration"]


@pytest.mark.parametrize("picked", ["prod", "ss-dev"])
async def test_offline_run_on_the_plan_s_page_goes_from_the_plan_s_source_whatever_environment_is_picked(
    users,
    energy_plan,  # noqa: F811
    picked,
):
    """A fresh check: «запускай миграцию» on the page of a plan ss-dev → prod, with prod picked in the page's
    environment menu, was refused as a migration «из prod» (the picked environment was put beside the plan)."""
    frames = Frames()
    context = {**migration_page(energy_plan), "envId": picked}
    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="запускай миграцию", context=context
    )

    (card,) = frames.of("confirm_required")
    assert card["tool"] == "execute_migration"
    assert card["decision"]["env_id"] == "prod", card["decision"]  # where it writes: the plan's target
    assert "ss-dev → prod" in card["html"], card["html"]  # from the plan's source, not the picked environment
