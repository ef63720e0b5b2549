"""Saved migration plans (``Migration`` rows, issue 15): reads and the writes that move their status.

The tools (preview_migration, execute_migration and its job) and the pages share these, so a plan's status moves
in one place: ``draft`` → ``previewed`` (a preview stored) → ``running`` (one run at a time, taken by one
conditional UPDATE) → ``done`` | ``failed`` (when its job ends). DESIGN §8.
"""

from collections.abc import Collection
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from agentchat.errors import NotApplicable, ToolError
from agentchat.models import Migration, TaskRecord
from agentchat.runtime.binding import UNDO_TOOLS

Status = Migration.Status


class MigrationNotFound(ToolError):
    """No saved migration with that id."""

    code = "invalid_args"
    message = gettext_lazy("Migration #%(id)s does not exist.")


class MigrationAlreadyRunning(ToolError):
    """The plan has a run in progress: a second start is refused and told where the running one is."""

    code = "invalid_args"
    message = gettext_lazy(
        "Migration #%(id)s “%(name)s” is already running (task #%(task)s): follow it on %(url)s; it cannot be "
        "started twice."
    )


def migration_url(migration_id: int) -> str:
    """The page of a migration: ``/migrations/<id>/``."""
    return f"/migrations/{migration_id}/"


def migration_get(*, migration_id: int) -> Migration:
    """Return the migration ``migration_id``.

    Raises:
        MigrationNotFound: no such row.
    """
    found = Migration.objects.filter(pk=migration_id).first()
    if found is None:
        raise MigrationNotFound(id=migration_id)
    return found


class MigrationNameNotFound(NotApplicable):
    """No saved migration has the name asked for (``migration_named``)."""

    message = gettext_lazy("There is no saved migration “%(name)s”. Saved migrations: %(names)s.")


def migration_named(*, name: str) -> Migration:
    """Return the saved migration called ``name``: the one whose name is ``name`` (case-insensitive), else the only
    one whose name holds it («energy report» finds «energy report to prod»).

    Raises:
        MigrationNameNotFound: none, or several, hold it (the message lists the saved ones, newest first).
    """
    name = name.strip()
    exact = list(Migration.objects.filter(name__iexact=name)[:2])
    found = exact if exact else list(Migration.objects.filter(name__icontains=name)[:2])
    if len(found) == 1:
        return found[0]
    names = ", ".join(f"“{m.name}”" for m in Migration.objects.order_by("-created_at")[:10]) or "—"
    raise MigrationNameNotFound(name=name, names=names)


def migrations_list(*, env_id: str | None = None, status: str | None = None) -> list[Migration]:
    """Migrations newest first; ``env_id`` keeps those whose source or target it is, ``status`` one status."""
    rows = Migration.objects.select_related("created_by")
    if env_id:
        rows = rows.filter(Q(source_env_id=env_id) | Q(target_env_id=env_id))
    if status:
        rows = rows.filter(status=status)
    return list(rows)


def migration_create(
    *,
    user: User | None,
    name: str,
    source_env_id: str,
    target_env_id: str,
    dashboards: list[dict[str, Any]],
    database_mapping: dict[str, str] | None = None,
) -> Migration:
    """Save a new plan (status ``draft``).

    Args:
        dashboards: ``[{"id", "uuid", "title"}]`` of the source environment, as Superset reports them.
        database_mapping: source database name → target database name; None or ``{}``: by name.
    """
    return Migration.objects.create(
        name=name,
        source_env_id=source_env_id,
        target_env_id=target_env_id,
        dashboards=dashboards,
        database_mapping=database_mapping or {},
        created_by=user,
    )


def migration_previewed(*, migration_id: int, impact: dict[str, Any]) -> None:
    """Store ``impact`` (``plan_impact``) as the plan's last preview; a draft/done/failed plan becomes
    ``previewed``, a running one keeps its status."""
    rows = Migration.objects.filter(pk=migration_id)
    rows.update(preview=impact, previewed_at=timezone.now())
    rows.exclude(status=Status.RUNNING).update(status=Status.PREVIEWED)


def running_task(migration: Migration) -> TaskRecord | None:
    """The run of ``migration`` that is queued or running, if any."""
    active = (TaskRecord.State.QUEUED, TaskRecord.State.RUNNING)
    return migration.runs.filter(state__in=active).order_by("-id").first()


def migration_take(*, migration_id: int) -> Migration:
    """Mark the plan ``running`` before its job is queued: one conditional UPDATE, so two starts (two tabs, two
    processes) cannot both win.

    Raises:
        MigrationNotFound: no such plan.
        MigrationAlreadyRunning: it is running already (the message names its task and page).
    """
    migration = migration_get(migration_id=migration_id)
    taken = Migration.objects.filter(pk=migration_id).exclude(status=Status.RUNNING).update(status=Status.RUNNING)
    if not taken:
        raise _already_running(migration)
    return migration


def migration_check_free(*, migration_id: int) -> None:
    """Refuse a start before any card is shown: the plan must not be running.

    Raises:
        MigrationNotFound / MigrationAlreadyRunning (the message names the running task and the plan's page).
    """
    migration = migration_get(migration_id=migration_id)
    if migration.status == Status.RUNNING:
        raise _already_running(migration)


def _already_running(migration: Migration) -> MigrationAlreadyRunning:
    task = running_task(migration)
    return MigrationAlreadyRunning(
        id=migration.pk, name=migration.name, task=task.pk if task else "?", url=migration_url(migration.pk)
    )


def migration_run_added(*, migration_id: int, record: TaskRecord) -> None:
    """Attach the started job ``record`` to the plan's runs."""
    Migration.objects.get(pk=migration_id).runs.add(record)


def migration_release(*, migration_id: int, status: str) -> None:
    """End a run: the plan becomes ``status`` (``done``, ``failed``; ``previewed`` when its start failed)."""
    Migration.objects.filter(pk=migration_id, status=Status.RUNNING).update(status=status)


@transaction.atomic
def migration_run_finished(*, record_id: int) -> None:
    """After a migration job ended: its plan (``params["migration_id"]``) becomes ``done`` when the job
    succeeded, else ``failed``. A job without a plan changes nothing."""
    record = TaskRecord.objects.get(pk=record_id)
    migration_id = record.params.get("migration_id")
    if migration_id:
        ok = record.state == TaskRecord.State.SUCCEEDED
        migration_release(migration_id=int(migration_id), status=Status.DONE if ok else Status.FAILED)


def plan_arguments(
    *, fields: Collection[str], args: dict[str, Any], context: dict[str, Any] | None, tool: str = ""
) -> dict[str, Any]:
    """Complete a migration tool call from the saved plan it is about, before it is validated, decided and stored.

    On a migration page (UIContext ``objectType`` ``migration``, ``objectId`` its id) a call that names no plan is
    about that page's plan: ``migration_id`` = objectId — also when it names dashboards, which must then be the
    plan's (``tools.migration_impact.migration_target``; issue 32 item 2: «запусти эту миграцию для дашбордов 1 и 2»
    on the page of a plan of dashboard 1 built a red prod card for both). A call on a saved plan gets the
    plan's ``source_env_id``/``target_env_id`` where it names none, so the stored (hashed) arguments, the
    guardrail's tier (prod → red card, typed confirmation) and the card all say where it goes.

    A rollback asked on a plan's page with no environment undoes it where the plan went: ``env_id`` = the plan's
    ``target_env_id`` (a QA check: "roll back the last migration" was asked «в каком окружении?»).

    Args:
        fields: the tool's argument names (only a tool with ``migration_id`` is completed); args: the call's
            arguments (not changed); context: the turn's validated UIContext or None; tool: the tool's name.

    Returns:
        The arguments to use (a new dict when completed).
    """
    page = context or {}
    object_id = str(page.get("objectId") or "")
    page_plan = int(object_id) if page.get("objectType") == "migration" and object_id.isdigit() else None
    if tool in UNDO_TOOLS and not args.get("env_id") and page_plan is not None:
        plan = Migration.objects.filter(pk=page_plan).first()
        return {**args, "env_id": plan.target_env_id} if plan is not None else args
    if "migration_id" not in fields:
        return args
    if not args.get("migration_id") and page_plan is not None:
        args = {**args, "migration_id": page_plan}
    migration_id = args.get("migration_id")
    migration = Migration.objects.filter(pk=migration_id).first() if isinstance(migration_id, int) else None
    if migration is not None:
        planned = {"source_env_id": migration.source_env_id, "target_env_id": migration.target_env_id}
        args = {**args, **{k: v for k, v in planned.items() if k in fields and not args.get(k)}}
    return args


def migration_mapping_set(*, migration_id: int, mapping: dict[str, str]) -> None:
    """Replace the plan's database mapping (source name → target name; ``{}``: every database by its name)."""
    Migration.objects.filter(pk=migration_id).update(database_mapping=mapping)
