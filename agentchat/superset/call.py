"""What one tool call has done upstream (DESIGN §10): a leaf type shared by the Superset client, the executor and
every client a call opens. It lives beside the client that fills it; the runtime above reads it.
"""

import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass
class CallState:
    """What one tool call did upstream, shared by every client the call uses.

    Attributes:
        retry_transient: the call belongs to a read tool: one transient failure may be retried after 1 s and
            no request of the call counts as a change (DESIGN §10). False for write and dangerous tools.
        retry_budget: retries the call may still make (1 for a read call; 0 disables the retry).
        trace_id: sent as ``X-Agentchat-Call`` on every request of the call (logs, fault-proxy grouping).
        requests: upstream requests sent (logins included).
        logins: of which logins.
        retries: retries made.
        mutation_sent: a write call's POST/PUT/PATCH/DELETE (other than login) may have reached Superset; a
            failure after that means the operation's status is unknown.
        events: one ``{"path", "error", "attempt", "delay_s"}`` per retry, for the audit log.
    """

    retry_transient: bool
    retry_budget: int = 1
    trace_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    requests: int = 0
    logins: int = 0
    retries: int = 0
    mutation_sent: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)

    def take_retry(self) -> bool:
        """Spend the call's retry if it is a read call and one is left; return whether it was granted."""
        if not self.retry_transient or self.retry_budget <= 0:
            return False
        self.retry_budget -= 1
        return True
