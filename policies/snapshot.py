"""The policy tables once per policy version (issue 17): a process-local snapshot, read again only after a change.

The number in ``policies_version`` (migration 0011) changes, by database trigger, with every write to a policy
table (tools, permissions, affinities, environments, risk rules, groups and users' group memberships), whoever
writes it. ``policy_snapshot()`` reads that number (one row) and returns the process's snapshot when it was taken
at that number, else reads the tables again. So a turn makes no policy queries while nothing changed, and an admin
edit committed in any process is seen by every process at its next unit of work (DESIGN §4: policy is data).

The version is read before the tables, so a snapshot is never older than its number. Within ``pinned()`` (one
unit of database work) the number is read once. Snapshots are immutable; look-ups return copies of model rows.
"""

import copy
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import Group
from django.db import connection

from policies.models import ContextToolAffinity, Environment, RiskRule, Tool, ToolPermission

MEMO_MAX = 10_000


@dataclass(frozen=True)
class ToolRow:
    """The policy fields of one ``Tool`` row."""

    name: str
    category: str
    env_specific: bool
    enabled: bool
    description_ru: str
    description_en: str


@dataclass(frozen=True)
class PolicySnapshot:
    """The policy tables at one version.

    Attributes:
        version: the ``policies_version`` number the tables were read at (or after).
        tools: every ``Tool`` row, ordered by name.
        roles_of / types_of: tool name → the role (group) names permitted / the object types offering it, sorted.
        environments: the active environments, ordered by ``env_id``.
        risk_rules: ``(category, tier)`` → the ``RiskRule`` row.
        memo: results derived from this snapshot (``policies.services.tool_verdicts``, users' roles), per key.
    """

    version: int
    tools: tuple[ToolRow, ...]
    roles_of: dict[str, tuple[str, ...]]
    types_of: dict[str, tuple[str, ...]]
    environments: tuple[Environment, ...]
    risk_rules: dict[tuple[str, str], RiskRule]
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    def active_environments(self) -> list[Environment]:
        """Copies of the active environments (a caller may change its copy without touching the snapshot)."""
        return [copy.copy(env) for env in self.environments]

    def active_tiers(self) -> tuple[tuple[str, str], ...]:
        """``(env_id, tier)`` of every active environment, ordered by ``env_id`` (no model copies: a turn reads
        these twice, issue 17)."""
        return tuple((env.env_id, env.tier) for env in self.environments)

    def risk_rule(self, category: str, tier: str) -> RiskRule | None:
        """A copy of the rule of ``category`` × ``tier``, or None when there is no such row."""
        rule = self.risk_rules.get((category, tier))
        return copy.copy(rule) if rule is not None else None

    def user_roles(self, user_id: int) -> tuple[str, ...]:
        """The group names of user ``user_id``, sorted (read once per version: memberships bump it)."""
        key = ("roles", user_id)
        if key not in self.memo:
            roles = tuple(sorted(Group.objects.filter(user__id=user_id).values_list("name", flat=True)))
            self.remember(key, roles)
            return roles
        return self.memo[key]

    def remember(self, key: Any, value: Any) -> None:
        """Keep a derived result (at most ``MEMO_MAX`` of them: beyond, the memo starts over)."""
        if len(self.memo) >= MEMO_MAX:
            self.memo.clear()
        self.memo[key] = value


def policy_version() -> int:
    """The current policy version number (one query on the default database)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT n FROM policies_version WHERE id = 1")
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _load(version: int) -> PolicySnapshot:
    roles_of: dict[str, list[str]] = {}
    for tool_name, group_name in ToolPermission.objects.order_by().values_list("tool_id", "group__name"):
        roles_of.setdefault(tool_name, []).append(group_name)
    types_of: dict[str, list[str]] = {}
    for tool_name, kind in ContextToolAffinity.objects.order_by().values_list("tool_id", "object_type"):
        types_of.setdefault(tool_name, []).append(kind)
    fields = ("name", "category", "env_specific", "enabled", "description_ru", "description_en")
    tools = tuple(ToolRow(**row) for row in Tool.objects.order_by("name").values(*fields))
    return PolicySnapshot(
        version=version,
        tools=tools,
        roles_of={k: tuple(sorted(v)) for k, v in roles_of.items()},
        types_of={k: tuple(sorted(v)) for k, v in types_of.items()},
        environments=tuple(Environment.objects.filter(is_active=True).order_by("env_id")),
        risk_rules={(r.category, r.tier): r for r in RiskRule.objects.all()},
    )


class PolicyCache:
    """One process's snapshot (any number of instances may exist: each sees every change at its next read)."""

    def __init__(self) -> None:
        self._snapshot: PolicySnapshot | None = None
        self._local = threading.local()
        self.loads = 0  # how many times the tables were read (for tests and the bench)

    def snapshot(self) -> PolicySnapshot:
        """The snapshot at the current version: the kept one, or the tables read again (and kept)."""
        pinned: list[PolicySnapshot] | None = getattr(self._local, "pinned", None)
        if pinned:
            return pinned[0]
        version = policy_version()
        current = self._snapshot
        if current is None or current.version != version:
            current = _load(version)
            self.loads += 1
            self._snapshot = current
        if pinned is not None:
            pinned.append(current)
        return current

    @contextmanager
    def pinned(self) -> Iterator[None]:
        """Read the version at most once in this thread until the block ends (one unit of database work)."""
        if getattr(self._local, "pinned", None) is not None:
            yield  # nested: the outer block holds the pin
            return
        self._local.pinned = []
        try:
            yield
        finally:
            self._local.pinned = None


policy_cache = PolicyCache()


def policy_snapshot() -> PolicySnapshot:
    """The process's snapshot at the current policy version (``PolicyCache.snapshot``)."""
    return policy_cache.snapshot()


def verdict_key(roles: Collection[str], object_type: str | None, env_present: bool) -> tuple:
    """The memo key of ``tool_verdicts`` for one situation."""
    return ("verdicts", frozenset(roles), object_type, env_present)
