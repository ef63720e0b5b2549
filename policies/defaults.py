"""Default policy rows, exactly DESIGN §8 (tool table) and DESIGN §4 (roles, environments).

Applied by the data migration ``0002_default_policies``; afterwards admins own the rows.
"""

ROLES = ("analyst", "engineer", "admin")
ALL = ROLES
WRITERS = ("engineer", "admin")

# name: (category, env_specific, affinities, roles)
TOOLS: dict[str, tuple[str, bool, tuple[str, ...], tuple[str, ...]]] = {
    "show_capabilities": ("read", False, (), ALL),
    "list_environments": ("read", False, ("dataset", "migration"), ALL),
    "search_dashboards": ("read", True, ("dashboard", "dataset", "migration"), ALL),
    "get_health_summary": ("read", True, ("dashboard",), ALL),
    "search_datasets": ("read", True, (), ALL),
    "get_dataset_details": ("read", True, (), ALL),
    "superset_explore_database": ("read", True, ("dataset",), ALL),
    "superset_format_sql": ("read", False, ("dataset",), ALL),
    "superset_audit_permissions": ("read", True, ("dataset",), ALL),
    "superset_execute_sql": ("read", True, ("dataset",), ALL),
    "get_task_status": ("read", False, ("dataset", "migration"), ALL),
    "get_git_status": ("read", True, (), ALL),
    "list_backups": ("read", True, ("dashboard", "migration"), ALL),  # issue 28: the copies before a change
    "preview_migration": ("read", True, ("migration",), ALL),
    "compare_versions": ("read", True, ("dashboard", "dataset"), ALL),
    "deploy_history": ("read", False, ("dashboard", "migration"), ALL),
    "create_branch": ("write", True, ("dashboard",), WRITERS),
    "commit_changes": ("write", True, ("dashboard",), WRITERS),
    "run_llm_validation": ("write", True, ("dashboard",), WRITERS),
    "run_llm_documentation": ("write", True, ("dashboard",), WRITERS),
    "superset_create_dataset": ("write", True, ("dataset",), WRITERS),
    "run_backup": ("write", True, (), WRITERS),
    "deploy_dashboard": ("dangerous", True, ("dashboard",), WRITERS),
    "execute_migration": ("dangerous", True, ("dashboard", "migration"), ("admin",)),
    "rollback_deploy": ("dangerous", True, ("dashboard", "migration"), WRITERS),
}

# env_id: (name, tier, superset_url, credentials_env). staging points at the ss-dev instance locally.
ENVIRONMENTS: dict[str, tuple[str, str, str, str]] = {
    "ss-dev": ("Superset dev", "dev", "http://127.0.0.1:8088", "SUPERSET_SS_DEV"),
    "staging": ("Superset staging", "staging", "http://127.0.0.1:8088", "SUPERSET_STAGING"),
    "prod": ("Superset production", "prod", "http://127.0.0.1:8089", "SUPERSET_PROD"),
}

# (category, tier): (risk_level, tone, requires_confirmation, typed_confirmation, prompt_ru, prompt_en) — DESIGN §9.
RISK_RULES: dict[tuple[str, str], tuple[str, str, bool, bool, str, str]] = {
    ("read", "dev"): ("safe", "success", False, False, "Чтение данных", "Reading data"),
    ("read", "staging"): ("safe", "success", False, False, "Чтение данных", "Reading data"),
    ("read", "prod"): ("safe", "success", False, False, "Чтение данных", "Reading data"),
    ("read", "none"): ("safe", "success", False, False, "Чтение данных", "Reading data"),
    ("write", "dev"): ("guarded", "info", True, False, "Изменения в dev-окружении", "Changes in the dev environment"),
    ("write", "staging"): (
        "guarded",
        "info",
        True,
        False,
        "Изменения в staging-окружении",
        "Changes in the staging environment",
    ),
    ("write", "prod"): (
        "dangerous",
        "destructive",
        True,
        False,
        "Изменения в PRODUCTION-окружении",
        "Changes in PRODUCTION",
    ),
    ("write", "none"): ("guarded", "warning", True, False, "Изменение без окружения", "A change without environment"),
    ("dangerous", "dev"): (
        "guarded",
        "info",
        True,
        False,
        "Изменения в dev-окружении",
        "Changes in the dev environment",
    ),
    ("dangerous", "staging"): (
        "guarded",
        "info",
        True,
        False,
        "Изменения в staging-окружении",
        "Changes in the staging environment",
    ),
    ("dangerous", "prod"): (
        "dangerous",
        "destructive",
        True,
        True,
        "Опасная операция в PRODUCTION",
        "Dangerous operation in PRODUCTION",
    ),
    ("dangerous", "none"): (
        "dangerous",
        "destructive",
        True,
        True,
        "Опасная операция: нужно окружение",
        "Dangerous: needs an environment",
    ),
}
