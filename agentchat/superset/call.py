"""What one tool call has done upstream (DESIGN §10): a leaf type shared by the Superset client, the executor and
every client a call opens. It lives beside the client that fills it; the runtime above reads it.
"""

import uuid
from dataclasses import dataclass, field
from typing import Any

MUTATING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


@dataclass
class CallState:
    """What one tool call did upstream, shared by every client the call uses.

    Attributes:
        retry_transient: one transient failure of a request that changes nothing may be retried after 1 s
            (DESIGN §10): True for read tools and for background jobs, False for write and dangerous tools.
        read_only: no request of the call counts as a change (a read tool's call). None means the same as
            ``retry_transient``. A background job that writes (a migration's import, documentation's PUTs) has
            ``retry_transient=True, read_only=False``: its GETs may be retried once, its POST/PUT/DELETE never,
            and one that fails after it may have reached Superset is ``status_unknown``.
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
    read_only: bool | None = None
    retry_budget: int = 1
    trace_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    requests: int = 0
    logins: int = 0
    retries: int = 0
    mutation_sent: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)

    @property
    def reads_only(self) -> bool:
        """True when no request of the call counts as a change (``read_only``, defaulting to ``retry_transient``)."""
        return self.retry_transient if self.read_only is None else self.read_only

    def mutates(self, method: str, *, read: bool = False) -> bool:
        """Whether a request of ``method`` in this call may change Superset: POST/PUT/PATCH/DELETE of a call that
        is not read-only, unless the caller marks the request itself as a read (``read``: SQL Lab's execute of a
        proven SELECT, format_sql)."""
        return method in MUTATING_METHODS and not (read or self.reads_only)

    def take_retry(self) -> bool:
        """Spend the call's retry if it is a read call and one is left; return whether it was granted."""
        if not self.retry_transient or self.retry_budget <= 0:
            return False
        self.retry_budget -= 1
        return True
