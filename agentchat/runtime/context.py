"""What a running tool may use (DESIGN §10, §15): ``ToolContext``, a leaf type of the runtime.

Tools annotate ``ctx: ToolContext``; the executor (chat turns, pages) and ``runtime.jobs`` (background jobs) build
it. It opens Superset clients for the call and closes them when the call ends.
"""

from dataclasses import dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from agentchat.errors import InvalidArguments
from agentchat.identity.services import acting_auth, acting_resolve
from agentchat.runtime.spec import ToolSpec
from agentchat.superset.call import CallState
from agentchat.superset.client import SupersetClient
from policies import services as policy


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
        acting: ``{env_id: {"kind", "superset_username"}}`` of every environment the call opened a client for
            (whom Superset saw; the audit row records it).
    """

    user: User | None
    conversation_id: int | None
    ui_context: dict[str, Any] | None
    language: str
    call: CallState
    timeout_s: float
    toolset: tuple[ToolSpec, ...] = ()
    acting: dict[str, dict[str, str]] = field(default_factory=dict)
    _clients: list[SupersetClient] = field(default_factory=list)

    async def superset(self, env_id: str) -> SupersetClient:
        """Return a client for the active environment ``env_id`` acting as this call's user there (DESIGN §15):
        their own identity, or the shared account where an admin set the environment to service mode.

        Raises:
            InvalidArguments: no active environment has that id (never treated as a URL).
            IdentityMissing: the user has no working identity there (the tool is not run further, no request).
        """
        environment = await sync_to_async(policy.environment_get)(env_id=env_id)
        if environment is None:
            raise InvalidArguments(f"unknown environment {env_id!r}")
        acting = await sync_to_async(acting_resolve)(user=self.user, environment=environment)
        self.acting[environment.env_id] = acting.audit()
        client = SupersetClient(
            env_id=environment.env_id,
            base_url=environment.superset_url,
            auth=acting_auth(acting),
            call=self.call,
            timeout_s=self.timeout_s,
            tier=environment.tier,
        )
        self._clients.append(client)
        return client

    async def aclose(self) -> None:
        """Close every client this call opened."""
        for client in self._clients:
            await client.aclose()
        self._clients.clear()
