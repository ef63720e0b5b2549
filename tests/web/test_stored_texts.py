"""Stored texts render in the reader's language, not the writer's, and a failed call keeps Superset's own words
for its detail (issue 30 item 3): a migration's last preview on an English page after a Russian turn stored it,
with object types and planned actions as labels; a reloaded conversation's failed tool line."""

import json

import pytest
from django.test import Client

from agentchat.models import Conversation, Message, Migration, TaskRecord
from agentchat.web.migrations import preview_shown
from tests.support.contexts import DASHBOARD_1
from tests.support.wording import text

pytestmark = pytest.mark.django_db

PREVIEW = {
    "summary": "1 дашборд будет изменён в prod.",
    "summaries": {"ru": "1 дашборд будет изменён в prod.", "en": "1 dashboard will be changed in prod."},
    "objects": [
        {"type": "dashboard", "name": "Отчёт", "action": "overwrite"},
        {"type": "chart", "name": "Потребление", "action": "create"},
    ],
}


@pytest.mark.parametrize(("language", "summary"), [("ru", "1 дашборд будет изменён в prod."), ("en", "1 dashboard")])
def test_a_stored_preview_is_shown_in_the_reader_s_language_with_labels(users, language, summary):
    migration = Migration.objects.create(
        name="Квартальный перенос",
        source_env_id="ss-dev",
        target_env_id="prod",
        dashboards=[{"id": 1, "uuid": "u1", "title": "Отчёт"}],
        preview=PREVIEW,
        created_by=users["admin"],
    )
    client = Client()
    client.force_login(users["admin"])

    headers = {} if language == "ru" else {"accept_language": "en"}
    page = client.get(f"/migrations/{migration.pk}/", headers=headers).content.decode()

    block = page.split('data-testid="migration-preview"', 1)[1].split("</table>", 1)[0]
    assert summary in block
    assert f"<td>{text(language, 'Dashboard')}</td>" in block
    assert f"<td>{text(language, 'will be overwritten')}</td>" in block
    assert f"<td>{text(language, 'will be created')}</td>" in block
    assert ">overwrite<" not in block
    assert ">dashboard<" not in block


def test_a_preview_stored_before_it_had_every_language_shows_the_summary_it_has():
    shown = preview_shown({"summary": "старое", "objects": []}, "en")

    assert shown == {"summary": "старое", "objects": []}


def test_a_reloaded_failed_call_keeps_the_sentence_and_superset_s_words(users):
    owner = users["analyst"]
    conversation = Conversation.objects.create(user=owner, title="t", ui_context=DASHBOARD_1, context_version=1)
    Message.objects.create(conversation=conversation, role="user", content="выполни SELECT * FROM regions")
    Message.objects.create(conversation=conversation, role="assistant", content="", tool_calls=[{"id": "c1"}])
    stored = {"error": "superset_denied", "message": "Superset запрещает…", "detail": "You need access to …"}
    Message.objects.create(
        conversation=conversation,
        role="tool",
        content=json.dumps(stored, ensure_ascii=False),
        tool_call_id="c1",
        tool_name="superset_execute_sql",
        status="error",
    )
    client = Client()
    client.force_login(owner)

    [line] = [
        e for e in client.get(f"/api/agent/conversations/{conversation.pk}/").json()["timeline"] if e["kind"] == "tool"
    ]

    assert (line["ok"], line["message"], line["detail"]) == (False, "Superset запрещает…", "You need access to …")


def test_a_running_run_says_its_state_once_the_live_one(users):
    """Issue 30 item 5: the page said «в очереди · 0 %» (when it was drawn) beside the live «выполняется · 50 %»;
    a queued or running run now carries only the anchor of its live progress (the server's words in <noscript>)."""
    migration = Migration.objects.create(
        name="Перенос", source_env_id="ss-dev", target_env_id="prod", dashboards=[], created_by=users["admin"]
    )
    running = TaskRecord.objects.create(kind="migration", user=users["admin"], state="running", progress=50)
    done = TaskRecord.objects.create(kind="migration", user=users["admin"], state="succeeded", progress=100)
    migration.runs.add(running, done)
    client = Client()
    client.force_login(users["admin"])

    page = client.get(f"/migrations/{migration.pk}/").content.decode()

    live = page.split(f'data-run="{running.pk}"', 1)[1].split("</li>", 1)[0]
    finished = page.split(f'data-run="{done.pk}"', 1)[1].split("</li>", 1)[0]
    assert f'data-track-task="{running.pk}"' in live
    assert "50 %" not in live.replace(live[live.index("<noscript>") : live.index("</noscript>")], "")
    assert "100 %" in finished
