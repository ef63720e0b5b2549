"""deploy_history: who deployed what, from where, when, with which result and copy (issue 28 item 5).

Read from our own audit log (``policies.AuditEvent``): the final row of every deploy_dashboard, execute_migration
and rollback_deploy call (``tool_result``, ``tool_error``, ``permission_denied``, ``timeout``), whose
``extra.deploy`` names the environments and dashboards (``turn.recording``) and ``extra.backup_id`` the copy saved
before the overwrite.
Nothing is asked of Superset.
"""

from typing import Any

from asgiref.sync import sync_to_async
from pydantic import Field

from agentchat.context.ids import ObjectId
from agentchat.errors import NOT_APPLICABLE
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from policies.models import AuditEvent

DEPLOY_TOOLS = ("deploy_dashboard", "execute_migration")
# The writes the history lists and the drift line measures from (a rollback is the last write there too).
CHANGE_TOOLS = (*DEPLOY_TOOLS, "rollback_deploy")
FINAL_EVENTS = (
    AuditEvent.EventType.TOOL_RESULT,
    AuditEvent.EventType.TOOL_ERROR,
    AuditEvent.EventType.PERMISSION_DENIED,
    AuditEvent.EventType.TIMEOUT,
)
SCANNED_ROWS = 500  # the newest deploy rows read; older deploys are not listed


class DeployHistoryArgs(ToolArgs):
    target_env_id: str | None = Field(None, description="Only deploys into this environment, e.g. prod.")
    dashboard_id: ObjectId | None = Field(None, description="Only deploys of this dashboard (id in source_env_id).")
    source_env_id: str | None = Field(None, description="Environment of dashboard_id, e.g. ss-dev (the page's).")
    limit: int = Field(10, ge=1, le=50, description="Most deploys returned, newest first.")


def _person(user: Any) -> str | None:
    if user is None:
        return None
    return user.get_full_name() or user.get_username()


def _entry(row: AuditEvent) -> dict[str, Any]:
    args, extra = row.args or {}, row.extra_data or {}
    deploy = extra.get("deploy") or {}
    ids = deploy.get("source_dashboard_ids")
    if ids is None:
        ids = args.get("dashboard_ids") or ([args["dashboard_id"]] if args.get("dashboard_id") else [])
    return {
        "at": row.created_at.isoformat(),
        "who": _person(row.actor),
        "tool": row.tool,
        "ok": row.event_type == AuditEvent.EventType.TOOL_RESULT,
        "refused": row.event_type == AuditEvent.EventType.PERMISSION_DENIED,  # by our policy: nothing ran
        "outcome": row.outcome,
        "source_env_id": deploy.get("source_env_id") or args.get("source_env_id"),
        "target_env_id": deploy.get("target_env_id") or args.get("target_env_id") or row.env_id or None,
        "source_dashboard_ids": list(ids),
        "target_dashboard_ids": list(deploy.get("target_dashboard_ids") or []),
        "dashboards": deploy.get("dashboards") or [],
        "migration_id": args.get("migration_id"),
        "backup_id": extra.get("backup_id"),
        "message": extra.get("message") or None,
        "conversation_id": row.conversation_id,
    }


def _of_dashboard(entry: dict[str, Any], args: DeployHistoryArgs) -> bool:
    """The deploy moved ``args.dashboard_id``: the id of its source (in ``source_env_id``) or of the dashboard it
    made or overwrote in the target (when ``source_env_id`` is that target: asked on the prod dashboard's page)."""
    env = args.source_env_id
    if args.dashboard_id in entry["source_dashboard_ids"] and env in (None, entry["source_env_id"]):
        return True
    return args.dashboard_id in entry["target_dashboard_ids"] and env in (None, entry["target_env_id"])


def _deploy_rows(*event_types: str) -> Any:
    """The newest ``SCANNED_ROWS`` audit rows of deploy calls with one of ``event_types``, newest first."""
    rows = AuditEvent.objects.filter(tool__in=CHANGE_TOOLS, event_type__in=event_types)
    return rows.select_related("actor").order_by("-created_at", "-id")[:SCANNED_ROWS]


def deploy_history(args: DeployHistoryArgs) -> list[dict[str, Any]]:
    """The deploys ``args`` asks for (see ``deploy_history_tool``), newest first, at most ``args.limit``; asked
    about one dashboard, the rollbacks of what its deploys made in the target are listed too."""
    # a call that found nothing to apply to (nothing to roll back) changed nothing: no deploy of the history
    entries = [_entry(row) for row in _deploy_rows(*FINAL_EVENTS) if row.outcome != NOT_APPLICABLE]
    if args.target_env_id:
        entries = [e for e in entries if e["target_env_id"] == args.target_env_id]
    if args.dashboard_id is not None:
        made = {(e["target_env_id"], i) for e in entries if _of_dashboard(e, args) for i in e["target_dashboard_ids"]}
        entries = [
            e
            for e in entries
            if _of_dashboard(e, args)
            or (e["tool"] == "rollback_deploy" and {(e["target_env_id"], i) for i in e["target_dashboard_ids"]} & made)
        ]
    return entries[: args.limit]


@assistant_tool(
    name="deploy_history",
    category="read",
    env_specific=False,
    args=DeployHistoryArgs,
    description_ru=(
        "История деплоев и миграций из журнала аудита: кто, когда, какой дашборд, откуда и куда, с каким "
        "результатом и какая копия сохранена перед изменением."
    ),
    description_en=(
        "The history of deploys and migrations from the audit log: who, when, which dashboards, from where to "
        "where, the result and the copy saved before the change."
    ),
    examples_ru=[
        "Когда и кто деплоил этот дашборд в prod?",
        "Покажи историю деплоев в prod",
        "Кто последним выкатывал дашборд 3?",
        "Когда последний раз запускали миграцию?",
    ],
    examples_en=[
        "When was this dashboard last deployed to prod, and by whom?",
        "Show the deploy history of prod",
        "Who deployed dashboard 3 last?",
        "When did the last migration run?",
    ],
)
async def deploy_history_tool(ctx: ToolContext, args: DeployHistoryArgs) -> dict[str, Any]:
    """List deploys from the audit log (no Superset request).

    Returns:
        ``{"target_env_id", "dashboard_id", "dashboard_title" (``dashboard_title``), "source_env_id", "count",
        "deploys": [{"at" (ISO), "who", "tool", "ok", "refused", "outcome", "source_env_id", "target_env_id",
        "source_dashboard_ids", "target_dashboard_ids",
        "dashboards" ([title]), "migration_id", "backup_id", "message", "conversation_id"}]}``, newest first; a failed
        call's row has ``ok`` False and its ``message``; an attempt our policy refused (nothing ran) ``refused`` True.
        Only the newest ``SCANNED_ROWS`` deploy rows are read.
    """
    deploys = await sync_to_async(deploy_history)(args)
    return {
        "target_env_id": args.target_env_id,
        "dashboard_id": args.dashboard_id,
        "dashboard_title": dashboard_title(ctx.ui_context, args, deploys),
        "source_env_id": args.source_env_id,
        "count": len(deploys),
        "deploys": deploys,
    }


def dashboard_title(page: dict[str, Any] | None, args: DeployHistoryArgs, deploys: list[dict[str, Any]]) -> str | None:
    """The title of ``args.dashboard_id`` the answer names it by (not «дашборд #1» alone): the page's own when the
    page is that dashboard (UIContext ``objectName``), else the one a deploy of it alone recorded; None when neither
    says (no Superset request: the history reads the audit log only)."""
    if args.dashboard_id is None:
        return None
    page = page or {}
    same_env = page.get("envId") == (args.source_env_id or page.get("envId"))
    if page.get("objectType") == "dashboard" and str(page.get("objectId")) == str(args.dashboard_id) and same_env:
        if page.get("objectName"):
            return str(page["objectName"])
    for deploy in deploys:
        alone = deploy["source_dashboard_ids"] == [args.dashboard_id] and len(deploy["dashboards"]) == 1
        if alone and deploy["source_env_id"] in (None, args.source_env_id or deploy["source_env_id"]):
            return str(deploy["dashboards"][0])
    return None


def last_deployed(env_id: str, dashboard_ids: list[int]) -> dict[int, Any]:
    """When the agent last deployed into ``env_id`` each of the target dashboards ``dashboard_ids`` (the time of
    the successful call's audit row, after its import), for the drift line of a card (issue 28 item 2).

    Returns:
        ``{target dashboard id: aware datetime}`` for the dashboards the agent deployed (the newest
        ``SCANNED_ROWS`` rows read); a dashboard never deployed by the agent is left out.
    """
    wanted, found = set(dashboard_ids), {}
    for row in _deploy_rows(AuditEvent.EventType.TOOL_RESULT):
        deploy = (row.extra_data or {}).get("deploy") or {}
        if deploy.get("target_env_id") != env_id:
            continue
        for target_id in deploy.get("target_dashboard_ids") or []:
            if target_id in wanted and target_id not in found:
                found[target_id] = row.created_at
    return found
