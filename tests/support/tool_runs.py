"""Run tools the way the agent does (the real executor, DESIGN §10) and read what the agent would answer."""

import time

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async

from agentchat.llm.offline.answers import answer_from_result
from agentchat.runtime.background import task_status
from agentchat.runtime.context import ToolContext
from agentchat.runtime.executor import ToolOutcome, tool_execute
from agentchat.runtime.registry import tool_spec
from agentchat.runtime.summarise import summarise
from agentchat.superset.call import CallState
from policies.models import Tool


async def run_tool(tool: str, user, *, language: str = "ru", ui_context: dict | None = None, **args) -> ToolOutcome:
    """Run ``tool`` with ``args`` exactly as the agent does (validation, deadline, retry policy)."""
    return await tool_execute(
        spec=tool_spec(tool), args=args, user=user, conversation_id=None, ui_context=ui_context, language=language
    )


def call_tool(name: str, args: dict, user, language: str = "ru") -> ToolOutcome:
    """Run a tool through the executor (DESIGN §10) as ``user`` from sync code and return its ``ToolOutcome``."""
    return async_to_sync(tool_execute)(
        spec=tool_spec(name), args=args, user=user, conversation_id=None, ui_context=None, language=language
    )


def tool_impact(name: str, args: dict, user, language: str = "ru") -> dict:
    """Run a tool's impact look-up as the confirmation card would (parsed args, a fresh context)."""
    spec = tool_spec(name)

    async def run():
        ctx = ToolContext(
            user=user,
            conversation_id=None,
            ui_context=None,
            language=language,
            call=CallState(retry_transient=True),
            timeout_s=30,
        )
        try:
            return await spec.impact(ctx, spec.args_schema.model_validate(args))
        finally:
            await ctx.aclose()

    return async_to_sync(run)()


def answer(tool: str, outcome: ToolOutcome, language: str) -> str:
    """The offline planner's answer to ``outcome`` as the agent would send it (summarised to 4000 chars first)."""
    sent, _ = summarise(outcome.result, 4000)
    return answer_from_result(tool, sent, language)


def wait_task(record_id: int, deadline_s: float = 60) -> dict:
    """Poll a background job until it has finished; fail after ``deadline_s`` seconds."""
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        status = task_status(record_id=record_id)
        if status["state"] in ("succeeded", "failed"):
            return status
        time.sleep(0.2)
    raise AssertionError(f"job {record_id} not finished: {task_status(record_id=record_id)}")


def set_tool_timeout(name: str, seconds: float | None) -> None:
    """Set the admin's ``Tool.timeout_s`` of ``name`` (the whole-call deadline, DESIGN §10)."""
    assert Tool.objects.filter(name=name).update(timeout_s=seconds) == 1


aset_tool_timeout = database_sync_to_async(set_tool_timeout)
