"""A change the user's role may not make is named in the system prompt (issue 16 Must-show "denied analyst
write": the local 1.5B model, offered only reads, answered «создай ветку feature/summer» with a search)."""

import itertools

import pytest
from langchain_core.messages import AIMessage

from agentchat.turn.agent import AgentTurn
from tests.support.contexts import DASHBOARD_1
from tests.support.scripted_llm import ScriptedChatModel

pytestmark = pytest.mark.django_db(transaction=True)


async def _system_prompt(user, text: str) -> str:
    model = ScriptedChatModel(messages=itertools.repeat(AIMessage(content="ok")))

    async def emit(event):
        pass

    await AgentTurn(user=user, emit=emit, model=model).run(conversation_id=None, text=text, context=DASHBOARD_1)
    return str(model.seen[0][0].content)


async def test_an_analyst_asking_for_a_branch_gets_the_refusal_named_and_no_write_tool(users):
    prompt = await _system_prompt(users["analyst"], "создай ветку feature/summer")

    assert "The user asks to create branch, which their role may not do" in prompt
    assert "engineer" in prompt.split("create branch", 1)[1].split("\n")[0]
    assert "create_branch" not in prompt  # a small model writes a call of an identifier it reads


@pytest.mark.parametrize(
    ("user", "text"),
    [
        ("engineer", "создай ветку feature/summer"),  # the role may: the tool is offered, nothing to refuse
        ("analyst", "расскажи про этот дашборд"),  # a read
        ("analyst", "можно ли создать ветку?"),  # a question about a change is not a request for one
    ],
)
async def test_no_refusal_line_where_nothing_is_refused(users, user, text):
    assert "which their role may not do" not in await _system_prompt(users[user], text)


async def test_a_dry_run_the_role_may_preview_gets_no_refusal_line(users):
    model = ScriptedChatModel(messages=itertools.repeat(AIMessage(content="ok")))

    async def emit(event):
        pass

    page = {**DASHBOARD_1, "objectType": "migration", "objectId": "1", "route": "/migrations/1"}
    await AgentTurn(user=users["analyst"], emit=emit, model=model).run(
        conversation_id=None, text="сделай dry-run этой миграции", context=page
    )
    assert "which their role may not do" not in str(model.seen[0][0].content)


@pytest.mark.parametrize("text", ["👍", "?", "...", "—"])
async def test_a_message_without_a_word_is_answered(users, text):
    """``read_question`` of a text without a word token raised (issue 16 review): the turn failed as ``internal``."""
    assert "which their role may not do" not in await _system_prompt(users["analyst"], text)
