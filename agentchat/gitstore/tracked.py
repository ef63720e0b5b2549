"""Which dashboards a branch of an environment's export repository holds (issue 29 item 4: the repository-wide git
status asked without a dashboard). Synchronous (file I/O); async callers run it in a thread.
"""

import re
from typing import cast

from dulwich.objects import Tree

from agentchat.gitstore.repo import MAIN, _commit, branch_check, branch_head, branch_names, repo_open

_FOLDER = re.compile(r"^dashboard-(\d+)$")


def tracked_dashboards(*, env_id: str, branch: str = MAIN) -> tuple[str | None, list[int]]:
    """``(head, dashboard ids)`` of the ``dashboard-<id>/`` folders at the head of ``branch``, ids ascending; a
    repository that does not exist yet reads as empty (``(None, [])``; a read never creates it).

    Raises:
        GitRefError: invalid branch name, or the branch does not exist.
    """
    repo = repo_open(env_id=env_id, create=False)
    if repo is None:
        branch_check(branch)
        return None, []
    with repo:
        head = branch_head(repo, branch)
        tree = cast(Tree, repo[_commit(repo, head).tree])
        ids = sorted(int(m.group(1)) for entry in tree.items() if (m := _FOLDER.match(entry.path.decode())))
    return head.decode(), ids


def repository_branches(*, env_id: str) -> list[str]:
    """The branch names of ``env_id``'s export repository, sorted; [] when it does not exist yet (a read never
    creates it). «какие ветки есть в репозитории?» was answered with main's status alone (a QA check)."""
    repo = repo_open(env_id=env_id, create=False)
    if repo is None:
        return []
    with repo:
        return branch_names(repo)
