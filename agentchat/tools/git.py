"""Git tools: a repository of unpacked dashboard exports per environment (dulwich; DESIGN §8, issue 5).

get_git_status compares a dashboard's export, fetched now, with a branch; create_branch makes a branch;
commit_changes writes the export into the branch and commits it as the user. Repository logic:
``agentchat.gitstore.repo``; export fetch and normalisation: ``agentchat.superset.dashboard_export``.
"""

import asyncio
from typing import Any

from django.contrib.auth.models import User
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from pydantic import Field

from agentchat.context.ids import ObjectId
from agentchat.errors import ToolError
from agentchat.gitstore import repo as gitrepo
from agentchat.gitstore.tracked import repository_branches, tracked_dashboards
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.superset.dashboard_export import dashboard_export_files, dashboard_export_status, export_title
from agentchat.tools.superset import ENV_ID_FIELD

BRANCH_FIELD = Field(gitrepo.MAIN, max_length=200, description="Git branch.")
# A repository-wide status exports at most this many tracked dashboards (one export each); the rest are counted.
MAX_CHECKED = 20


class GitStatusArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    dashboard_id: ObjectId | None = Field(None, description="Numeric Superset id of the dashboard (omit: all).")
    branch: str = BRANCH_FIELD


class CreateBranchArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    name: str = Field(
        min_length=1, max_length=200, description="New branch name, git rules (e.g. feature/energy-report)."
    )
    base: str = Field(gitrepo.MAIN, max_length=200, description="Existing branch to start from.")


class CommitChangesArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    dashboard_id: ObjectId = Field(description="Numeric Superset id of the dashboard.")
    branch: str = BRANCH_FIELD
    message: str | None = Field(None, max_length=2000, description="Commit message.")


@assistant_tool(
    name="get_git_status",
    category="read",
    env_specific=True,
    args=GitStatusArgs,
    description_ru=(
        "Проверяет, сохранена ли текущая выгрузка дашборда в git-репозитории окружения (ветка main или другая), "
        "и какие файлы отличаются: добавлены, изменены, удалены; без дашборда — весь репозиторий: какие дашборды "
        "с незакоммиченными изменениями и какие ещё не в git."
    ),
    description_en=(
        "Git state of a dashboard's export in the environment's repository (committed? which files differ); "
        "without a dashboard, of all its dashboards."
    ),
    examples_ru=[
        "Этот дашборд сохранён в git?",
        "Есть ли незакоммиченные изменения в дашборде?",
        "Чем дашборд отличается от ветки main?",
        "Какие файлы дашборда изменились с последнего коммита?",
    ],
    examples_en=[
        "Is this dashboard committed to git?",
        "Does the dashboard have uncommitted changes?",
        "How does the dashboard differ from the main branch?",
        "Which files of the dashboard changed since the last commit?",
        "Is anything uncommitted in the repository?",
    ],
)
async def get_git_status(ctx: ToolContext, args: GitStatusArgs) -> dict[str, Any]:
    """Compare the dashboard's export (fetched now) with the branch; a repository not yet made reads as empty.
    Without ``dashboard_id``, the whole repository (``repository_status``; issue 29 item 4).

    Returns:
        ``{"env_id", "dashboard_id", "title", "branch", "folder", "head", "tracked", "committed", "files",
        "changes": {"added", "modified", "removed"}, "last_commit": {"sha", "message", "author", "time"} | None}``
        (paths are repository paths, e.g. ``dashboard-1/charts/x_1.yaml``), or ``repository_status``'s dict.

    Raises:
        GitRefError: invalid or missing branch. UpstreamError: unknown dashboard (404).
    """
    client = await ctx.superset(args.env_id)
    if args.dashboard_id is None:
        return await repository_status(client, env_id=args.env_id, branch=args.branch)
    return await dashboard_export_status(client, env_id=args.env_id, dashboard_id=args.dashboard_id, branch=args.branch)


async def repository_status(client: SupersetClient, *, env_id: str, branch: str) -> dict[str, Any]:
    """Every dashboard the branch holds, its current export compared with it, and the environment's dashboards the
    branch does not hold yet.

    Returns:
        ``{"env_id", "scope": "repository", "branch", "branches": [name], "head", "dashboards": [{"dashboard_id",
        "title", "tracked", "committed", "changes": {"added", "modified", "removed"}, "last_commit"} |
        {"dashboard_id", "error"}], "unchecked": int, "untracked": [{"id", "title"}], "untracked_count": int}``
        (``branches``: every branch of the repository, sorted); ``dashboards`` at most
        ``MAX_CHECKED`` (``unchecked``: how many more the branch holds); ``error`` for a dashboard whose export
        failed (deleted in Superset, no access).

    Raises:
        GitRefError: invalid or missing branch.
    """
    head, tracked = await asyncio.to_thread(tracked_dashboards, env_id=env_id, branch=branch)
    branches = await asyncio.to_thread(repository_branches, env_id=env_id)
    checked = tracked[:MAX_CHECKED]
    q = {
        "columns": ["id", "dashboard_title"],
        "page_size": 100,
        "order_column": "dashboard_title",
        "order_direction": "asc",
    }
    listing, *statuses = await gather_requests(
        client.get_json("/api/v1/dashboard/", q=q),
        *(_one_status(client, env_id, dashboard_id, branch) for dashboard_id in checked),
    )
    rows = listing.get("result") or []
    untracked = [{"id": r["id"], "title": r.get("dashboard_title")} for r in rows if r["id"] not in set(tracked)]
    return {
        "env_id": env_id,
        "scope": "repository",
        "branch": branch,
        "branches": branches,
        "head": head,
        "dashboards": list(statuses),
        "unchecked": len(tracked) - len(checked),
        "untracked": untracked,
        "untracked_count": max(len(untracked), listing.get("count", len(rows)) - len(tracked)),
    }


async def _one_status(client: SupersetClient, env_id: str, dashboard_id: int, branch: str) -> dict[str, Any]:
    """One tracked dashboard's status for ``repository_status``; a failed export does not sink the others."""
    try:
        status = await dashboard_export_status(client, env_id=env_id, dashboard_id=dashboard_id, branch=branch)
    except ToolError as exc:
        return {"dashboard_id": dashboard_id, "error": exc.text()}
    keys = ("dashboard_id", "title", "tracked", "committed", "changes", "last_commit")
    return {key: status[key] for key in keys}


async def create_branch_impact(ctx: ToolContext, args: CreateBranchArgs) -> dict[str, Any]:
    """Impact of create_branch for the confirmation card (DESIGN §9): one new branch, nothing else changes."""
    gitrepo.branch_check(args.name)
    with translation.override(ctx.language):
        summary = _("Branch %(branch)s will be created from %(base)s in the %(env)s git repository.") % {
            "branch": args.name,
            "base": args.base,
            "env": args.env_id,
        }
    return {
        "summary": summary,
        "objects": [{"type": "branch", "name": args.name, "action": "add"}],
        "counts": {"add": 1},
    }


@assistant_tool(
    name="create_branch",
    category="write",
    env_specific=True,
    args=CreateBranchArgs,
    description_ru=(
        "Создаёт ветку в git-репозитории выгрузок дашбордов окружения — от main или от указанной ветки. "
        "Имя проверяется по правилам git; существующая ветка не перезаписывается."
    ),
    description_en=(
        "Creates a branch in the environment's git repository of dashboard exports; an existing branch is never "
        "overwritten."
    ),
    examples_ru=[
        "Создай ветку feature/energy-report",
        "Сделай новую ветку для правок дашборда",
        "Заведи ветку fix/titles от ветки release",
    ],
    examples_en=[
        "Create a branch feature/energy-report",
        "Make a new branch for the dashboard changes",
        "Start branch fix/titles from the release branch",
    ],
    impact=create_branch_impact,
)
async def create_branch(ctx: ToolContext, args: CreateBranchArgs) -> dict[str, Any]:
    """Create ``name`` at the head of ``base`` (the repository is created on first use).

    Returns:
        ``{"env_id", "branch", "base", "sha"}``.

    Raises:
        GitRefError: invalid name, missing base, or the branch exists already.
    """
    await ctx.superset(args.env_id)  # an unknown environment is refused before any directory is made
    return await asyncio.to_thread(gitrepo.branch_create, env_id=args.env_id, name=args.name, base=args.base)


async def commit_changes_impact(ctx: ToolContext, args: CommitChangesArgs) -> dict[str, Any]:
    """Impact of commit_changes for the confirmation card: the files the commit would add, modify or delete.

    Returns:
        ``{"summary", "objects": [{"type": "file", "name", "action"}], "counts": {"add",
        "modify", "delete"}}``.
    """
    status = await get_git_status(
        ctx, GitStatusArgs(env_id=args.env_id, dashboard_id=args.dashboard_id, branch=args.branch)
    )
    changes = gitrepo.FileChanges(**status["changes"])
    counts = {"add": len(changes.added), "modify": len(changes.modified), "delete": len(changes.removed)}
    title, branch = status.get("title") or args.dashboard_id, args.branch
    with translation.override(ctx.language):
        if changes.empty:
            summary = _(
                "No changes: branch %(branch)s already holds the export of dashboard “%(title)s”; no commit will be "
                "made."
            ) % {"branch": branch, "title": title}
        else:
            # The noun follows the last number, so it agrees with that one.
            summary = ngettext(
                "The export of dashboard “%(title)s” will be committed to %(branch)s: %(add)d new, %(modify)d "
                "modified, %(delete)d deleted file.",
                "The export of dashboard “%(title)s” will be committed to %(branch)s: %(add)d new, %(modify)d "
                "modified, %(delete)d deleted files.",
                counts["delete"],
            ) % {"title": title, "branch": branch, **counts}
    return {"summary": summary, "objects": changes.objects(), "counts": counts}


@assistant_tool(
    name="commit_changes",
    category="write",
    env_specific=True,
    args=CommitChangesArgs,
    description_ru=(
        "Выгружает дашборд из Superset, записывает распакованные YAML-файлы в ветку git-репозитория окружения и "
        "делает коммит от имени пользователя; сообщает хеш коммита и изменённые файлы."
    ),
    description_en=(
        "Commits the dashboard's export (YAML files) to a branch of the environment's git repository; returns the "
        "commit hash and changed files."
    ),
    examples_ru=[
        "Закоммить изменения дашборда",
        "Сохрани этот дашборд в git",
        "Сделай коммит в ветку feature/energy-report с сообщением «новые подписи»",
    ],
    examples_en=[
        "Commit the dashboard changes",
        "Save this dashboard to git",
        "Commit to branch feature/energy-report with the message “new labels”",
    ],
    impact=commit_changes_impact,
)
async def commit_changes(ctx: ToolContext, args: CommitChangesArgs) -> dict[str, Any]:
    """Export → write into ``dashboard-<id>/`` of the branch → commit with the Django user as author.

    Returns:
        ``{"env_id", "dashboard_id", "title", "branch", "committed", "sha" | None, "parent", "author", "message",
        "changes": {"added", "modified", "removed"}}``; ``committed`` false means there was nothing to commit.

    Raises:
        GitRefError: invalid or missing branch (create it with create_branch). UpstreamError: unknown dashboard.
    """
    client = await ctx.superset(args.env_id)
    files = await dashboard_export_files(client, args.dashboard_id)
    title = export_title(files) or str(args.dashboard_id)
    message = (args.message or "").strip() or _default_message(ctx.language, title, args.dashboard_id, args.env_id)
    author = user_identity(ctx.user)
    result = await asyncio.to_thread(
        gitrepo.export_commit,
        env_id=args.env_id,
        dashboard_id=args.dashboard_id,
        branch=args.branch,
        files=files,
        author=author,
        message=message,
    )
    return {**result, "title": title, "author": author.decode(), "message": message}


def user_identity(user: User | None) -> bytes:
    """Return the git identity of a Django user: full name (or username) and email (or username@agentchat.local);
    agentchat's own identity for a call without a user (a background job whose user was deleted)."""
    if user is None:
        return gitrepo.SERVICE_IDENTITY
    name = user.get_full_name() or user.get_username()
    email = user.email or f"{user.get_username()}@agentchat.local"
    return gitrepo.git_identity(name=name, email=email)


def _default_message(language: str, title: str, dashboard_id: int, env_id: str) -> str:
    with translation.override(language):
        return _("Export of dashboard “%(title)s” (id %(id)s) from %(env)s") % {
            "title": title,
            "id": dashboard_id,
            "env": env_id,
        }
