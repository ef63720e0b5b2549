"""What the product answers without an id (issue 29 item 4), on the local pair: the person's latest background task
(and the latest of a kind), the whole repository's git status with no dashboard page, and a branch named after the
work item — offline, and on the OpenAI-compatible path (a scripted model) where it differs.
"""

import asyncio
import time

import pytest
from channels.db import database_sync_to_async

from agentchat.runtime.executor import tool_execute
from agentchat.runtime.registry import tool_spec
from agentchat.turn.agent import AgentTurn
from tests.llm.test_provider import branches, openai_provider  # noqa: F401 - the scripted-LLM fixture
from tests.support.chat_server import Call, call_then_answer
from tests.support.contexts import ui_context
from tests.support.frames import Frames, stored_answer
from tests.support.superset_api import superset
from tests.support.wording import plural, ptext, text

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.superset]

SETTINGS_PAGE = ui_context(None, None, env_id=None, route="/settings/")


async def _run(tool: str, args: dict, user):
    return await tool_execute(
        spec=tool_spec(tool), args=args, user=user, conversation_id=None, ui_context=None, language="ru"
    )


async def _finished(task_id: int, user, deadline_s: float = 180) -> dict:
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        status = (await _run("get_task_status", {"task_id": task_id}, user)).result
        if status["state"] in ("succeeded", "failed"):
            return status
        await asyncio.sleep(0.2)
    raise AssertionError(f"task {task_id} did not finish")


async def _ask(user, question: str, context: dict | None) -> tuple[Frames, str]:
    frames = Frames()
    conversation_id = await AgentTurn(user=user, emit=frames).run(conversation_id=None, text=question, context=context)
    return frames, await database_sync_to_async(stored_answer)(conversation_id)


async def test_the_latest_task_is_the_persons_own_and_the_latest_of_a_kind(users, backup_dir, openai_provider):  # noqa: F811
    # given the engineer's finished backup of ss-dev, then the admin's later backup of prod
    mine = await _run("run_backup", {"env_id": "ss-dev"}, users["engineer"])
    assert mine.ok, mine.error_message
    await _finished(mine.result["task_id"], users["engineer"])
    theirs = await _run("run_backup", {"env_id": "prod"}, users["admin"])
    assert theirs.ok, theirs.error_message
    task = mine.result["task_id"]

    # when the engineer asks without an id, offline, from the settings page (no page object, no environment)
    frames, answer = await _ask(users["engineer"], "статус моей последней задачи", SETTINGS_PAGE)
    frames_en, answer_en = await _ask(users["engineer"], "did my backup finish?", SETTINGS_PAGE)
    _frames, none_yet = await _ask(users["engineer"], "статус последней миграции", SETTINGS_PAGE)

    # then the answer is the engineer's own backup, not the admin's later one, and nobody was asked for an id
    assert [f["tool"] for f in frames.of("tool_started")] == ["get_task_status"]
    assert f"#{task}" in answer
    assert f"#{theirs.result['task_id']}" not in answer
    latest = "Your latest task #%(task)s (%(kind)s, started %(when)s): %(state)s, %(progress)s %%."
    assert answer.startswith(text("ru", latest, task=task, kind="", when="", state="", progress=0).split("(")[0])
    assert ptext("ru", "task state", "succeeded") in answer
    assert [f["tool"] for f in frames_en.of("tool_started")] == ["get_task_status"]
    assert f"#{task}" in answer_en
    assert answer_en.startswith("Your latest task")
    kind = text("ru", "You have started no background task of this kind (%(kind)s) yet.", kind="")
    assert none_yet.startswith(kind.split("(")[0])

    # and on the OpenAI-compatible path a call without task_id gets the same task
    told: list[dict] = []
    openai_provider(default=call_then_answer(Call("get_task_status", {"kind": "backup"}), "Готово.", told))
    await _ask(users["engineer"], "как там мой последний бэкап?", SETTINGS_PAGE)
    facts = told[0]["facts"]  # the labelled facts a model reads (issue 32 item 5)
    assert facts.startswith(text("ru", latest, task=task, kind="", when="", state="", progress=0).split("(")[0])
    assert f"#{task}" in facts


@pytest.fixture
def repos(settings, tmp_path):
    settings.GIT_REPOS_DIR = tmp_path / "git"
    return tmp_path / "git"


async def test_uncommitted_changes_asked_with_no_page_read_the_whole_repository(users, repos, scratch, openai_provider):  # noqa: F811
    # given two dashboards committed to ss-dev's repository, one of them changed in Superset since
    clean = scratch.dashboard("ss-dev", "Репо чистый", slug="repo-clean")
    changed = scratch.dashboard("ss-dev", "Репо изменённый", slug="repo-changed")
    for dashboard in (clean, changed):
        done = await _run("commit_changes", {"env_id": "ss-dev", "dashboard_id": dashboard["id"]}, users["engineer"])
        assert done.ok, done.error_message
    with superset("ss-dev") as client:
        client.put(f"/api/v1/dashboard/{changed['id']}", json={"css": ".x { color: red; }"}).raise_for_status()

    # when the engineer asks with no dashboard page (the settings page, ss-dev picked)
    frames, answer = await _ask(
        users["engineer"], "есть ли незакоммиченные изменения?", ui_context(None, None, env_id="ss-dev")
    )

    # then the whole repository is read: the changed one named, the clean one clean, the others not in git
    assert [f["tool"] for f in frames.of("tool_started")] == ["get_git_status"]
    head = plural(
        "ru",
        "The %(env)s repository (%(branch)s): %(count)d dashboard has uncommitted changes.",
        "The %(env)s repository (%(branch)s): %(count)d dashboards have uncommitted changes.",
        1,
        env="ss-dev",
        branch="main",
        count=1,
    )
    assert answer.startswith(head), answer
    assert f"«{changed['dashboard_title']}» (id {changed['id']})" in answer
    assert f"«{clean['dashboard_title']}» (id {clean['id']}): " in answer
    assert "«Отчёт по энергопотреблению»" in answer  # seeded, never committed here

    # and a model that calls get_git_status without a dashboard gets the same repository
    told: list[dict] = []
    openai_provider(default=call_then_answer(Call("get_git_status", {"env_id": "ss-dev"}), "Есть изменения.", told))
    await _ask(users["engineer"], "есть ли незакоммиченные изменения?", ui_context(None, None, env_id="ss-dev"))
    facts = told[0]["facts"]  # the labelled facts a model reads (issue 32 item 5)
    assert facts.startswith(head)
    assert f"«{changed['dashboard_title']}» (id {changed['id']})" in facts


async def test_a_branch_for_a_work_item_is_named_after_it(users, repos, scratch):
    dashboard = scratch.dashboard("ss-dev", "Ветки", slug="branches")
    page = ui_context("dashboard", dashboard["id"], name=dashboard["dashboard_title"])

    for question, name in (
        ("открой ветку под задачу 123", "feature/123"),
        ("create a branch for ticket BI-77", "feature/BI-77"),
    ):
        frames = Frames()
        await AgentTurn(user=users["engineer"], emit=frames).run(conversation_id=None, text=question, context=page)
        (card,) = frames.of("confirm_required")
        assert card["tool"] == "create_branch"
        assert name in card["html"]
        await AgentTurn(user=users["engineer"], emit=frames).decide(
            confirmation_id=card["confirmation_id"], approve=True
        )

    assert {"feature/123", "feature/BI-77"} <= set(await branches("ss-dev"))


async def test_the_repository_s_branches_are_listed_with_its_status(users, repos):
    """«какие ветки есть в репозитории выгрузок?» with no page got main's status and no branch named (a QA check)."""
    made = await _run("create_branch", {"env_id": "ss-dev", "name": "feature/q4-review"}, users["engineer"])
    assert made.ok, made.error_message

    frames, answer = await _ask(
        users["engineer"], "какие ветки есть в репозитории выгрузок?", ui_context(None, None, env_id="ss-dev")
    )

    assert [f["tool"] for f in frames.of("tool_started")] == ["get_git_status"]
    assert text("ru", "Branches: %(names)s", names="feature/q4-review, main") in answer, answer
