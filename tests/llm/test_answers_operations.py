"""The offline planner's answers for the operations tools, in Russian and English (DESIGN §11)."""

from agentchat.llm.offline.answers import answer_from_result
from agentchat.runtime.summarise import summarise

PREVIEW = {
    "summary_ru": "1 дашборд будет изменён в prod. Дашборды: заменить (тот же slug) — 1.",
    "summary_en": "1 dashboard will be changed in prod. Dashboards: replace (same slug) — 1.",
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
    assert ru.startswith("1 дашборд будет изменён в prod.")
    assert "- дашборд «Чужой отчёт»: заменить (тот же slug)" in ru
    assert "- график «Потребление»: создать" in ru
    assert "- database «Energy»: keep as is" in en
    assert en.endswith("Nothing was changed: this is a preview only.")


def test_preview_answer_says_how_many_objects_the_summary_left_out():
    big = dict(PREVIEW, objects=[{"type": "chart", "name": f"График {i}", "action": "create"} for i in range(300)])
    sent, summarised = summarise(big, 4000)
    answer = answer_from_result("preview_migration", sent, "ru")
    assert summarised
    shown = answer.count("- график «График")
    assert 0 < shown < 300
    assert answer.endswith(f"… и ещё {300 - shown}")


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
    assert "Дашборд «Отчёт» развёрнут из ss-dev в prod (id 7 в prod)" in ru
    assert "Графики: создано — 1, перезаписано — 1" in ru
    assert "Заменён дашборд с тем же slug: «Старый»." in ru
    assert "Charts: created — 1, overwritten — 1" in answer_from_result("deploy_dashboard", result, "en")


def test_task_status_answers_cover_not_found_running_and_failed():
    missing = {"found": False, "task_id": 5, "message": "Задача 5 не найдена (или она не ваша)."}
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
    text = answer_from_result("get_task_status", failed, "ru")
    assert "Traceback" not in text
    assert "Ошибка: MigrationFailed: 0/1 deployed" in text
    assert "✗ «Отчёт»: нет базы" in text


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
    assert "#3 30.11.2026 00:00 MSK: дашбордов 12, 3.0 МБ, автор engineer — файл отсутствует" in ru
    assert answer_from_result("list_backups", {"env_id": "prod", "backups": []}, "en") == "prod has no backups yet."
