"""The per-environment export repository (dulwich): first use, branches, commits, status, concurrent writers."""

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import pytest
from dulwich.repo import Repo

from agentchat.gitstore import repo as gitrepo
from agentchat.gitstore.repo import GitRefError
from tests.support.wording import text

AUTHOR = b"engineer <engineer@agentchat.local>"


@pytest.fixture
def repos(settings, tmp_path):
    settings.GIT_REPOS_DIR = tmp_path / "git"
    return tmp_path / "git"


def export(title: str = "Energy", chart: str = "a") -> dict[str, bytes]:
    return {
        "metadata.yaml": b"version: 1.0.0\ntype: Dashboard\n",
        "dashboards/1.yaml": f"dashboard_title: {title}\n".encode(),
        "charts/a_1.yaml": f"slice_name: {chart}\n".encode(),
    }


def commit(dashboard_id: int = 1, branch: str = "main", files: dict | None = None) -> dict:
    return gitrepo.export_commit(
        env_id="ss-dev",
        dashboard_id=dashboard_id,
        branch=branch,
        files=files if files is not None else export(),
        author=AUTHOR,
        message="export",
    )


def test_repository_is_created_on_first_write_with_initial_commit_on_main(repos):
    assert gitrepo.repo_open(env_id="ss-dev", create=False) is None
    result = commit()
    repo = Repo(str(repos / "ss-dev"))
    assert repo.refs.read_ref(b"HEAD") == b"ref: refs/heads/main"
    head = repo[repo.refs[b"refs/heads/main"]]
    assert head.id.decode() == result["sha"]
    first = repo[head.parents[0]]
    assert first.parents == []
    assert b"README.md" in repo[first.tree]


def test_reading_status_does_not_create_the_repository(repos):
    status = gitrepo.export_status(env_id="ss-dev", dashboard_id=1, branch="main", files=export())
    assert not (repos / "ss-dev").exists()
    assert status["tracked"] is False
    assert status["committed"] is False
    assert status["changes"]["added"] == [
        "dashboard-1/charts/a_1.yaml",
        "dashboard-1/dashboards/1.yaml",
        "dashboard-1/metadata.yaml",
    ]


def test_commit_writes_files_under_dashboard_folder_with_author(repos):
    result = commit(dashboard_id=7)
    repo = Repo(str(repos / "ss-dev"))
    head = repo[result["sha"].encode()]
    assert head.author == AUTHOR
    assert head.committer == gitrepo.SERVICE_IDENTITY
    blobs = gitrepo.folder_blobs(repo, head.id, "dashboard-7")
    assert {path: repo[sha].data for path, sha in blobs.items()} == {
        f"dashboard-7/{path}": content for path, content in export().items()
    }


def test_second_identical_commit_is_nothing_to_commit(repos):
    first = commit()
    second = commit()
    assert first["committed"] is True
    assert second == {**second, "committed": False, "sha": None, "parent": first["sha"]}
    assert gitrepo.export_status(env_id="ss-dev", dashboard_id=1, branch="main", files=export())["committed"]


def test_status_lists_modified_added_and_removed_paths(repos):
    commit()
    files = export(title="Renamed")
    files.pop("charts/a_1.yaml")
    files["charts/b_2.yaml"] = b"slice_name: b\n"
    status = gitrepo.export_status(env_id="ss-dev", dashboard_id=1, branch="main", files=files)
    assert status["committed"] is False
    assert status["tracked"] is True
    assert status["changes"] == {
        "added": ["dashboard-1/charts/b_2.yaml"],
        "modified": ["dashboard-1/dashboards/1.yaml"],
        "removed": ["dashboard-1/charts/a_1.yaml"],
    }
    after = commit(files=files)
    assert after["changes"] == status["changes"]
    assert gitrepo.export_status(env_id="ss-dev", dashboard_id=1, branch="main", files=files)["committed"]


def test_branch_is_created_from_base_and_commits_stay_on_it(repos):
    base = commit()
    created = gitrepo.branch_create(env_id="ss-dev", name="feature/x", base="main")
    assert created["sha"] == base["sha"]
    on_branch = commit(branch="feature/x", files=export(chart="changed"))
    repo = Repo(str(repos / "ss-dev"))
    assert repo.refs[b"refs/heads/main"].decode() == base["sha"]
    assert repo.refs[b"refs/heads/feature/x"].decode() == on_branch["sha"]
    assert gitrepo.branch_names(repo) == ["feature/x", "main"]


def test_existing_missing_and_invalid_branches_are_refused(repos):
    commit()
    with pytest.raises(GitRefError) as exists:
        gitrepo.branch_create(env_id="ss-dev", name="main")
    exists_text = "Branch %(branch)r already exists in the %(env)s repository."
    assert exists.value.text("ru") == text("ru", exists_text, branch="main", env="ss-dev")
    assert exists.value.text("en") == "Branch 'main' already exists in the ss-dev repository."
    with pytest.raises(GitRefError) as missing:
        gitrepo.branch_create(env_id="ss-dev", name="x", base="nope")
    assert "nope" in missing.value.text("en")
    with pytest.raises(GitRefError):
        commit(branch="nope")
    with pytest.raises(GitRefError) as invalid:
        gitrepo.branch_create(env_id="ss-dev", name="a..b")
    reason = text("ru", "a branch name cannot contain “..”")
    assert invalid.value.text("ru") == text(
        "ru", "Invalid branch name %(name)r: %(reason)s.", name="a..b", reason=reason
    )
    assert invalid.value.text("en") == "Invalid branch name 'a..b': a branch name cannot contain “..”."


def test_environment_id_cannot_escape_the_repositories_directory(repos):
    for env_id in ("../x", "a/b", "", ".hidden"):
        with pytest.raises(GitRefError):
            gitrepo.repo_dir(env_id)


def _commit_in_process(dashboard_id: int) -> str:
    return commit(dashboard_id=dashboard_id, files=export(title=f"d{dashboard_id}"))["sha"]


@pytest.mark.processes  # a pool of forked writer processes
def test_concurrent_writers_in_separate_processes_all_land_on_main(repos):
    """Web processes and workers commit to one branch: each commit is kept (ref compare-and-swap, no lost update)."""
    commit(dashboard_id=100)  # the repository exists before the race
    ids = list(range(1, 7))
    with ProcessPoolExecutor(max_workers=3, mp_context=multiprocessing.get_context("fork")) as pool:
        shas = list(pool.map(_commit_in_process, ids))
    repo = Repo(str(repos / "ss-dev"))
    head = repo.refs[b"refs/heads/main"]
    history = [entry.commit.id.decode() for entry in repo.get_walker(include=[head])]
    assert set(shas) <= set(history)
    assert len(history) == 1 + 1 + len(ids)  # initial + dashboard 100 + one per writer
    for dashboard_id in ids:
        assert gitrepo.folder_blobs(repo, head, f"dashboard-{dashboard_id}")
