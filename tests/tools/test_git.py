"""Git tools against the local Superset: commit_changes, get_git_status, create_branch (DESIGN §8, issue 5)."""

import pytest
from dulwich.repo import Repo

from agentchat.gitstore import repo as gitrepo
from agentchat.llm.offline.answers import answer_from_result
from agentchat.runtime.registry import tool_spec
from tests.support.superset_api import raw_export, superset
from tests.support.superset_scratch import scratch, unique
from tests.support.tool_runs import call_tool, tool_impact
from tests.support.wording import plural, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def repos(settings, tmp_path):
    settings.GIT_REPOS_DIR = tmp_path / "git"
    return tmp_path / "git"


@pytest.fixture
def test_dashboard(superset_stack):
    """A dashboard with two charts made for the test (no saved layout, so Superset generates one on export)."""
    with scratch() as made:
        n = unique()
        dashboard_id = made.dashboard("ss-dev", f"Git test {n}", tagged=False)["id"]
        made.chart("ss-dev", f"Git chart A {n}", [dashboard_id], description="first", tagged=False)
        made.chart("ss-dev", f"Git chart B {n}", [dashboard_id], tagged=False)
        yield dashboard_id


def committed_files(repo: Repo, sha: str, dashboard_id: int) -> dict[str, bytes]:
    folder = gitrepo.dashboard_dir(dashboard_id)
    blobs = gitrepo.folder_blobs(repo, sha.encode(), folder)
    return {path[len(folder) + 1 :]: repo[blob].data for path, blob in blobs.items()}


def test_commit_puts_export_on_branch_with_user_as_author(users, repos, test_dashboard):
    """After commit_changes the commit is on main, authored by the user, and holds the export's files."""
    outcome = call_tool("commit_changes", {"env_id": "ss-dev", "dashboard_id": test_dashboard}, users["engineer"])
    assert outcome.ok, outcome.error_message
    result = outcome.result
    assert result["committed"] is True

    repo = Repo(str(repos / "ss-dev"))
    assert repo.refs[b"refs/heads/main"].decode() == result["sha"]
    commit = repo[result["sha"].encode()]
    assert commit.author == b"engineer <engineer@agentchat.local>"
    assert "Git test" in commit.message.decode()
    files = committed_files(repo, result["sha"], test_dashboard)
    export = raw_export("ss-dev", test_dashboard)
    assert set(files) == set(export)
    charts = [path for path in export if path.startswith(("charts/", "datasets/", "databases/"))]
    assert len([p for p in charts if p.startswith("charts/")]) == 2
    for path in charts:  # not volatile: byte for byte what Superset exports
        assert files[path] == export[path]
    assert sorted(result["changes"]["added"]) == sorted(f"dashboard-{test_dashboard}/{p}" for p in export)


def test_author_uses_full_name_and_email_when_set(users, repos, test_dashboard):
    engineer = users["engineer"]
    engineer.first_name, engineer.last_name, engineer.email = "Ирина", "Петрова", "irina@example.com"
    engineer.save()
    outcome = call_tool("commit_changes", {"env_id": "ss-dev", "dashboard_id": test_dashboard}, engineer)
    commit = Repo(str(repos / "ss-dev"))[outcome.result["sha"].encode()]
    assert commit.author == "Ирина Петрова <irina@example.com>".encode()


def test_status_is_clean_after_commit_and_dirty_after_a_change_in_superset(users, repos, test_dashboard):
    # As engineer: the test's dashboard is a draft engineer owns (Superset shows drafts only to their owners).
    args = {"env_id": "ss-dev", "dashboard_id": test_dashboard}
    before = call_tool("get_git_status", args, users["engineer"]).result
    assert before["tracked"] is False
    assert before["committed"] is False
    assert not (repos / "ss-dev").exists()  # a read does not create the repository

    call_tool("commit_changes", args, users["engineer"])
    for _ in range(2):  # unchanged dashboard: clean on every fresh export (volatile fields normalised)
        clean = call_tool("get_git_status", args, users["engineer"]).result
        assert clean["committed"] is True
        assert clean["changes"] == {"added": [], "modified": [], "removed": []}

    with superset("ss-dev") as client:
        client.put(f"/api/v1/dashboard/{test_dashboard}", json={"css": ".x { color: red; }"}).raise_for_status()
    dirty = call_tool("get_git_status", args, users["engineer"]).result
    assert dirty["committed"] is False
    dashboard_file = next(p for p in raw_export("ss-dev", test_dashboard) if p.startswith("dashboards/"))
    assert dirty["changes"]["modified"] == [f"dashboard-{test_dashboard}/{dashboard_file}"]
    assert dirty["changes"]["added"] == []
    answer = answer_from_result("get_git_status", dirty, "ru")
    uncommitted = plural(
        "ru",
        "there are uncommitted changes against %(branch)s: %(modified)d modified, %(added)d added, "
        "%(removed)d removed file",
        "there are uncommitted changes against %(branch)s: %(modified)d modified, %(added)d added, "
        "%(removed)d removed files",
        0,
        branch="main",
        modified=1,
        added=0,
        removed=0,
    )
    assert f": {uncommitted}.\n" in answer
    assert dashboard_file in answer

    again = call_tool("commit_changes", args, users["engineer"]).result
    assert again["changes"]["modified"] == dirty["changes"]["modified"]
    assert call_tool("get_git_status", args, users["engineer"]).result["committed"] is True


def test_second_commit_without_changes_says_nothing_to_commit(users, repos, test_dashboard):
    args = {"env_id": "ss-dev", "dashboard_id": test_dashboard}
    first = call_tool("commit_changes", args, users["engineer"]).result
    second = call_tool("commit_changes", args, users["engineer"], language="en").result
    assert second["committed"] is False
    assert second["sha"] is None
    assert Repo(str(repos / "ss-dev")).refs[b"refs/heads/main"].decode() == first["sha"]
    assert "Nothing to commit" in answer_from_result("commit_changes", second, "en")


def test_commit_impact_lists_the_files_that_would_change(users, repos, test_dashboard):
    args = {"env_id": "ss-dev", "dashboard_id": test_dashboard}
    impact = tool_impact("commit_changes", args, users["engineer"])
    export = raw_export("ss-dev", test_dashboard)
    assert impact["counts"] == {"add": len(export), "modify": 0, "delete": 0}
    assert {o["name"] for o in impact["objects"]} == {f"dashboard-{test_dashboard}/{p}" for p in export}
    assert {o["action"] for o in impact["objects"]} == {"add"}

    title = call_tool("commit_changes", args, users["engineer"]).result["title"]
    with superset("ss-dev") as client:
        client.put(f"/api/v1/dashboard/{test_dashboard}", json={"css": "/* v2 */"}).raise_for_status()
    impact = tool_impact("commit_changes", args, users["engineer"])
    assert impact["counts"] == {"add": 0, "modify": 1, "delete": 0}
    assert impact["objects"][0]["action"] == "modify"
    assert impact["summary"] == plural(
        "ru",
        "The export of dashboard “%(title)s” will be committed to %(branch)s: %(add)d new, %(modify)d "
        "modified, %(delete)d deleted file.",
        "The export of dashboard “%(title)s” will be committed to %(branch)s: %(add)d new, %(modify)d "
        "modified, %(delete)d deleted files.",
        0,
        title=title,
        branch="main",
        add=0,
        modify=1,
        delete=0,
    )


def test_branch_is_created_and_commits_on_it_leave_main_alone(users, repos, test_dashboard):
    engineer = users["engineer"]
    created = call_tool("create_branch", {"env_id": "ss-dev", "name": "feature/energy"}, engineer)
    assert created.ok, created.error_message
    main_head = created.result["sha"]
    outcome = call_tool(
        "commit_changes",
        {"env_id": "ss-dev", "dashboard_id": test_dashboard, "branch": "feature/energy", "message": "новые подписи"},
        engineer,
    )
    repo = Repo(str(repos / "ss-dev"))
    assert repo.refs[b"refs/heads/feature/energy"].decode() == outcome.result["sha"]
    assert repo.refs[b"refs/heads/main"].decode() == main_head
    assert repo[outcome.result["sha"].encode()].message == "новые подписи\n".encode()
    on_main = call_tool("get_git_status", {"env_id": "ss-dev", "dashboard_id": test_dashboard}, engineer).result
    assert on_main["tracked"] is False
    on_branch = call_tool(
        "get_git_status", {"env_id": "ss-dev", "dashboard_id": test_dashboard, "branch": "feature/energy"}, engineer
    ).result
    assert on_branch["committed"] is True


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("-rf", "a branch name cannot start with “-”"),
        ("a..b", "a branch name cannot contain “..”"),
        ("feature/", "a branch name cannot start or end with “/” or contain “//”"),
        ("x.lock", "the parts of a branch name between “/” cannot end with “.lock”"),
        ("a b", "a branch name cannot contain a space or any of ~ ^ : ? * [ \\"),
        ("@{1}", "a branch name cannot contain “@{”"),
    ],
)
def test_invalid_branch_names_are_refused_in_the_users_language(users, repos, name, reason):
    outcome = call_tool("create_branch", {"env_id": "ss-dev", "name": name}, users["engineer"])
    assert outcome.ok is False
    assert outcome.error_code == "invalid_args"
    assert outcome.error_message == text(
        "ru", "Invalid branch name %(name)r: %(reason)s.", name=name, reason=text("ru", reason)
    )
    english = call_tool("create_branch", {"env_id": "ss-dev", "name": name}, users["engineer"], language="en")
    assert "branch name" in english.error_message


def test_existing_branch_and_missing_base_are_refused(users, repos):
    engineer = users["engineer"]
    assert call_tool("create_branch", {"env_id": "ss-dev", "name": "release"}, engineer).ok
    again = call_tool("create_branch", {"env_id": "ss-dev", "name": "release"}, engineer)
    assert again.error_code == "invalid_args"
    exists = "Branch %(branch)r already exists in the %(env)s repository."
    assert again.error_message == text("ru", exists, branch="release", env="ss-dev")
    main = call_tool("create_branch", {"env_id": "ss-dev", "name": "main"}, engineer)
    assert main.error_message == text("ru", exists, branch="main", env="ss-dev")
    missing = call_tool("create_branch", {"env_id": "ss-dev", "name": "x", "base": "nope"}, engineer, language="en")
    assert "There is no branch 'nope'" in missing.error_message


def test_commit_to_a_missing_branch_is_refused(users, repos, test_dashboard):
    outcome = call_tool(
        "commit_changes", {"env_id": "ss-dev", "dashboard_id": test_dashboard, "branch": "nope"}, users["engineer"]
    )
    assert outcome.error_code == "invalid_args"
    assert "nope" in outcome.error_message


def test_unknown_environment_is_an_argument_error_not_a_path(users, repos):
    outcome = call_tool("create_branch", {"env_id": "../../etc", "name": "x"}, users["engineer"])
    assert outcome.error_code == "invalid_args"
    assert not repos.exists()


@pytest.mark.superset  # asks ss-dev for the dashboard
def test_unknown_dashboard_is_a_clear_upstream_error(users, repos):
    outcome = call_tool("get_git_status", {"env_id": "ss-dev", "dashboard_id": 999999}, users["analyst"])
    assert outcome.ok is False
    assert outcome.error_code == "upstream_error"


def test_git_tools_registered_as_design_table():
    expected = {"get_git_status": "read", "create_branch": "write", "commit_changes": "write"}
    for name, category in expected.items():
        spec = tool_spec(name)
        assert spec.category == category
        assert spec.env_specific is True
        assert len(spec.examples_ru) >= 3
        assert len(spec.examples_en) >= 3
    assert tool_spec("commit_changes").impact is not None
