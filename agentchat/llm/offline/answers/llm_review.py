"""Answer templates for the LLM review tools (run_llm_validation, run_llm_documentation)."""

from typing import Any

from agentchat.llm.offline.answers.base import answer_writer, t, when


def validation_line(validation: dict[str, Any] | None, language: str) -> str:
    """One line about the latest validation run of a dashboard (used by the health summary)."""
    if not validation:
        return t(language, "проверок ещё не было", "no validation has run yet")
    status = validation.get("status")
    at = when(validation.get("created_at"), language)
    if status in ("queued", "running"):
        return t(language, f"проверка от {at} ещё идёт ({status})", f"the validation of {at} is still {status}")
    if status == "failed":
        return t(
            language,
            f"проверка от {at} не удалась: {validation.get('summary')}",
            f"the validation of {at} failed: {validation.get('summary')}",
        )
    return t(language, f"{at} — {validation.get('summary')}", f"{at} — {validation.get('summary')}")


def _started(result: dict[str, Any], language: str, ru_what: str, en_what: str) -> str:
    engine = (
        t(language, "языковой моделью", "by the LLM")
        if result.get("engine") == "llm"
        else t(language, "по правилам (офлайн-режим)", "rule-based (offline mode)")
    )
    return t(
        language,
        f"{ru_what} дашборда «{result.get('title')}» ({result.get('env_id')}) запущена в фоне {engine}: "
        f"задача {result.get('task_id')}, отчёт {result.get('run_id')}. Ход выполнения покажет get_task_status.",
        f"{en_what} of dashboard “{result.get('title')}” ({result.get('env_id')}) started in the background "
        f"{engine}: task {result.get('task_id')}, report {result.get('run_id')}. get_task_status shows its progress.",
    )


@answer_writer("run_llm_validation")
def run_llm_validation(result: dict[str, Any], language: str) -> str:
    return _started(result, language, "Проверка", "The validation") + t(
        language,
        " Итог появится в сводке дашборда.",
        " The result will appear in the dashboard's health summary.",
    )


@answer_writer("run_llm_documentation")
def run_llm_documentation(result: dict[str, Any], language: str) -> str:
    return _started(result, language, "Документация (описания графиков)", "Documentation (chart descriptions)")
