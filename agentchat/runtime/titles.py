"""What each tool is called in an answer to a user (ru/en): people read «сводка о дашборде», not
``get_health_summary`` (internal names stay in the tool-status line and the admin)."""

TOOL_TITLES: dict[str, tuple[str, str]] = {
    "show_capabilities": ("что я умею здесь", "what I can do here"),
    "list_environments": ("список окружений Superset", "the list of Superset environments"),
    "search_dashboards": ("поиск дашбордов", "dashboard search"),
    "get_health_summary": ("сводка о дашборде", "dashboard health summary"),
    "search_datasets": ("поиск датасетов", "dataset search"),
    "get_dataset_details": ("подробности датасета", "dataset details"),
    "superset_explore_database": (
        "обзор баз данных, таблиц и источника датасета",
        "databases, tables and a dataset's source",
    ),
    "superset_format_sql": ("форматирование SQL", "SQL formatting"),
    "superset_audit_permissions": ("аудит прав доступа", "permission audit"),
    "superset_execute_sql": ("SQL-запрос на чтение", "read-only SQL query"),
    "get_task_status": ("статус фоновой задачи", "background task status"),
    "get_git_status": ("состояние дашборда в git", "the dashboard's git status"),
    "list_backups": ("список резервных копий", "the list of backups"),
    "preview_migration": ("предпросмотр миграции", "migration preview"),
    "create_branch": ("создание git-ветки", "creating a git branch"),
    "commit_changes": ("коммит дашборда в git", "committing the dashboard to git"),
    "run_llm_validation": ("проверка дашборда", "dashboard review"),
    "run_llm_documentation": ("описания графиков дашборда", "chart descriptions for the dashboard"),
    "superset_create_dataset": ("создание датасета", "creating a dataset"),
    "run_backup": ("резервная копия окружения", "backing up an environment"),
    "deploy_dashboard": ("развёртывание дашборда в другое окружение", "deploying a dashboard to another environment"),
    "execute_migration": ("миграция набора дашбордов", "migrating a set of dashboards"),
}


def tool_title(tool: str, language: str) -> str:
    """Return the user-facing name of ``tool`` in ``language``; an unknown tool reads as «эта операция»."""
    ru, en = TOOL_TITLES.get(tool, ("эта операция", "this operation"))
    return en if language == "en" else ru
