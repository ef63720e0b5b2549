"""Per-environment git repositories of unpacked dashboard exports, kept with dulwich (DESIGN §8, issue 5).

``GIT_REPOS_DIR/<env_id>`` is a bare repository. ``main`` starts with one commit holding ``README.md``. A dashboard's
export lives under ``dashboard-<id>/`` laid out as in Superset's export zip (without the zip's top folder). There is
no working tree: files are written as git objects straight into a branch's tree, so branches never need a checkout,
and concurrent commits on one branch are settled by a compare-and-swap of the branch ref. Nothing shells out to git.

All functions here are synchronous (file I/O); async callers run them in a thread.
"""

import os
import re
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast, overload

from django.conf import settings
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy
from dulwich.errors import NotTreeError
from dulwich.file import FileLocked
from dulwich.index import commit_tree
from dulwich.objects import Blob, Commit, ObjectID, Tree
from dulwich.refs import Ref
from dulwich.repo import Repo

from agentchat.errors import InvalidArguments, ToolError, message_format
from agentchat.gitstore.refs import branch_name_message, branch_name_problem

if TYPE_CHECKING:  # the stubs' type of a text or a lazy msgid (django-stubs-ext is a dev dependency)
    from django_stubs_ext import StrOrPromise

MAIN = "main"
HEADS = b"refs/heads/"
SERVICE_IDENTITY = b"agentchat <agentchat@agentchat.local>"
FILE_MODE = 0o100644
CAS_ATTEMPTS = 20  # a retry happens only when another commit landed first, so this bounds a busy branch
REF_LOCK_WAIT_S = 5.0  # how long to wait for another process's lock on a ref file
_ENV_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_WRITE_LOCKS: dict[str, threading.Lock] = {}
_WRITE_LOCKS_GUARD = threading.Lock()
README = """# Dashboard exports of the Superset environment `{env_id}`

Kept by agentchat (DESIGN §8). Each `dashboard-<id>/` folder holds the unpacked export of one dashboard
(`GET /api/v1/dashboard/export/`): `metadata.yaml`, `dashboards/`, `charts/`, `datasets/`, `databases/`.
Volatile fields (the export timestamp, generated layout ids) are normalised so an unchanged dashboard stays clean.
"""


class _Localised(ToolError):
    """Base of the errors here (a tool error: the agent explains it): ``message``, a ``gettext_lazy`` msgid with
    ``%(name)s`` placeholders filled from ``params`` (a lazy value is rendered in the same language), is rendered
    in the language asked for (``ApplicationError.text``)."""

    def __init__(self, message: "StrOrPromise", /, **params: Any):
        self.message = message
        super().__init__(message_format(message, params, "en"), **params)  # the detail (logs, audit) in English


class GitRefError(_Localised, InvalidArguments):
    """A branch that is invalid, missing or already exists."""


class GitBusy(_Localised):
    """The branch kept moving or stayed locked by other writers; nothing was changed (safe to retry)."""

    code = "upstream_unavailable"


@dataclass
class FileChanges:
    """Differences of a dashboard's folder: repository paths (``dashboard-1/charts/x.yaml``), each list sorted."""

    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.modified or self.removed)

    def as_dict(self) -> dict[str, list[str]]:
        return {"added": self.added, "modified": self.modified, "removed": self.removed}

    def objects(self) -> list[dict[str, str]]:
        """Return the changes as impact objects ``[{"type": "file", "name", "action": add|modify|delete}]``."""
        return (
            [{"type": "file", "name": p, "action": "add"} for p in self.added]
            + [{"type": "file", "name": p, "action": "modify"} for p in self.modified]
            + [{"type": "file", "name": p, "action": "delete"} for p in self.removed]
        )


def dashboard_dir(dashboard_id: int) -> str:
    """Return the repository folder of a dashboard's export: ``dashboard-<id>``."""
    return f"dashboard-{int(dashboard_id)}"


def repo_dir(env_id: str) -> Path:
    """Return ``GIT_REPOS_DIR/<env_id>``.

    Raises:
        GitRefError: ``env_id`` is not a plain slug (it becomes a directory name).
    """
    if not _ENV_ID.match(env_id or ""):
        raise GitRefError(gettext_lazy("Invalid environment id %(env)r."), env=env_id)
    return Path(settings.GIT_REPOS_DIR) / env_id


@overload
def repo_open(*, env_id: str, create: Literal[True]) -> Repo: ...
@overload
def repo_open(*, env_id: str, create: bool) -> Repo | None: ...
def repo_open(*, env_id: str, create: bool) -> Repo | None:
    """Open the repository of ``env_id``; create it with an initial commit on ``main`` when ``create`` is set.

    Returns:
        The repository, or None when it does not exist and ``create`` is False.
    """
    path = repo_dir(env_id)
    if (path / "HEAD").is_file():
        return Repo(str(path))
    if not create:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    # Build it aside and rename into place, so a concurrent first use never sees a half-made repository.
    staging = Path(tempfile.mkdtemp(prefix=f".{env_id}-", dir=path.parent))
    repo = Repo.init_bare(str(staging), default_branch=MAIN.encode())
    readme = Blob.from_string(README.format(env_id=env_id).encode())
    repo.object_store.add_object(readme)
    tree = commit_tree(repo.object_store, [(b"README.md", readme.id, FILE_MODE)])
    first = _commit_object(tree=tree, parents=[], author=SERVICE_IDENTITY, message=f"Repository of {env_id}")
    repo.object_store.add_object(first)
    repo.refs[Ref(HEADS + MAIN.encode())] = first.id
    repo.refs.set_symbolic_ref(Ref(b"HEAD"), Ref(HEADS + MAIN.encode()))
    repo.close()
    try:
        os.rename(staging, path)
    except OSError:
        if not (path / "HEAD").is_file():
            raise
        shutil.rmtree(staging, ignore_errors=True)  # another process created it first
    return Repo(str(path))


def branch_check(name: str) -> Ref:
    """Return the full ref of the branch ``name`` after checking git's ref rules.

    Raises:
        GitRefError: the name breaks a rule of ``gitstore.refs.branch_name_problem``.
    """
    problem = branch_name_problem(name)
    if problem:
        raise GitRefError(
            gettext_lazy("Invalid branch name %(name)r: %(reason)s."),
            name=name,
            reason=lazy(branch_name_message, str)(problem, None),  # rendered in the error's language
        )
    return Ref(HEADS + name.encode())


def branch_head(repo: Repo, branch: str) -> ObjectID:
    """Return the commit id the branch points at.

    Raises:
        GitRefError: invalid name or no such branch.
    """
    ref = branch_check(branch)
    try:
        return repo.refs[ref]
    except KeyError:
        raise GitRefError(
            gettext_lazy("There is no branch %(branch)r. Existing branches: %(branches)s."),
            branch=branch,
            branches=", ".join(branch_names(repo)),
        ) from None


def branch_names(repo: Repo) -> list[str]:
    """Return the repository's branch names, sorted."""
    return sorted(ref[len(HEADS) :].decode() for ref in repo.refs.allkeys() if ref.startswith(HEADS))


def branch_create(*, env_id: str, name: str, base: str = MAIN) -> dict[str, Any]:
    """Create branch ``name`` at the head of ``base`` in the repository of ``env_id`` (created on first use).

    Returns:
        ``{"env_id", "branch", "base", "sha"}``; ``sha`` is the 40-hex commit both branches point at.

    Raises:
        GitRefError: invalid name, missing base, or a branch ``name`` already exists (never moved).
    """
    ref = branch_check(name)
    repo = repo_open(env_id=env_id, create=True)
    with repo:
        head = branch_head(repo, base)
        reflog = f"branch: from {base}".encode()
        if not _ref_update(repo.refs.add_if_new, ref, head, committer=SERVICE_IDENTITY, message=reflog):
            raise GitRefError(
                gettext_lazy("Branch %(branch)r already exists in the %(env)s repository."), branch=name, env=env_id
            )
    return {"env_id": env_id, "branch": name, "base": base, "sha": head.decode()}


def folder_blobs(repo: Repo, commit_id: ObjectID, folder: str) -> dict[str, bytes]:
    """Return ``{repository path: blob id}`` of every file under ``folder`` in the commit's tree."""
    tree_id = _commit(repo, commit_id).tree
    try:
        _mode, folder_tree = cast(Tree, repo[tree_id]).lookup_path(repo.object_store.__getitem__, folder.encode())
    except (KeyError, NotTreeError):
        return {}
    if not isinstance(repo[folder_tree], Tree):
        return {}
    prefix = folder + "/"
    return {prefix + entry.path.decode(): entry.sha for entry in repo.object_store.iter_tree_contents(folder_tree)}


def changes_between(old: dict[str, bytes], new: dict[str, bytes]) -> FileChanges:
    """Compare committed blobs (``{path: blob id}``) with new contents (``{path: bytes}``)."""
    new_ids = {path: Blob.from_string(content).id for path, content in new.items()}
    return FileChanges(
        added=sorted(p for p in new_ids if p not in old),
        modified=sorted(p for p in new_ids if p in old and old[p] != new_ids[p]),
        removed=sorted(p for p in old if p not in new_ids),
    )


def export_status(*, env_id: str, dashboard_id: int, branch: str, files: dict[str, bytes]) -> dict[str, Any]:
    """Compare a dashboard's current export (``files``: paths inside the export → bytes) with the branch.

    A repository that does not exist yet reads as empty (a read never creates it).

    Returns:
        ``{"env_id", "dashboard_id", "branch", "folder", "head", "tracked", "committed", "changes":
        {"added", "modified", "removed"}, "last_commit": {"sha", "message", "author", "time"} | None}``;
        ``committed`` is true when the folder on the branch equals the export file for file.

    Raises:
        GitRefError: invalid branch name, or the branch does not exist.
    """
    folder = dashboard_dir(dashboard_id)
    new = {f"{folder}/{path}": content for path, content in files.items()}
    repo = repo_open(env_id=env_id, create=False)
    if repo is None:
        if branch != MAIN:
            branch_check(branch)
            raise GitRefError(gettext_lazy("There is no branch %(branch)r."), branch=branch)
        head, old, last = None, {}, None
    else:
        with repo:
            head = branch_head(repo, branch)
            old = folder_blobs(repo, head, folder)
            last = _last_commit(repo, head, folder) if old else None
    changes = changes_between(old, new)
    return {
        "env_id": env_id,
        "dashboard_id": dashboard_id,
        "branch": branch,
        "folder": folder,
        "head": head.decode() if head else None,
        "tracked": bool(old),
        "committed": bool(old) and changes.empty,
        "changes": changes.as_dict(),
        "last_commit": last,
    }


def export_commit(
    *, env_id: str, dashboard_id: int, branch: str, files: dict[str, bytes], author: bytes, message: str
) -> dict[str, Any]:
    """Write a dashboard's export into ``dashboard-<id>/`` of ``branch`` and commit it as ``author``.

    The folder is replaced as a whole (files gone from the export are removed). The branch moves only if it still
    points at the commit the new one was built on; otherwise the commit is rebuilt on the new head (bounded).

    Args:
        files: paths inside the export (``charts/x.yaml``) → normalised bytes.
        author: git identity ``b"Name <email>"`` (see ``git_identity``); the committer is agentchat.
        message: the commit message.

    Returns:
        ``{"env_id", "dashboard_id", "branch", "committed": bool, "sha" | None, "parent", "changes"}``;
        ``committed`` is false (and nothing is written) when the branch already holds exactly these files.

    Raises:
        GitRefError: invalid or missing branch.
        GitBusy: the branch kept moving for ``CAS_ATTEMPTS`` attempts or stayed locked (nothing committed).
    """
    folder = dashboard_dir(dashboard_id)
    new = {f"{folder}/{path}": content for path, content in files.items()}
    ref = branch_check(branch)
    repo = repo_open(env_id=env_id, create=True)
    with repo, _write_lock(repo.path):
        for _attempt in range(CAS_ATTEMPTS):
            head = branch_head(repo, branch)
            changes = changes_between(folder_blobs(repo, head, folder), new)
            result = {"env_id": env_id, "dashboard_id": dashboard_id, "branch": branch, "parent": head.decode()}
            if changes.empty:
                return {**result, "committed": False, "sha": None, "changes": changes.as_dict()}
            tree = _tree_with_folder(repo, head, folder, new)
            commit = _commit_object(tree=tree, parents=[head], author=author, message=message)
            repo.object_store.add_object(commit)
            reflog = b"commit: " + _first_line(message)
            if _ref_update(repo.refs.set_if_equals, ref, head, commit.id, committer=author, message=reflog):
                return {**result, "committed": True, "sha": commit.id.decode(), "changes": changes.as_dict()}
    raise GitBusy(
        gettext_lazy(
            "Branch %(branch)s of the %(env)s repository kept moving under other commits; nothing committed, retry."
        ),
        branch=branch,
        env=env_id,
    )


def git_identity(*, name: str, email: str) -> bytes:
    """Return ``b"Name <email>"`` with the characters git forbids in identities (``<>``, newlines) removed."""
    clean_name = re.sub(r"[<>\x00-\x1f]", "", name).strip() or "unknown"
    clean_email = re.sub(r"[<>\s]", "", email) or "unknown@agentchat.local"
    return f"{clean_name} <{clean_email}>".encode()


def _tree_with_folder(repo: Repo, head: ObjectID, folder: str, new: dict[str, bytes]) -> ObjectID:
    """Return the id of ``head``'s tree with ``folder`` replaced by the files of ``new``."""
    prefix = folder.encode() + b"/"
    entries = [
        (entry.path, entry.sha, entry.mode)
        for entry in repo.object_store.iter_tree_contents(_commit(repo, head).tree)
        if not entry.path.startswith(prefix)
    ]
    for path, content in new.items():
        blob = Blob.from_string(content)
        repo.object_store.add_object(blob)
        entries.append((path.encode(), blob.id, FILE_MODE))
    return commit_tree(repo.object_store, entries)


def _ref_update(update: Callable[..., bool], *args: Any, **kwargs: Any) -> bool:
    """Run a ref update (``add_if_new``/``set_if_equals``), waiting out another process's lock on the ref file.

    Raises:
        GitBusy: still locked after ``REF_LOCK_WAIT_S`` seconds.
    """
    deadline = time.monotonic() + REF_LOCK_WAIT_S
    delay = 0.01
    while True:
        try:
            return update(*args, **kwargs)
        except FileLocked:
            if time.monotonic() > deadline:
                raise GitBusy(
                    gettext_lazy("The branch is locked by another process; nothing changed, retry.")
                ) from None
            time.sleep(delay)
            delay = min(delay * 2, 0.2)


def _commit_object(*, tree: ObjectID, parents: list[ObjectID], author: bytes, message: str) -> Commit:
    commit = Commit()
    commit.tree = tree
    commit.parents = parents
    commit.author = author
    commit.committer = SERVICE_IDENTITY
    commit.author_time = commit.commit_time = int(time.time())
    commit.author_timezone = commit.commit_timezone = 0
    commit.encoding = b"UTF-8"
    commit.message = message.encode() if message.endswith("\n") else (message + "\n").encode()
    return commit


def _commit(repo: Repo, commit_id: ObjectID) -> Commit:
    # A branch head (or a commit's parent) is a commit object; dulwich types ``repo[id]`` as any object.
    return cast(Commit, repo[commit_id])


def _last_commit(repo: Repo, head: ObjectID, folder: str) -> dict[str, Any] | None:
    """Return the newest commit reachable from ``head`` that changed ``folder``."""
    for entry in repo.get_walker(include=[head], paths=[folder.encode()], max_entries=1):
        commit = entry.commit
        return {
            "sha": commit.id.decode(),
            "message": commit.message.decode("utf-8", "replace").strip(),
            "author": commit.author.decode("utf-8", "replace"),
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(commit.author_time)),
        }
    return None


def _first_line(message: str) -> bytes:
    return message.strip().splitlines()[0].encode()[:200] if message.strip() else b""


def _write_lock(path: str) -> threading.Lock:
    with _WRITE_LOCKS_GUARD:
        return _WRITE_LOCKS.setdefault(path, threading.Lock())
