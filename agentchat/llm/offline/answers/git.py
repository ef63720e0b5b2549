"""Answer templates for the git tools (get_git_status, create_branch, commit_changes)."""

from typing import Any

from agentchat.llm.offline.answers.base import answer_writer, items, t

MAX_PATHS = 10


def git_line(git: dict[str, Any], language: str) -> str:
    """One line about a dashboard's export in git (used by get_git_status and the health summary)."""
    if git.get("error"):
        return t(language, f"не удалось проверить: {git['error']}", f"could not check: {git['error']}")
    branch = git.get("branch") or "main"
    last = git.get("last_commit") or {}
    if git.get("committed"):
        when = (
            t(
                language,
                f" (коммит {str(last.get('sha'))[:10]} от {last.get('time')}, {last.get('author')})",
                f" (commit {str(last.get('sha'))[:10]} of {last.get('time')}, {last.get('author')})",
            )
            if last
            else ""
        )
        return t(
            language,
            f"текущая выгрузка сохранена в ветке {branch}{when}",
            f"the current export is committed on {branch}{when}",
        )
    if not git.get("tracked"):
        return t(
            language,
            f"выгрузка дашборда ещё не сохранялась в ветке {branch}",
            f"the dashboard's export has never been committed on {branch}",
        )
    changes = git.get("changes") or {}
    counts = {key: items(changes.get(key))[1] for key in ("added", "modified", "removed")}
    return t(
        language,
        f"есть несохранённые изменения относительно ветки {branch}: изменено {counts['modified']}, "
        f"добавлено {counts['added']}, удалено {counts['removed']} файлов",
        f"there are uncommitted changes against {branch}: {counts['modified']} modified, {counts['added']} added, "
        f"{counts['removed']} removed files",
    )


def _paths(changes: dict[str, Any], language: str) -> list[str]:
    lines = []
    for key, ru, en in (
        ("modified", "изменён", "modified"),
        ("added", "добавлен", "added"),
        ("removed", "удалён", "removed"),
    ):
        paths, _total = items(changes.get(key))
        lines += [f"- {t(language, ru, en)}: {p}" for p in paths]
    shown = lines[:MAX_PATHS]
    if len(lines) > MAX_PATHS:
        shown.append(t(language, f"… и ещё {len(lines) - MAX_PATHS}", f"… and {len(lines) - MAX_PATHS} more"))
    return shown


@answer_writer("get_git_status")
def git_status(result: dict[str, Any], language: str) -> str:
    title = result.get("title") or result.get("dashboard_id")
    head = t(
        language, f"Дашборд «{title}» ({result.get('env_id')}): ", f"Dashboard “{title}” ({result.get('env_id')}): "
    )
    lines = [head + git_line(result, language) + "."]
    if not result.get("committed") and result.get("tracked"):
        lines += _paths(result.get("changes") or {}, language)
    return "\n".join(lines)


@answer_writer("create_branch")
def create_branch(result: dict[str, Any], language: str) -> str:
    sha = str(result.get("sha"))[:10]
    return t(
        language,
        f"Ветка {result.get('branch')} создана от {result.get('base')} (коммит {sha}) в репозитории "
        f"{result.get('env_id')}.",
        f"Branch {result.get('branch')} created from {result.get('base')} (commit {sha}) in the "
        f"{result.get('env_id')} repository.",
    )


@answer_writer("commit_changes")
def commit_changes(result: dict[str, Any], language: str) -> str:
    branch, title = result.get("branch"), result.get("title")
    if not result.get("committed"):
        return t(
            language,
            f"Нечего коммитить: ветка {branch} уже содержит текущую выгрузку дашборда «{title}».",
            f"Nothing to commit: branch {branch} already holds the current export of dashboard “{title}”.",
        )
    changes = result.get("changes") or {}
    counts = {key: items(changes.get(key))[1] for key in ("added", "modified", "removed")}
    lines = [
        t(
            language,
            f"Коммит {str(result.get('sha'))[:10]} в ветке {branch} ({result.get('author')}): «{title}» — "
            f"добавлено {counts['added']}, изменено {counts['modified']}, удалено {counts['removed']} файлов.",
            f"Commit {str(result.get('sha'))[:10]} on {branch} ({result.get('author')}): “{title}” — "
            f"{counts['added']} added, {counts['modified']} modified, {counts['removed']} removed files.",
        )
    ]
    return "\n".join(lines + _paths(changes, language))
