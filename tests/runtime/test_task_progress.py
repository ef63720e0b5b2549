"""How the /agent page learns about background tasks: the ``tool_finished`` frame carries the task id, and
``GET /api/agent/tasks/<id>/`` reports the user's own task (DESIGN §6, §8)."""

import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

from agentchat.models import TaskRecord
from agentchat.runtime.background import task_progress
from agentchat.turn.agent import AgentTurn
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse fixture
from tests.support.wording import ptext

pytestmark = pytest.mark.django_db(transaction=True)


class ScriptedModel(GenericFakeChatModel):
    """Answers each step with the next scripted message, streaming tool calls as chunks."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedModel":
        return self

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:
        message = next(self.messages)
        if message.tool_calls:
            chunks = [
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))
        else:
            yield ChatGenerationChunk(message=AIMessageChunk(content=str(message.content)))


async def test_tool_finished_frame_carries_the_task_id_of_a_background_tool(users, superset_stack):
    # given a model that asks for a backup of ss-dev, then answers
    script = iter(
        [
            AIMessage(content="", tool_calls=[{"name": "run_backup", "args": {"env_id": "ss-dev"}, "id": "call-1"}]),
            AIMessage(content="Готово."),
        ]
    )
    frames: list[dict] = []

    async def emit(event) -> None:
        frames.append(event.wire())

    context = {
        "contextVersion": 1,
        "objectType": None,
        "objectId": None,
        "objectName": None,
        "envId": "ss-dev",
        "route": None,
    }

    # when the engineer's turn runs and the engineer approves the backup's card (a write, DESIGN §9)
    turn = AgentTurn(user=users["engineer"], emit=emit, model=ScriptedModel(messages=script))
    await turn.run(conversation_id=None, text="сделай бэкап", context=context)
    card = next(f for f in frames if f["event"] == "confirm_required")
    await turn.decide(confirmation_id=card["confirmation_id"], approve=True)

    # then tool_finished names the queued task (no worker runs here), which the engineer owns
    finished = next(f for f in frames if f["event"] == "tool_finished")
    assert finished["ok"] is True
    record = await TaskRecord.objects.aget(pk=finished["task_id"])
    assert (record.kind, record.env_id, record.user_id) == ("backup", "ss-dev", users["engineer"].pk)
    # and tools without a task id keep the frame as it was
    assert all("task_id" not in f for f in frames if f["event"] == "tool_finished" and f["tool"] != "run_backup")


def test_task_api_shows_own_task_progress_and_hides_others(users):
    # given a running job of the engineer at 40 %
    record = TaskRecord.objects.create(kind="backup", user=users["engineer"], env_id="ss-dev")
    task_progress(record_id=record.pk, progress=40, message="8/20")
    url = f"/api/agent/tasks/{record.pk}/"
    owner, other, admin, anonymous = Client(), Client(), Client(), Client()
    owner.force_login(users["engineer"])
    other.force_login(users["analyst"])
    admin.force_login(users["admin"])

    # when each asks, then the owner and an admin see state and progress; others get 404 / 403
    body = owner.get(url).json()
    assert (body["task_id"], body["state"], body["progress"], body["message"]) == (record.pk, "running", 40, "8/20")
    assert admin.get(url).status_code == 200
    assert other.get(url).status_code == 404
    assert owner.get(f"/api/agent/tasks/{record.pk + 1000}/").status_code == 404
    assert anonymous.get(url).status_code == 403


def test_task_api_names_the_kind_in_the_page_language(users):
    """The progress box titles a task «Задача #N (резервная копия)»: ``kind_label`` in the request's language."""
    record = TaskRecord.objects.create(kind="backup", user=users["engineer"], env_id="ss-dev")
    owner = Client()
    owner.force_login(users["engineer"])
    for language, headers in (("ru", {}), ("en", {"accept_language": "en"})):
        body = owner.get(f"/api/agent/tasks/{record.pk}/", headers=headers).json()
        assert (body["kind"], body["kind_label"]) == ("backup", ptext(language, "task kind", "backup"))
    assert ptext("ru", "task kind", "backup") != "backup"
