"""What each tool is called in an answer to a user: people read «сводка о дашборде», not ``get_health_summary``
(internal names stay in the tool-status line and the admin). Lazy msgids: a title is translated when it is shown,
in the active language (the turn's) or the one asked for."""

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from agentchat.language import in_language

TOOL_TITLES: dict[str, Promise] = {
    "show_capabilities": _("what I can do here"),
    "list_environments": _("the list of Superset environments"),
    "search_dashboards": _("dashboard search"),
    "get_health_summary": _("dashboard health summary"),
    "search_datasets": _("dataset search"),
    "get_dataset_details": _("dataset details"),
    "superset_explore_database": _("databases, tables and a dataset's source"),
    "superset_format_sql": _("SQL formatting"),
    "superset_audit_permissions": _("permission audit"),
    "superset_execute_sql": _("read-only SQL query"),
    "get_task_status": _("background task status"),
    "get_git_status": _("the dashboard's git status"),
    "list_backups": _("the list of backups"),
    "preview_migration": _("migration preview"),
    "compare_versions": _("comparing two versions of an object"),
    "deploy_history": _("the history of deploys"),
    "create_branch": _("creating a git branch"),
    "commit_changes": _("committing the dashboard to git"),
    "run_llm_validation": _("dashboard review"),
    "run_llm_documentation": _("chart descriptions for the dashboard"),
    "superset_create_dataset": _("creating a dataset"),
    "run_backup": _("backing up an environment"),
    "deploy_dashboard": _("deploying a dashboard to another environment"),
    "execute_migration": _("migrating a set of dashboards"),
    "rollback_deploy": _("rolling back a deploy"),
}
UNKNOWN_TOOL_TITLE = _("this operation")


def tool_title(tool: str, language: str | None = None) -> str:
    """Return the user-facing name of ``tool`` in ``language`` (``ru``/``en``; None: the active language); an
    unknown tool reads as «эта операция»."""
    with in_language(language):
        return str(TOOL_TITLES.get(tool, UNKNOWN_TOOL_TITLE))
