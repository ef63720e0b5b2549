"""The list of environments names those an administrator switched off (a fresh check, q19: «какие у нас
окружения?» left staging out, and «задеплой в staging» then came as a surprise)."""

import pytest

from policies.models import Environment
from tests.support.tool_runs import answer, run_tool

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_switched_off_environment_is_named_apart(engineer):
    await Environment.objects.filter(env_id="staging").aupdate(is_active=False)

    outcome = await run_tool("list_environments", engineer)

    assert outcome.ok, outcome.error_message
    assert "staging" not in [e["env_id"] for e in outcome.result["environments"]]
    assert outcome.result["switched_off"] == ["staging"]
    assert answer("list_environments", outcome, "en").endswith(
        "Switched off by an administrator (no tool works there): staging."
    )
    assert answer("list_environments", outcome, "ru").endswith(
        "Выключены администратором (инструменты там не работают): staging."
    )


async def test_with_every_environment_on_nothing_is_said_switched_off(engineer):
    await Environment.objects.filter(env_id="staging").aupdate(is_active=True)

    outcome = await run_tool("list_environments", engineer)

    assert outcome.result["switched_off"] == []
    assert "Switched off" not in answer("list_environments", outcome, "en")
