"""Tool execution (DESIGN §10): one path through which every tool call runs.

``tool_execute`` validates the arguments against the tool's schema, runs the tool under a whole-call deadline
(``Tool.timeout_s`` or ``TOOL_TIMEOUT_S``), lets the Superset client retry transient failures of read tools
once, and turns every failure into a ``ToolOutcome`` with an error code instead of raising.
"""

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from pydantic import ValidationError

from policies import services as policy

from .errors import ApplicationError, InvalidArguments, StatusUnknown, ToolError, ToolTimeout, UpstreamUnavailable
from .tools.registry import ToolSpec
from .tools.superset_client import CallState, SupersetClient


@dataclass
class ToolContext:
    """What a running tool may use: who asks, from where, and clients for Superset environments.

    Attributes:
        user: the Django user the call runs for.
        conversation_id: the chat (None outside a chat, e.g. the page views).
        ui_context: the validated UIContext dict of the turn, or None.
        language: ``ru`` or ``en``, the language of the user's last message.
        call: upstream bookkeeping of this call (retry policy, requests, mutation flag).
        timeout_s: the call's deadline in seconds (per-operation httpx timeout too).
    """

    user: Any
    conversation_id: int | None
    ui_context: dict | None
    language: str
    call: CallState
    timeout_s: float
    _clients: list[SupersetClient] = field(default_factory=list)

    async def superset(self, env_id: str) -> SupersetClient:
        """Return a client for the active environment ``env_id``.

        Raises:
            InvalidArguments: no active environment has that id (never treated as a URL).
        """
        environment = await sync_to_async(policy.environment_get)(env_id=env_id)
        if environment is None:
            raise InvalidArguments(f"unknown environment {env_id!r}")
        credentials = await sync_to_async(policy.environment_credentials)(environment=environment)
        client = SupersetClient(
            env_id=environment.env_id,
            base_url=environment.superset_url,
            username=credentials.username,
            password=credentials.password,
            call=self.call,
            timeout_s=self.timeout_s,
        )
        self._clients.append(client)
        return client

    async def aclose(self) -> None:
        """Close every client this call opened."""
        for client in self._clients:
            await client.aclose()
        self._clients.clear()


@dataclass
class ToolOutcome:
    """Result of one tool call.

    Attributes:
        ok: the tool returned a result.
        result: the tool's full JSON-able result (None on failure).
        error_code: a DESIGN §6 error code on failure (``timeout``, ``status_unknown``, …).
        error_message: user-facing text of the failure in the call's language.
        duration_ms: wall time of the call in milliseconds.
        requests: upstream HTTP requests made; retries: of which retries.
        retry_events: ``{"path", "error"}`` per retry, for the audit.
    """

    ok: bool
    result: Any = None
    error_code: str | None = None
    error_message: str | None = None
    duration_ms: int = 0
    requests: int = 0
    retries: int = 0
    retry_events: list[dict] = field(default_factory=list)


def tool_timeout_s(spec: ToolSpec) -> float:
    """Return the deadline of ``spec`` in seconds: the admin's ``Tool.timeout_s`` or ``TOOL_TIMEOUT_S``."""
    row = policy.tool_get(name=spec.name)
    if row is not None and row.timeout_s:
        return float(row.timeout_s)
    return float(settings.TOOL_TIMEOUT_S)


async def tool_execute(
    *,
    spec: ToolSpec,
    args: dict[str, Any],
    user: Any,
    conversation_id: int | None,
    ui_context: dict | None,
    language: str,
) -> ToolOutcome:
    """Run ``spec`` with ``args`` under DESIGN §10 and return its outcome (never raises for tool failures).

    Args:
        spec: the registered tool.
        args: raw arguments (validated here against ``spec.args_schema``).
        user / conversation_id / ui_context / language: the turn the call belongs to.

    Returns:
        ``ToolOutcome``; a timeout of a read is ``timeout``, of a write or dangerous tool ``status_unknown``.
    """
    started = time.monotonic()
    timeout_s = await sync_to_async(tool_timeout_s)(spec)
    call = CallState(retry_transient=spec.category == "read")
    ctx = ToolContext(
        user=user,
        conversation_id=conversation_id,
        ui_context=ui_context,
        language=language,
        call=call,
        timeout_s=timeout_s,
    )
    outcome = ToolOutcome(ok=False)
    try:
        try:
            parsed = spec.args_schema.model_validate(args)
        except ValidationError as exc:
            raise InvalidArguments(_validation_summary(exc)) from None
        async with asyncio.timeout(timeout_s):
            outcome.result = await spec.func(ctx, parsed)
        outcome.ok = True
    except TimeoutError:
        error: ApplicationError = (
            ToolTimeout(tool=spec.name, timeout_s=timeout_s)
            if spec.category == "read"
            else StatusUnknown(tool=spec.name)
        )
        outcome.error_code, outcome.error_message = error.code, error.text(language)
    except ToolError as exc:
        exc.params.setdefault("tool", spec.name)
        if isinstance(exc, UpstreamUnavailable) and spec.category != "read" and call.mutation_sent:
            # The write may have happened before a later request failed: its status is unknown.
            exc = StatusUnknown(exc.detail, tool=spec.name)
        outcome.error_code, outcome.error_message = exc.code, exc.text(language)
    finally:
        await ctx.aclose()
        outcome.duration_ms = int((time.monotonic() - started) * 1000)
        outcome.requests, outcome.retries, outcome.retry_events = call.requests, call.retries, call.events
    return outcome


def _validation_summary(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(p) for p in err["loc"]) or "args"
        parts.append(f"{loc}: {err['msg']}")
    return "; ".join(parts)
