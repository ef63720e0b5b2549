"""What background jobs of tools (backups, migrations) run with: a ``ToolContext`` outside a chat turn.

The worker has no request: the job's ``TaskRecord`` says who started it and in which language. A job's requests
that change nothing (GETs) may be retried once on 5xx/connection errors; its POST/PUT/DELETE count as changes and
are never retried (``CallState(read_only=False)``, DESIGN §10); httpx's per-operation
timeout is ``JOB_HTTP_TIMEOUT_S`` (exports of many dashboards take longer than a chat tool's 30 s).
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from django.contrib.auth import get_user_model

from agentchat.models import TaskRecord
from agentchat.runtime.background import job_language
from agentchat.runtime.context import ToolContext
from agentchat.superset.call import CallState

JOB_HTTP_TIMEOUT_S = 120.0


@asynccontextmanager
async def job_context(record: TaskRecord) -> AsyncIterator[ToolContext]:
    """Yield a ``ToolContext`` for ``record``'s job (its user, its language: ``background.job_language``); closes
    clients."""
    user = await get_user_model().objects.filter(pk=record.user_id).afirst() if record.user_id else None
    ctx = ToolContext(
        user=user,
        conversation_id=record.conversation_id,
        ui_context=None,
        language=job_language(record),
        call=CallState(retry_transient=True, read_only=False),
        timeout_s=JOB_HTTP_TIMEOUT_S,
    )
    try:
        yield ctx
    finally:
        await ctx.aclose()
