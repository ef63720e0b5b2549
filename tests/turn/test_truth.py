"""Issue 32 item 4: when a call of the turn failed, the answer says it failed and why.

Behind the local 1.5B model a failed ``list_backups`` was answered «у меня нет информации о бэкапах». The unit part
checks ``turn.truth``; the turn runs a scripted OpenAI-compatible model on the local Superset pair.
"""

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agentchat.models import Message
from agentchat.turn.agent import AgentTurn
from agentchat.turn.truth import Failure, failures_told, turn_failures
from tests.llm.test_provider import openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, Recorded, Reply
from tests.support.contexts import ui_context
from tests.support.frames import Frames


def _called(*calls: tuple[str, str]) -> AIMessage:
    return AIMessage("", tool_calls=[{"id": call_id, "name": name, "args": {}} for call_id, name in calls])


def _error(call_id: str, code: str, message: str) -> ToolMessage:
    return ToolMessage(json.dumps({"error": code, "message": message}), tool_call_id=call_id, status="error")


def test_the_turn_s_failures_are_those_no_later_call_made_good():
    messages = [
        HumanMessage("old question"),
        _called(("a", "list_backups")),
        _error("a", "upstream_error", "earlier turn"),
        HumanMessage("какие бэкапы есть для прода?"),
        _called(("b", "list_backups"), ("c", "get_git_status"), ("d", "deploy_dashboard")),
        _error("b", "upstream_error", "Superset answered 503"),
        _error("c", "upstream_error", "Superset answered 500"),
        _error("d", "denied", "The user declined the call"),
        _called(("e", "get_git_status")),
        ToolMessage(json.dumps({"branch": "main"}), tool_call_id="e"),
    ]
    assert turn_failures(messages) == [Failure(tool="list_backups", reason="Superset answered 503")]
    refused = [HumanMessage("?"), _called(("f", "get_git_status")), _error("f", "invented_argument", "id=123")]
    assert turn_failures(refused) == []  # the model repairs it or asks: no validator text for the user


def test_a_line_is_added_only_when_the_answer_does_not_carry_the_reason():
    failure = Failure(tool="list_backups", reason="Superset answered 503.")
    told = failures_told("У меня нет информации о бэкапах.", [failure], "ru")
    assert told.startswith("У меня нет информации о бэкапах.\n\n")
    assert told.endswith("Superset answered 503.")
    assert "Список резервных копий — не выполнено: Superset answered 503." in told
    assert failures_told("Не получилось: Superset answered 503.", [failure], "ru") == (
        "Не получилось: Superset answered 503."
    )
    assert failures_told("Готово.", [], "ru") == "Готово."


@pytest.mark.django_db(transaction=True)
async def test_a_failed_call_is_told_even_when_the_model_says_it_has_no_information(
    users,
    openai_provider,  # noqa: F811
):
    """A dashboard the user named that Superset does not have: 404, and the model's answer hides it."""

    def model(request: Recorded) -> Reply:
        if request.last.get("role") == "tool":
            return Reply(text="У меня нет информации об этом дашборде.")
        return Reply(calls=[Call("get_health_summary", {"env_id": "ss-dev", "dashboard_id": 987654}, id="c1")])

    openai_provider(default=model)
    frames = Frames()

    await AgentTurn(user=users["admin"], emit=frames).run(
        conversation_id=None, text="расскажи про дашборд 987654", context=ui_context(None, None)
    )

    assert [f["ok"] for f in frames.of("tool_finished")] == [False]
    answer = frames.of("message")[-1]["text"]
    assert answer.startswith("У меня нет информации об этом дашборде.\n\n")
    assert "— не выполнено: " in answer
    stored = await Message.objects.filter(role=Message.Role.ASSISTANT).exclude(content="").alast()
    assert stored is not None
    assert stored.content == answer
