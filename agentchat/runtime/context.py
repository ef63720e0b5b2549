"""What a running tool may use (DESIGN §10, §15): ``ToolContext``, a leaf type of the runtime.

Tools annotate ``ctx: ToolContext``; the executor (chat turns, pages) and ``runtime.jobs`` (background jobs) build
it. It opens Superset clients for the call and closes them when the call ends.
"""

from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from agentchat.errors import InvalidArguments
from agentchat.runtime.spec import ToolSpec
from agentchat.superset.call import CallState
from agentchat.superset.client import SupersetClient
from policies import services as policy
from policies.models import Environment
from policies.services import SupersetCredentials


@dataclass
class ToolContext:
    """What a running tool may use: who asks, from where, and clients for Superset environments.

    Attributes:
        user: the Django user the call runs for (None for a background job whose user was deleted).
        conversation_id: the chat (None outside a chat, e.g. the page views).
        ui_context: the validated UIContext dict of the turn, or None.
        language: ``ru`` or ``en``, the language of the user's last message.
        call: upstream bookkeeping of this call (retry policy, requests, mutation flag).
        timeout_s: the call's deadline in seconds (per-operation httpx timeout too).
        toolset: the tools the policies allow this user on this page, before routing (what ``show_capabilities``
            lists); given by the caller (the chat turn), empty outside a chat.
    """

    user: User | None
    conversation_id: int | None
    ui_context: dict[str, Any] | None
    language: str
    call: CallState
    timeout_s: float
    toolset: tuple[ToolSpec, ...] = ()
    _clients: list[SupersetClient] = field(default_factory=list)

    async def superset(self, env_id: str) -> SupersetClient:
        """Return a client for the active environment ``env_id``.

        Raises:
            InvalidArguments: no active environment has that id (never treated as a URL).
        """
        found = await sync_to_async(_environment_login)(env_id)
        if found is None:
            raise InvalidArguments(f"unknown environment {env_id!r}")
        environment, credentials = found
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


def _environment_login(env_id: str) -> tuple[Environment, SupersetCredentials] | None:
    """Return ``(Environment, SupersetCredentials)`` of the active environment ``env_id``, or None."""
    environment = policy.environment_get(env_id=env_id)
    if environment is None:
        return None
    return environment, policy.environment_credentials(environment=environment)
