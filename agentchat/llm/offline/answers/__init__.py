"""Answer templates of the offline planner: tool result (as the LLM sees it) → text in ru or en (DESIGN §11).

One module per tool domain registers its writers with ``@answer_writer("<tool>")``; each runs under
``translation.override`` of the answer's language (texts: gettext msgids, Russian in ``locale/ru``).
"""

from typing import Any

from django.utils import translation
from django.utils.translation import gettext as _

from agentchat.errors import NOT_APPLICABLE
from agentchat.llm.offline.answers import datasets, git, llm_review, operations, sql, superset, versions  # noqa: F401 - registers writers
from agentchat.llm.offline.answers.base import generic, writer_for
from agentchat.runtime.titles import tool_title


def answer_from_result(tool: str, result: Any, language: str) -> str:
    """Return the answer text for ``tool``'s ``result`` in ``language``; a generic listing for other tools."""
    writer = writer_for(tool)
    if writer is not None and isinstance(result, dict):
        return writer(result, language)
    return generic(tool, result, language)


def answer_from_error(tool: str, error: dict[str, Any], language: str) -> str:
    """Return the answer for a failed or refused call of ``tool`` (``error`` is the ToolMessage payload)."""
    message = error.get("message") or error.get("error")
    if error.get("error") == NOT_APPLICABLE and message:
        return str(message)  # nothing to roll back, a copy of another environment: a reason, not a failure
    title = tool_title(tool, language)
    with translation.override(language):
        return _("That did not work (%(tool_title)s): %(message)s") % {"tool_title": title, "message": message}
