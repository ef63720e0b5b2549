"""Answer templates for the operations tools: deploy, migration preview and run, backups, task status."""

from typing import Any

from agentchat.llm.offline.answers.base import answer_writer, items, more, t, when

TYPES = {
    "dashboard": ("Дашборды", "Dashboards"),
    "chart": ("Графики", "Charts"),
    "dataset": ("Датасеты", "Datasets"),
    "database": ("Базы данных", "Databases"),
}
TYPE_ONE = {
    "dashboard": ("дашборд", "dashboard"),
    "chart": ("график", "chart"),
    "dataset": ("датасет", "dataset"),
    "database": ("база данных", "database"),
}
PLANNED = {
    "create": ("создать", "create"),
    "overwrite": ("перезаписать", "overwrite"),
    "conflict": ("заменить (тот же slug)", "replace (same slug)"),
    "keep": ("оставить как есть", "keep as is"),
}
DONE = {
    "create": ("создано", "created"),
    "overwrite": ("перезаписано", "overwritten"),
    "conflict": ("заменено (тот же slug)", "replaced (same slug)"),
    "keep": ("без изменений", "unchanged"),
}
STATES = {
    "queued": ("в очереди", "queued"),
    "running": ("выполняется", "running"),
    "succeeded": ("готово", "succeeded"),
    "failed": ("ошибка", "failed"),
}


def _pick(pair: tuple[str, str], language: str) -> str:
    return t(language, pair[0], pair[1])


def _counts(counts: dict[str, Any] | None, words: dict[str, tuple[str, str]], language: str) -> list[str]:
    lines = []
    for kind, by_action in (counts or {}).items():
        shown = [f"{_pick(words[a], language)} — {n}" for a, n in (by_action or {}).items() if n and a in words]
        if shown and kind in TYPES:
            lines.append(f"{_pick(TYPES[kind], language)}: " + ", ".join(shown))
    return lines


def _size(n: int, language: str) -> str:
    for unit_ru, unit_en, scale in (("МБ", "MB", 1 << 20), ("КБ", "KB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {t(language, unit_ru, unit_en)}"
    return f"{n} {t(language, 'Б', 'B')}"


@answer_writer("deploy_dashboard")
def deploy_dashboard(result: dict[str, Any], language: str) -> str:
    dashboards, _ = items(result.get("dashboards"))
    src, dst = result.get("source_env_id"), result.get("target_env_id")
    lines = []
    for d in dashboards:
        charts, n_charts = items(d.get("charts"))
        lines.append(
            t(
                language,
                f"Дашборд «{d.get('title')}» развёрнут из {src} в {dst} (id {d.get('id')} в {dst}) и проверен: "
                f"подключено графиков — {n_charts}.",
                f"Dashboard “{d.get('title')}” was deployed from {src} to {dst} (id {d.get('id')} in {dst}) and "
                f"verified: {n_charts} chart(s) attached.",
            )
        )
        lines += [f"- {name}" for name in charts]
        lines.append(d.get("url") or "")
    lines += _counts(result.get("counts"), DONE, language)
    replaced = [o for o in items(result.get("objects"))[0] if o.get("action") == "conflict"]
    for o in replaced:
        lines.append(
            t(
                language,
                f"Заменён дашборд с тем же slug: «{o.get('name')}».",
                f"Replaced the dashboard with the same slug: “{o.get('name')}”.",
            )
        )
    return "\n".join(line for line in lines if line)


@answer_writer("preview_migration")
def preview_migration(result: dict[str, Any], language: str) -> str:
    objects, total = items(result.get("objects"))
    lines = [str(result.get(t(language, "summary_ru", "summary_en")) or "")]
    for o in objects:
        kind = _pick(TYPE_ONE.get(o.get("type"), (o.get("type"), o.get("type"))), language)
        action = _pick(PLANNED.get(o.get("action"), (o.get("action"), o.get("action"))), language)
        lines.append(f"- {kind} «{o.get('name')}»: {action}")
    lines.append(
        t(
            language,
            "Ничего не изменено: это только предварительный просмотр.",
            "Nothing was changed: this is a preview only.",
        )
    )
    return "\n".join(lines) + more(len(objects), total, language)


@answer_writer("execute_migration")
def execute_migration(result: dict[str, Any], language: str) -> str:
    names, n = items(result.get("dashboards"))
    listed = ", ".join(f"«{name}»" for name in names)
    return t(
        language,
        f"Миграция запущена: задача #{result.get('task_id')} — дашбордов {n} ({listed}) из "
        f"{result.get('source_env_id')} в {result.get('target_env_id')}. Ход выполнения виден в чате; "
        f"можно спросить «статус задачи {result.get('task_id')}».",
        f"Migration started: task #{result.get('task_id')} — {n} dashboard(s) ({listed}) from "
        f"{result.get('source_env_id')} to {result.get('target_env_id')}. Progress shows in the chat; you can "
        f"ask “status of task {result.get('task_id')}”.",
    )


@answer_writer("run_backup")
def run_backup(result: dict[str, Any], language: str) -> str:
    return t(
        language,
        f"Резервное копирование {result.get('env_id')} запущено: задача #{result.get('task_id')}. "
        "Ход выполнения виден в чате; готовые копии покажет list_backups.",
        f"Backup of {result.get('env_id')} started: task #{result.get('task_id')}. Progress shows in the chat; "
        "list_backups shows finished backups.",
    )


@answer_writer("list_backups")
def list_backups(result: dict[str, Any], language: str) -> str:
    rows, total = items(result.get("backups"))
    env_id = result.get("env_id")
    if not rows:
        return t(language, f"У {env_id} пока нет резервных копий.", f"{env_id} has no backups yet.")
    lines = [t(language, f"Резервные копии {env_id} (новые сверху):", f"Backups of {env_id} (newest first):")]
    for b in rows:
        who = b.get("created_by") or "—"
        missing = "" if b.get("file_present", True) else t(language, " — файл отсутствует", " — file missing")
        lines.append(
            t(
                language,
                f"- #{b.get('id')} {when(b.get('created_at'))}: дашбордов {b.get('dashboard_count')}, "
                f"{_size(int(b.get('size_bytes') or 0), language)}, автор {who}{missing}",
                f"- #{b.get('id')} {when(b.get('created_at'), 'en')}: {b.get('dashboard_count')} dashboards, "
                f"{_size(int(b.get('size_bytes') or 0), language)}, by {who}{missing}",
            )
        )
    return "\n".join(lines) + more(len(rows), total, language)


def _task_result(kind: str, result: dict[str, Any], language: str) -> list[str]:
    if kind == "backup":
        return [
            t(
                language,
                f"Резервная копия: дашбордов {result.get('dashboard_count')}, "
                f"{_size(int(result.get('size_bytes') or 0), language)}, файл {result.get('path')}",
                f"Backup: {result.get('dashboard_count')} dashboards, "
                f"{_size(int(result.get('size_bytes') or 0), language)}, file {result.get('path')}",
            )
        ]
    if kind == "migration":
        deployed, _ = items(result.get("deployed"))
        failed, _ = items(result.get("failed"))
        lines = [f"✓ «{d.get('title')}» → {result.get('target_env_id')}" for d in deployed]
        lines += [f"✗ «{f.get('title')}»: {f.get('error')}" for f in failed]
        return lines
    return []


@answer_writer("get_task_status")
def get_task_status(result: dict[str, Any], language: str) -> str:
    if not result.get("found"):
        return str(result.get("message"))
    raw_state = result.get("state")
    state = _pick(STATES[raw_state], language) if raw_state in STATES else raw_state
    lines = [
        t(
            language,
            f"Задача #{result.get('task_id')} ({result.get('kind')}): {state}, {result.get('progress')} %.",
            f"Task #{result.get('task_id')} ({result.get('kind')}): {state}, {result.get('progress')} %.",
        )
    ]
    if result.get("message") and result.get("state") != "failed":
        lines.append(str(result["message"]))
    if result.get("error"):
        lines.append(t(language, f"Ошибка: {result['error']}", f"Error: {result['error']}"))
    if isinstance(result.get("result"), dict):
        lines += _task_result(str(result.get("kind")), result["result"], language)
    return "\n".join(lines)
