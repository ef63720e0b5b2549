"""The offline planner says truthfully why a Superset tool is not offered: no identity in that environment, and
what to do — not «your role lacks it» (DESIGN §15, §11)."""

import pytest

from agentchat.turn.agent import AgentTurn
from tests.support.contexts import ui_context
from tests.support.frames import Frames
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _offline(settings):
    settings.LLM_PROVIDER = "offline"


async def test_no_identity_answer_names_the_environment_and_what_to_do(password_mode):
    frames = Frames()

    await AgentTurn(user=password_mode["engineer"], emit=frames).run(
        conversation_id=None,
        text="выполни SELECT COUNT(*) FROM energy_consumption",
        context=ui_context("dataset", 1, env_id="prod"),
    )

    answer = [f for f in frames if f["event"] == "message"][-1]["text"]
    assert not [f for f in frames if f["event"] in ("tool_started", "permission_denied", "confirm_required")]
    assert (
        text("ru", "No access to %(env)s: sign in again or add a Superset API key in settings.", env="prod") in answer
    )
