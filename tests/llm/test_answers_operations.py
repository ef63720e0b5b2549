"""The offline planner's answers for the operations tools, in Russian and English (DESIGN §11); expected texts
come from the catalogue (``tests.support.wording``)."""

import pytest

from agentchat.llm.offline.answers import answer_from_result
from agentchat.runtime.summarise import summarise
from tests.support.wording import plural, plural_forms, ptext, text

PREVIEW = {
    "summary": "1 dashboard will be changed in prod. Replace (same slug): 1 dashboard.",
    "objects": [
        {"type": "dashboard", "name": "Чужой отчёт", "action": "conflict"},
        {"type": "chart", "name": "Потребление", "action": "create"},
        {"type": "database", "name": "Energy", "action": "keep"},
    ],
    "counts": {"dashboard": {"conflict": 1}, "chart": {"create": 1}, "dataset": {}, "database": {"keep": 1}},
}


def test_preview_answer_names_each_object_with_its_action():
    ru = answer_from_result("preview_migration", PREVIEW, "ru")
    en = answer_from_result("preview_migration", PREVIEW, "en")
    assert ru.startswith(PREVIEW["summary"])  # the tool wrote the summary in the turn's language
    dashboard, conflict = (
        ptext("ru", "object type", "dashboard"),
        ptext("ru", "planned action of an object", "replace (same slug)"),
    )
    chart, create = ptext("ru", "object type", "chart"), ptext("ru", "planned action of an object", "create")
    assert f"- {dashboard.capitalize()} «Чужой отчёт»: {conflict}" in ru
    assert f"- {chart.capitalize()} «Потребление»: {create}" in ru
    assert "- Database “Energy”: keep as is" in en
    assert ru.endswith(text("ru", "Nothing was changed: this is a preview only."))
    assert en.endswith("Nothing was changed: this is a preview only.")


def test_preview_answer_says_how_many_objects_the_summary_left_out():
    big = dict(PREVIEW, objects=[{"type": "chart", "name": f"График {i}", "action": "create"} for i in range(300)])
    sent, summarised = summarise(big, 4000)
    answer = answer_from_result("preview_migration", sent, "ru")
    assert summarised
    shown = answer.count("- График «График")
    assert 0 < shown < 300
    assert answer.endswith(plural("ru", "… and %(count)d more", "… and %(count)d more", 300 - shown))


def test_deploy_answer_lists_charts_and_what_was_done():
    result = {
        "source_env_id": "ss-dev",
        "target_env_id": "prod",
        "dashboards": [{"id": 7, "title": "Отчёт", "url": "http://x/d/7/", "charts": ["А", "Б"]}],
        "objects": [{"type": "dashboard", "name": "Старый", "action": "conflict"}],
        "counts": {"dashboard": {"conflict": 1}, "chart": {"create": 1, "overwrite": 1}},
        "verified": True,
    }
    ru = answer_from_result("deploy_dashboard", result, "ru")
    en = answer_from_result("deploy_dashboard", result, "en")
    deployed = (
        "Dashboard %(title)s was deployed from %(src)s to %(dst)s (id %(id)s in %(dst)s, %(superset)s) and "
        "verified: %(count)d chart attached.",
        "Dashboard %(title)s was deployed from %(src)s to %(dst)s (id %(id)s in %(dst)s, %(superset)s) and "
        "verified: %(count)d charts attached.",
    )
    params = {
        "title": "[«Отчёт»](/dashboards/7/?env_id=prod)",
        "superset": f"[{text('ru', 'open in Superset')}](http://x/d/7/)",
        "src": "ss-dev",
        "dst": "prod",
        "id": 7,
    }
    assert ru.startswith(plural("ru", *deployed, 2, **params) + "\n- «А»\n- «Б»\n\n")
    one_chart = plural("ru", "%(count)d chart", "%(count)d charts", 1)
    assert f"{ptext('ru', 'deploy outcome', 'Created')}: {one_chart}." in ru
    assert f"{ptext('ru', 'deploy outcome', 'Overwritten')}: {one_chart}." in ru
    assert text("ru", "Replaced the dashboard with the same slug: %(name)s.", name="«Старый»") in ru
    assert "verified: 2 charts attached." in en
    assert "Created: 1 chart.\nOverwritten: 1 chart.\nReplaced (same slug): 1 dashboard." in en


def test_task_status_answers_cover_not_found_running_and_failed():
    missing = {"found": False, "task_id": 5, "message": text("ru", "Task %(id)s not found (or not yours).", id=5)}
    running = {"found": True, "task_id": 6, "kind": "migration", "state": "running", "progress": 50, "message": "1/2"}
    failed = {
        "found": True,
        "task_id": 7,
        "kind": "migration",
        "state": "failed",
        "progress": 100,
        "message": "Traceback …",
        "error": "MigrationFailed: 0/1 deployed",
        "result": {"target_env_id": "prod", "deployed": [], "failed": [{"title": "Отчёт", "error": "нет базы"}]},
    }
    assert answer_from_result("get_task_status", missing, "ru") == missing["message"]
    assert answer_from_result("get_task_status", running, "en") == "Task #6 (migration): running, 50 %.\n1/2"
    answer = answer_from_result("get_task_status", failed, "ru")
    assert "Traceback" not in answer
    assert text("ru", "Error: %(error)s", error="MigrationFailed: 0/1 deployed") in answer
    assert "✗ «Отчёт»: нет базы" in answer


@pytest.mark.parametrize(
    ("n", "found", "rows"),
    [
        (1, "Найден 1 дашборд", "1 строка"),
        (2, "Найдено 2 дашборда", "2 строки"),
        (5, "Найдено 5 дашбордов", "5 строк"),
        (21, "Найден 21 дашборд", "21 строка"),
    ],
)
def test_russian_answers_count_in_the_russian_form_itself(n, found, rows):
    """The Russian forms themselves, not only whatever the catalogue holds: a catalogue whose «2»/«5» forms were
    swapped would still pass the catalogue comparison above."""
    search = {"env_id": "ss-dev", "count": n, "dashboards": [{"id": i, "title": f"D{i}"} for i in range(min(n, 3))]}
    result = {"database": "Energy", "env_id": "ss-dev", "row_count": n, "columns": [{"name": "a"}], "rows": []}
    assert answer_from_result("search_dashboards", search, "ru").startswith(f"{found} в ss-dev.")
    assert f"выполнен: {rows}." in answer_from_result("superset_execute_sql", result, "ru")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_task_status_answer_names_the_kind_in_its_language(language):
    """«Задача #6 (резервная копия): выполняется, 50 %.» — the kind is a label in the answer's language, not the
    stored code."""
    running = {"found": True, "task_id": 6, "kind": "backup", "state": "running", "progress": 50, "message": ""}
    expected = text(
        language,
        "Task #%(task)s (%(kind)s): %(state)s, %(progress)s %%.",
        task=6,
        kind=ptext(language, "task kind", "backup"),
        state=ptext(language, "task state", "running"),
        progress=50,
    )
    assert answer_from_result("get_task_status", running, language) == expected
    assert ("(backup)" in expected) == (language == "en")


def test_list_backups_answer_shows_size_count_and_author():
    result = {
        "env_id": "prod",
        "count": 1,
        "backups": [
            {
                "id": 3,
                "created_at": "2026-11-29T21:00:00+00:00",
                "created_by": "engineer",
                "size_bytes": 3 * 1024 * 1024,
                "dashboard_count": 12,
                "file_present": False,
            }
        ],
    }
    ru = answer_from_result("list_backups", result, "ru")
    line = plural(
        "ru",
        "- #%(id)s %(when)s: %(count)d dashboard, %(size)s, by %(who)s",
        "- #%(id)s %(when)s: %(count)d dashboards, %(size)s, by %(who)s",
        12,
        id=3,
        when="30.11.2026 00:00 MSK",  # the Russian timestamp pattern, in TIME_ZONE (Europe/Moscow)
        size=f"3.0 {ptext('ru', 'size unit', 'MB')}",
        who="engineer",
    )
    assert f"{line}{text('ru', ' — file missing')}" in ru
    assert answer_from_result("list_backups", {"env_id": "prod", "backups": []}, "en") == "prod has no backups yet."


@pytest.mark.parametrize("n", [1, 2, 5, 21])
def test_counted_answers_use_the_plural_form_of_their_number(n):
    """«1 дашборд», «2 дашборда», «5 дашбордов», «21 дашборд» — and "1 dashboard", "2 dashboards" — in a search
    answer and in a SQL answer's row count: the catalogue's form for ``n``, in Russian and English."""
    shown = min(n, 3)
    search = {"env_id": "ss-dev", "count": n, "dashboards": [{"id": i, "title": f"D{i}"} for i in range(shown)]}
    found = ("Found %(count)d dashboard in %(env)s.", "Found %(count)d dashboards in %(env)s.")
    rows = {
        "database": "Energy",
        "env_id": "ss-dev",
        "row_count": n,
        "columns": [{"name": "a"}, {"name": "b"}],
        "rows": [[i, i] for i in range(n)],
    }
    counted = ("%(total)d row.", "%(total)d rows.")
    ran = "The query on database %(where)s ran: %(count)s The table is above, under the query's line."
    for language in ("ru", "en"):
        answer = answer_from_result("search_dashboards", search, language)
        assert answer.startswith(plural(language, *found, n, env="ss-dev") + "\n")
        if n > shown:
            assert answer.endswith(plural(language, "… and %(count)d more", "… and %(count)d more", n - shown))
        sql = answer_from_result("superset_execute_sql", rows, language)
        assert sql == text(language, ran, where="Energy (ss-dev)", count=plural(language, *counted, n, total=n))
    for forms in (plural_forms("ru", *found), plural_forms("ru", *counted)):
        one, few, many, twenty_one = forms
        assert len({one, few, many}) == 3  # Russian: three forms
        assert twenty_one == one  # 21 takes the form of 1
    one, two, five, twenty_one = plural_forms("en", *found)
    assert one != two == five == twenty_one
