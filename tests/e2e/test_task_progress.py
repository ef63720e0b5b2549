"""The /agent page draws the progress of a background task and follows it to the end (frontend/js/tasks.js)."""

import psycopg
from playwright.sync_api import expect

from tests.support.browser import login
from tests.support.wording import ptext, text


def _task_create(server, username: str) -> int:
    with psycopg.connect(server.env["DATABASE_URL"], autocommit=True) as conn:
        (user_id,) = conn.execute("SELECT id FROM auth_user WHERE username = %s", (username,)).fetchone()
        (task_id,) = conn.execute(
            "INSERT INTO agentchat_taskrecord (kind, user_id, env_id, params, state, progress, message, error,"
            " task_result_id, created_at, updated_at)"
            " VALUES ('backup', %s, 'ss-dev', '{}', 'queued', 0, '', '', '', now(), now()) RETURNING id",
            (user_id,),
        ).fetchone()
    return task_id


def _task_update(server, task_id: int, *, state: str, progress: int, message: str) -> None:
    with psycopg.connect(server.env["DATABASE_URL"], autocommit=True) as conn:
        conn.execute(
            "UPDATE agentchat_taskrecord SET state = %s, progress = %s, message = %s, updated_at = now() WHERE id = %s",
            (state, progress, message, task_id),
        )


def test_progress_bar_follows_a_running_task(page, app_server):
    # given the engineer's queued backup and the chat page
    task_id = _task_create(app_server, "engineer")
    login(page, app_server, "engineer")
    page.goto(app_server.url + "/agent")
    page.wait_for_selector("body[data-ws=open]")

    # when the page is told about the task (as on a tool_finished frame with a task id)
    page.evaluate(
        "id => window.AgentTasks.track(id, document.getElementById('messages').appendChild("
        "document.createElement('div')))",
        task_id,
    )
    box = page.locator(f"[data-testid=task-progress][data-task-id='{task_id}']")

    # then the bar shows the task's state as it moves
    expect(box.get_by_test_id("task-state")).to_have_text("в очереди · 0 %")
    _task_update(app_server, task_id, state="running", progress=40, message="8/20")
    expect(box.get_by_test_id("task-state")).to_have_text("выполняется · 40 %")
    expect(box.get_by_test_id("task-message")).to_have_text("8/20")
    expect(box.get_by_test_id("task-bar")).to_have_js_property("value", 40)
    _task_update(app_server, task_id, state="succeeded", progress=100, message="20/20")
    expect(box.get_by_test_id("task-state")).to_have_text("готово · 100 %")
    expect(box).to_have_attribute("data-state", "succeeded")
    # and the title names the kind in the page's language («Задача #N (резервная копия)»), not the stored code
    title = text("ru", "Task #%(id)s (%(kind)s)", id=task_id, kind=ptext("ru", "task kind", "backup"))
    expect(box.locator(".task-title")).to_have_text(title)


def test_someone_elses_task_shows_no_bar(page, app_server):
    task_id = _task_create(app_server, "admin")
    login(page, app_server, "analyst")
    page.goto(app_server.url + "/agent")
    page.wait_for_selector("body[data-ws=open]")

    created = page.evaluate(
        "id => !!window.AgentTasks.track(id, document.getElementById('messages').appendChild("
        "document.createElement('div')))",
        task_id,
    )

    # the placeholder was drawn, the API answers 404, so it disappears
    assert created is True
    expect(page.locator(f"[data-testid=task-progress][data-task-id='{task_id}']")).to_have_count(0)
