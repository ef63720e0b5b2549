"""Refusals in the order that helps (issue 29 item 3), on the local pair: a role that may not use the tool anywhere
is said first, and an environment the question names is taken where the page picked none — offline, and on the
OpenAI-compatible path (a scripted model) where the offered tools differ.
"""

import pytest
from channels.db import database_sync_to_async

from agentchat.turn.agent import AgentTurn
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, Reply
from tests.support.contexts import ui_context
from tests.support.frames import Frames, stored_answer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]

SETTINGS_PAGE = ui_context(None, None, env_id=None, route="/settings/")


async def _ask(user, question: str, context: dict | None) -> tuple[Frames, str]:
    frames = Frames()
    conversation_id = await AgentTurn(user=user, emit=frames).run(conversation_id=None, text=question, context=context)
    return frames, await database_sync_to_async(stored_answer)(conversation_id)


async def test_an_analysts_backup_from_a_dashboard_page_is_refused_for_the_role_at_once(users, energy_dashboard):
    page = ui_context("dashboard", energy_dashboard["id"], name=energy_dashboard["dashboard_title"])

    frames, answer = await _ask(users["analyst"], "сделай бэкап ss-dev", page)

    (denied,) = frames.of("permission_denied")
    assert denied["tool"] == "run_backup"
    assert set(denied["required_roles"]) == {"engineer", "admin"}
    assert "engineer" in answer
    assert "страниц" not in answer  # no page runaround: no page would help
    assert "выберите" not in answer  # and no environment to pick: ss-dev was typed
    assert frames.of("confirm_required") == []


async def test_an_environment_named_in_the_question_is_taken_where_the_page_has_none(users, backup_dir):
    frames, _answer = await _ask(users["engineer"], "сделай бэкап ss-dev", SETTINGS_PAGE)
    frames_git, answer_git = await _ask(users["engineer"], "есть ли незакоммиченные изменения в ss-dev?", SETTINGS_PAGE)

    (card,) = frames.of("confirm_required")
    assert card["tool"] == "run_backup"
    assert card["decision"]["env_id"] == "ss-dev"
    assert [f["tool"] for f in frames_git.of("tool_started")] == ["get_git_status"]
    assert "ss-dev" in answer_git
    await AgentTurn(user=users["engineer"], emit=Frames()).decide(
        confirmation_id=card["confirmation_id"], approve=False
    )


async def test_openai_path_is_offered_the_named_environments_tools(users, openai_provider):  # noqa: F811
    server = openai_provider(Reply(calls=[Call("get_git_status", {"env_id": "ss-dev"}, id="c1")]), Reply(text="Ок."))

    frames, _answer = await _ask(users["engineer"], "есть ли незакоммиченные изменения в ss-dev?", SETTINGS_PAGE)

    assert {"get_git_status", "run_backup", "list_backups"} <= set(server.requests[0].tools)
    assert [f["tool"] for f in frames.of("tool_started")] == ["get_git_status"]
    assert all(f["ok"] for f in frames.of("tool_finished"))
    assert (server.requests[0].context or {}).get("envId") is None  # the page context is sent as it was
