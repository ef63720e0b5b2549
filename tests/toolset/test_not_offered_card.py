"""The card and tool result of a call the user's role may make but this turn did not offer (second review of issue
16): they name the real reason — the tool does not fit the page's object, needs an environment, … — not the roles,
which are no reason there (get_git_status on a dashboard page listed every role as "required")."""

import html as markup
import json
import re

import pytest
from channels.db import database_sync_to_async
from django.utils.text import capfirst
from langchain_core.messages import ToolMessage

from agentchat.guard.cards import card_decided
from agentchat.models import PendingConfirmation
from agentchat.turn.agent import AgentTurn
from tests.support.contexts import ui_context
from tests.support.frames import Frames
from tests.support.scripted_llm import scripted, tool_calls_message
from tests.support.wording import ptext, text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_router(settings):
    settings.EMBEDDINGS = "off"


def visible(html: str) -> str:
    return markup.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)).strip())


async def refused(
    user, name: str, args: dict, context: dict, question: str = "и что с этим?"
) -> tuple[dict, dict, PendingConfirmation]:
    """Run a turn whose model calls ``name``; return the card frame, the tool result the model read, the row."""
    model = scripted(tool_calls_message([(name, args)]), "ok")
    frames = Frames()
    await AgentTurn(user=user, emit=frames, model=model).run(conversation_id=None, text=question, context=context)
    (card,) = [f for f in frames if f["event"] == "permission_denied"]
    (told,) = [json.loads(m.content) for m in model.seen[-1] if isinstance(m, ToolMessage)]
    row = await database_sync_to_async(PendingConfirmation.objects.get)(call_id=card["call_id"])
    return card, told, row


@pytest.mark.parametrize("language", ["ru", "en"])
async def test_a_tool_another_page_offers_is_refused_for_the_page_not_for_a_role(users, language):
    """An analyst may read git status; on a dashboard page get_git_status is not offered (it is offered only on a
    page without an object). The card says so in the user's language and names no "required" role."""
    question = "какой git-статус у этого дашборда?" if language == "ru" else "what is the git status of this dashboard?"
    context = ui_context("dashboard", 2)
    card, told, row = await refused(users["analyst"], "get_git_status", {"dashboard_id": 2}, context, question)

    html = visible(card["html"])
    page = ptext(language, "on a page", "a dashboard page")
    reason = text(
        language,
        "%(tool_title)s is not used on %(page)s; it is offered only on a page without an object.",
        tool_title=capfirst(text(language, "the dashboard's git status")),
        page=page,
    )
    assert text(language, "Not available on this page") in html
    assert text(language, "Not enough permissions") not in html
    assert text(language, "Required role") not in html
    assert 'data-reason="not_offered"' in card["html"]
    assert reason in html  # «Инструмент «Git-статус дашборда» не используется на странице дашборда: …»
    assert reason in told["message"]  # what the model is told to say
    assert visible(card_decided(row)) == html  # the history shows the same card


async def test_a_role_refusal_still_names_the_roles_that_may(users):
    card, told, _ = await refused(users["analyst"], "create_branch", {"name": "feature/x"}, ui_context("dashboard", 2))

    html = visible(card["html"])
    assert text("ru", "Not enough permissions") in html
    assert text("ru", "Required role") in html
    assert "admin, engineer" in html
    assert sorted(card["required_roles"]) == ["admin", "engineer"]
