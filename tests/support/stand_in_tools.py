"""Text-only stand-ins for the DESIGN §8 tools that are not registered in code yet (issue 8 brief: six
operations tools are built on another branch). They let the router bench and the planner's unit tests use those
tools' schemas before the merge; once a tool is registered, its real spec is used instead (``specs_with_stand_ins``).
Stand-ins are never executed (``func`` is None).
"""

STAND_INS = {
    # name: (category, env_specific, {arg: (type, required)}, description_ru, description_en, examples)
    "deploy_dashboard": (
        "dangerous",
        True,
        {"dashboard_id": (int, True), "source_env_id": (str, True), "target_env_id": (str, True)},
        "Разворачивает дашборд из одного окружения в другое: экспорт с графиками и датасетами и импорт.",
        "Deploys a dashboard from one environment to another: export with charts and datasets, then import.",
        ("Выкати дашборд в прод", "Разверни этот отчёт в staging", "Deploy the dashboard to prod"),
    ),
    "preview_migration": (
        "read",
        True,
        {"dashboard_ids": (list[int], True), "source_env_id": (str, True), "target_env_id": (str, True)},
        "Показывает, что изменит миграция набора дашбордов: какие объекты будут созданы или перезаписаны.",
        "Previews a migration of dashboards: which objects in the target would be created or overwritten.",
        ("Что изменит миграция в prod?", "Покажи план переноса дашбордов", "Preview the migration to staging"),
    ),
    "execute_migration": (
        "dangerous",
        True,
        {"dashboard_ids": (list[int], True), "source_env_id": (str, True), "target_env_id": (str, True)},
        "Переносит набор дашбордов в другое окружение фоновой задачей, с сопоставлением баз данных.",
        "Migrates a set of dashboards to another environment as a background task, mapping databases.",
        ("Перенеси дашборды 3 и 4 в prod", "Запусти миграцию", "Migrate these dashboards to production"),
    ),
    "run_backup": (
        "write",
        True,
        {"env_id": (str, True)},
        "Делает резервную копию окружения: выгружает все дашборды в zip-файл фоновой задачей.",
        "Backs up an environment: exports all its dashboards into a zip file as a background task.",
        ("Сделай резервную копию окружения", "Забэкапь ss-dev", "Back up this environment"),
    ),
    "list_backups": (
        "read",
        True,
        {"env_id": (str, True)},
        "Показывает резервные копии окружения: когда и кем сделаны, размер.",
        "Lists the backups of an environment: when, by whom, size.",
        ("Какие есть бэкапы?", "Покажи резервные копии staging", "Show the backups"),
    ),
    "get_task_status": (
        "read",
        False,
        {"task_id": (int, True)},
        "Сообщает состояние фоновой задачи: в очереди, выполняется, готово или ошибка, процент.",
        "Reports a background task: queued, running, done or failed, percent done.",
        ("Какой статус у задачи 3?", "Бэкап уже готов?", "What is the status of task 4?"),
    ),
}


def stand_in_specs(missing: set[str]) -> dict:
    """Text-only ToolSpecs for the tools not registered yet (they are never executed)."""
    from pydantic import create_model

    from agentchat.runtime.spec import ToolSpec

    out = {}
    for name in sorted(missing & set(STAND_INS)):
        category, env_specific, fields, ru, en, examples = STAND_INS[name]
        model = create_model(
            f"{name}_args", **{k: (t, ...) if req else (t | None, None) for k, (t, req) in fields.items()}
        )
        out[name] = ToolSpec(name, category, env_specific, model, ru, en, examples[:2], examples[2:], func=None)
    return out


def specs_with_stand_ins() -> dict:
    """The registry, plus a stand-in for every DESIGN §8 tool not registered yet."""
    from agentchat.runtime.registry import registry
    from policies.defaults import TOOLS

    specs = registry()
    return {**specs, **stand_in_specs(set(TOOLS) - set(specs))}
