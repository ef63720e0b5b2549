"""A copy before every overwrite outside dev (issue 28 item 3; the brief: "what it overwrites is saved first, and
if it cannot be saved, nothing is written").

``copy_before_change`` runs after a write has planned what it will do in the target and before it changes
anything there: when the target environment's tier is not ``dev``, it exports the target's current versions of
the dashboards and charts the write overwrites (Superset API ``GET /api/v1/dashboard/export/`` and
``/api/v1/chart/export/``), merges them into one importable zip in the backup store (``BACKUP_DIR/<env_id>/``) and
records a ``Backup`` of kind ``pre_change`` that also names what the write creates (what a rollback removes). Any
failure of the export or of the file raises ``CopyFailed`` and the write does not run (fail closed).
"""

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from asgiref.sync import sync_to_async
from django.utils.translation import gettext_lazy

from agentchat.errors import NotApplicable, ToolError
from agentchat.models import Backup
from agentchat.superset.bundle import Bundle, BundleError, bundle_read, zip_merge
from agentchat.superset.client import SupersetClient
from agentchat.superset.migration_plan import MigrationPlan
from agentchat.superset.transfer import TransferError, objects_export
from agentchat.tools.backups import backup_file_write, backup_record
from policies.models import Tier

OVERWRITING = ("overwrite", "conflict")
REMOVABLE = ("dashboard", "chart", "dataset")  # what a rollback may remove that the change created
COPY_FAILED = gettext_lazy(
    "The copy of the current version in %(env)s could not be saved (%(reason)s), so nothing was changed there."
)


class _Reason:
    """Why the copy failed, rendered in the language the error is read in (a ``ToolError``'s own text)."""

    def __init__(self, error: Exception):
        self.error = error

    def __str__(self) -> str:
        return self.error.text("") if isinstance(self.error, ToolError) else str(self.error)


class CopyUnreadable(ToolError):
    """A saved copy's file is gone or is not an export bundle."""

    code = "copy_unreadable"
    message = gettext_lazy("Saved copy #%(id)s cannot be read (%(reason)s).")


class CopyNotFound(NotApplicable):
    """No saved copy has that number."""

    message = gettext_lazy('There is no saved copy #%(id)s; "show the backups of <environment>" lists them.')


def copy_read(backup_id: int) -> tuple[Backup, Bundle]:
    """The ``Backup`` row ``backup_id`` and its file parsed (a full backup or a copy made before a change).

    Raises:
        CopyNotFound: no such copy. CopyUnreadable: its file is gone or is not an export bundle.
    """
    try:
        backup = Backup.objects.get(pk=backup_id)
    except Backup.DoesNotExist as exc:
        raise CopyNotFound(id=backup_id) from exc
    try:
        return backup, bundle_read(Path(backup.path).read_bytes())
    except (OSError, BundleError) as exc:
        raise CopyUnreadable(id=backup_id, reason=type(exc).__name__) from exc


class CopyFailed(TransferError):
    """The copy of the target's current version could not be made, so the write did not run (fail closed)."""


@dataclass
class Change:
    """What a write is about to do in ``target``: overwrite ``dashboard_ids`` / ``chart_ids`` (target ids) and
    create ``created`` (``[{"type", "uuid", "name"}]``); ``tool`` and ``source_env_id`` say which write it is and
    ``dashboards`` the titles it moves; a rollback names the copy it restores in ``rolls_back`` (the copy's
    ``change`` field, read by deploy_history and rollback_deploy)."""

    tool: str
    source_env_id: str | None
    dashboards: list[str]
    dashboard_ids: list[int] = field(default_factory=list)
    chart_ids: list[int] = field(default_factory=list)
    created: list[dict[str, Any]] = field(default_factory=list)
    rolls_back: int | None = None  # a rollback: the id of the copy it restores

    @classmethod
    def of_plan(cls, plan: MigrationPlan, *, tool: str) -> "Change":
        """The change a ``MigrationPlan`` (``superset.migration_plan``) makes in its target."""
        items = plan.items
        return cls(
            tool=tool,
            source_env_id=plan.source_env_id,
            dashboards=[str(d["title"]) for d in plan.dashboards],
            dashboard_ids=[
                i.target_id for i in items if i.type == "dashboard" and i.action in OVERWRITING and i.target_id
            ],
            chart_ids=[i.target_id for i in items if i.type == "chart" and i.action == "overwrite" and i.target_id],
            created=[
                {"type": i.type, "uuid": i.uuid, "name": i.name}
                for i in items
                if i.action == "create" and i.type in REMOVABLE
            ],
        )


def copy_needed(target: SupersetClient) -> bool:
    """True when writes into ``target`` are copied first: its environment's tier is not ``dev`` (a client whose
    tier is not known is copied too: it is never treated as dev)."""
    return target.tier != Tier.DEV


async def copy_before_change(target: SupersetClient, change: Change, *, user_id: int | None) -> dict[str, Any] | None:
    """Save the target's current versions of what ``change`` overwrites, when ``target`` is not dev.

    Args:
        target: the client of the environment about to be written (the user's own identity, DESIGN §15).
        change: what the write overwrites and creates there.
        user_id: the Django user the write runs for (the copy's ``created_by``).

    Returns:
        None in dev; else ``{"backup_id", "file", "dashboards": n, "charts": n}`` of the ``pre_change`` copy
        (a change that only creates gets a copy with no objects: it still records what a rollback removes).

    Raises:
        CopyFailed: Superset's export failed or returned no readable zip, or the file could not be written; the
            caller must not write then.
    """
    if not copy_needed(target):
        return None
    parts = []
    try:
        for kind, ids in (("dashboard", change.dashboard_ids), ("chart", change.chart_ids)):
            if ids:
                parts.append(await objects_export(target, kind, sorted(set(ids))))
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        data, merged = zip_merge(parts, root=f"copy_{target.env_id}_{stamp}")
    except (ToolError, BundleError) as exc:
        raise CopyFailed(COPY_FAILED, env=target.env_id, reason=_Reason(exc)) from exc
    dashboards = [
        {"id": c.get("id"), "title": c.get("dashboard_title"), "slug": c.get("slug"), "uuid": str(c.get("uuid"))}
        for c in merged.of("dashboards").values()
    ]
    charts = [str(c.get("uuid")) for c in merged.of("charts").values()]
    record = {
        "tool": change.tool,
        "source_env_id": change.source_env_id,
        "dashboards": change.dashboards,
        "charts": charts,
        "created": change.created,
        **({"rolls_back": change.rolls_back} if change.rolls_back else {}),
    }
    backup = await sync_to_async(_copy_write)(
        env_id=target.env_id, data=data, dashboards=dashboards, change=record, user_id=user_id
    )
    return {
        "backup_id": backup.pk,
        "file": Path(backup.path).name,
        "dashboards": len(dashboards),
        "charts": len(charts),
    }


def _copy_write(
    *, env_id: str, data: bytes, dashboards: list[dict[str, Any]], change: dict[str, Any], user_id: int | None
) -> Backup:
    try:  # a random suffix in case two copies of one environment are written in the same second
        path = backup_file_write(env_id=env_id, data=data, record_id=secrets.randbelow(10**9))
    except OSError as exc:
        raise CopyFailed(
            COPY_FAILED,
            env=env_id,
            reason=exc.strerror or type(exc).__name__,
        ) from exc
    return backup_record(
        env_id=env_id,
        path=path,
        data=data,
        dashboards=dashboards,
        user_id=user_id,
        kind=Backup.Kind.PRE_CHANGE,
        change=change,
    )
