"""Answer templates for the git tools (get_git_status, create_branch, commit_changes)."""

from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy

from agentchat.llm.offline.answers.base import answer_writer, items

MAX_PATHS = 10
_PATH_ACTIONS = (
    ("modified", pgettext_lazy("git file", "modified")),
    ("added", pgettext_lazy("git file", "added")),
    ("removed", pgettext_lazy("git file", "removed")),
)


def git_line(git: dict[str, Any], language: str) -> str:
    """One line about a dashboard's export in git (used by get_git_status and the health summary), in
    ``language``."""
    with translation.override(language):
        return _git_line(git)


def _git_line(git: dict[str, Any]) -> str:
    if git.get("error"):
        return _("could not check: %(error)s") % {"error": str(git["error"]).rstrip(". ")}  # the line ends in "."
    branch = git.get("branch") or "main"
    last = git.get("last_commit") or {}
    if git.get("committed"):
        when = (
            _(" (commit %(sha)s of %(time)s, %(author)s)")
            % {"sha": str(last.get("sha"))[:10], "time": last.get("time"), "author": last.get("author")}
            if last
            else ""
        )
        return _("the current export is committed on %(branch)s%(when)s") % {"branch": branch, "when": when}
    if not git.get("tracked"):
        return _("the dashboard's export has never been committed on %(branch)s") % {"branch": branch}
    changes = git.get("changes") or {}
    counts = {key: items(changes.get(key))[1] for key in ("added", "modified", "removed")}
    # The noun follows the last number, so it agrees with that one.
    return ngettext(
        "there are uncommitted changes against %(branch)s: %(modified)d modified, %(added)d added, "
        "%(removed)d removed file",
        "there are uncommitted changes against %(branch)s: %(modified)d modified, %(added)d added, "
        "%(removed)d removed files",
        counts["removed"],
    ) % {"branch": branch, **counts}


def _paths(changes: dict[str, Any]) -> list[str]:
    lines = []
    for key, label in _PATH_ACTIONS:
        paths, _total = items(changes.get(key))
        lines += [f"- {label}: {p}" for p in paths]
    shown = lines[:MAX_PATHS]
    rest = len(lines) - MAX_PATHS
    if rest > 0:
        shown.append(ngettext("… and %(count)d more", "… and %(count)d more", rest) % {"count": rest})
    return shown


# The repository-wide answer names at most this many dashboards not in git yet.
MAX_UNTRACKED = 10


def _repository_status(result: dict[str, Any]) -> str:
    """The whole repository (issue 29 item 4): a verdict first, then each dashboard of the branch, then the
    environment's dashboards not in git yet."""
    env, branch = result.get("env_id"), result.get("branch") or "main"
    rows, _total = items(result.get("dashboards"))
    changed = [r for r in rows if r.get("tracked") and not r.get("committed") and not r.get("error")]
    untracked, untracked_total = items(result.get("untracked"))
    untracked_total = max(untracked_total, int(result.get("untracked_count") or 0))
    if not rows and not result.get("unchecked"):
        head = _("The %(env)s repository holds no dashboard on %(branch)s yet.") % {"env": env, "branch": branch}
    elif changed:
        head = ngettext(
            "The %(env)s repository (%(branch)s): %(count)d dashboard has uncommitted changes.",
            "The %(env)s repository (%(branch)s): %(count)d dashboards have uncommitted changes.",
            len(changed),
        ) % {"env": env, "branch": branch, "count": len(changed)}
    else:
        head = _("The %(env)s repository (%(branch)s): no uncommitted changes in the dashboards it holds.") % {
            "env": env,
            "branch": branch,
        }
    lines = [head]
    for row in rows:
        title = row.get("title") or row.get("dashboard_id")
        state = _("could not check: %(error)s") % {"error": row["error"]} if row.get("error") else _git_line(row)
        lines.append(f"- «{title}» (id {row.get('dashboard_id')}): {state}")
    if result.get("unchecked"):
        rest = int(result["unchecked"])
        lines.append(
            ngettext("… and %(count)d more, not checked", "… and %(count)d more, not checked", rest) % {"count": rest}
        )
    if untracked_total:
        names = ", ".join(f"«{r.get('title')}» (id {r.get('id')})" for r in untracked[:MAX_UNTRACKED])
        lines.append(
            ngettext(
                "Not in git yet: %(count)d dashboard: %(names)s",
                "Not in git yet: %(count)d dashboards: %(names)s",
                untracked_total,
            )
            % {"count": untracked_total, "names": names}
        )
    if branches := result.get("branches"):
        lines.append(_("Branches: %(names)s") % {"names": ", ".join(map(str, branches))})
    return "\n".join(lines)


@answer_writer("get_git_status")
def git_status(result: dict[str, Any], language: str) -> str:
    if result.get("scope") == "repository":
        return _repository_status(result)
    title = result.get("title") or result.get("dashboard_id")
    head = _("Dashboard “%(title)s” (%(env)s): ") % {"title": title, "env": result.get("env_id")}
    lines = [head + _git_line(result) + "."]
    if not result.get("committed") and result.get("tracked"):
        lines += _paths(result.get("changes") or {})
    return "\n".join(lines)


@answer_writer("create_branch")
def create_branch(result: dict[str, Any], language: str) -> str:
    return _("Branch %(branch)s created from %(base)s (commit %(sha)s) in the %(env)s repository.") % {
        "branch": result.get("branch"),
        "base": result.get("base"),
        "sha": str(result.get("sha"))[:10],
        "env": result.get("env_id"),
    }


@answer_writer("commit_changes")
def commit_changes(result: dict[str, Any], language: str) -> str:
    branch, title = result.get("branch"), result.get("title")
    if not result.get("committed"):
        return _("Nothing to commit: branch %(branch)s already holds the current export of dashboard “%(title)s”.") % {
            "branch": branch,
            "title": title,
        }
    changes = result.get("changes") or {}
    counts = {key: items(changes.get(key))[1] for key in ("added", "modified", "removed")}
    head = ngettext(
        "Commit %(sha)s on %(branch)s (%(author)s): “%(title)s” — %(added)d added, %(modified)d modified, "
        "%(removed)d removed file.",
        "Commit %(sha)s on %(branch)s (%(author)s): “%(title)s” — %(added)d added, %(modified)d modified, "
        "%(removed)d removed files.",
        counts["removed"],
    ) % {"sha": str(result.get("sha"))[:10], "branch": branch, "author": result.get("author"), "title": title, **counts}
    return "\n".join([head, *_paths(changes)])
