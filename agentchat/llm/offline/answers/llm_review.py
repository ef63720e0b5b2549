"""Answer templates for the LLM review tools (run_llm_validation, run_llm_documentation)."""

from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from agentchat.llm.offline.answers.base import answer_writer, when


def validation_line(validation: dict[str, Any] | None, language: str) -> str:
    """One line about the latest validation run of a dashboard (used by the health summary), in ``language``."""
    with translation.override(language):
        if not validation:
            return _("no validation has run yet")
        status = validation.get("status")
        at = when(validation.get("created_at"))
        if status in ("queued", "running"):
            return _("the validation of %(at)s is still %(status)s") % {"at": at, "status": status}
        if status == "failed":
            return _("the validation of %(at)s failed: %(summary)s") % {"at": at, "summary": validation.get("summary")}
        return f"{at} — {validation.get('summary')}"


def _engine(result: dict[str, Any]) -> str:
    return _("by the LLM") if result.get("engine") == "llm" else _("rule-based (offline mode)")


@answer_writer("run_llm_validation")
def run_llm_validation(result: dict[str, Any], language: str) -> str:
    return _(
        "The validation of dashboard “%(title)s” (%(env)s) started in the background %(engine)s: task "
        "%(task)s, report %(run)s. get_task_status shows its progress. The result will appear in the dashboard's "
        "health summary."
    ) % _started(result)


@answer_writer("run_llm_documentation")
def run_llm_documentation(result: dict[str, Any], language: str) -> str:
    return _(
        "Documentation (chart descriptions) of dashboard “%(title)s” (%(env)s) started in the background "
        "%(engine)s: task %(task)s, report %(run)s. get_task_status shows its progress."
    ) % _started(result)


def _started(result: dict[str, Any]) -> dict[str, Any]:
    return {
        "title": result.get("title"),
        "env": result.get("env_id"),
        "engine": _engine(result),
        "task": result.get("task_id"),
        "run": result.get("run_id"),
    }
