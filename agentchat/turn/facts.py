"""Tool results a small model cannot misread (issue 32 item 5).

Behind a 1.5B model the raw JSON of ``get_health_summary`` produced «использует четыре датасета: energy_consumption,
energy, energy_consumption_1 и metadata» (the git export's file names read as datasets), ``**Owners**:
["agentchat service"]``, «Слаг: null», «Опубликован: true», «Последний коммит: null». What the model reads of a
successful result is therefore the same labelled text the offline planner answers with (``llm.offline.answers``:
«Датасеты (1): energy_consumption», «Владельцы: …», booleans as words, no nulls, no file names, the git line saying
what it is), in the turn's language, with the ids a next call needs; the stored ToolMessage keeps the structured
result (history, provenance, the offline planner and the pages read it). A tool without a writer gets its result
cleaned the same way (``plain``). Only the OpenAI-compatible path is given this view (``turn.agent``).
"""

import json
from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agentchat.language import language_name
from agentchat.llm.offline.answers import answer_from_result
from agentchat.llm.offline.answers.base import writer_for
from agentchat.llm.offline.answers.markup import md_plain
from agentchat.turn.truth import (
    Failure,
    committed_checked,
    problems_checked,
    turn_failures,
    turn_results,
    unfounded_checked,
)

# Keys of results that are internal bookkeeping, not facts about an object (a file, a hash, a path on our server).
INTERNAL_KEYS = frozenset(
    {"uuid", "sha256", "path", "folder", "file", "files", "head", "answer_in", "raw", "object_used"}
)
NAME_KEYS = ("title", "name", "dashboard_title", "slice_name", "table_name", "column_name", "metric_name")


def plain(value: Any) -> Any:
    """``value`` without nulls, empty values and ``INTERNAL_KEYS``; booleans as ``yes``/``no``; a list of objects
    as their names (with id and type where they have one); a list key labelled with its count («charts (3)»)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in INTERNAL_KEYS or item in (None, "", [], {}):
                continue
            shown = plain(item)
            out[f"{key} ({len(item)})" if isinstance(item, list) else key] = shown
        return out
    if isinstance(value, list):
        return [_named(item) if isinstance(item, dict) else plain(item) for item in value]
    return value


def _named(item: dict[str, Any]) -> Any:
    name = next((item[k] for k in NAME_KEYS if item.get(k) not in (None, "")), None)
    if name is None:
        return plain(item)
    details = [f"id {item['id']}"] if item.get("id") is not None else []
    details += [str(item[k]) for k in ("type", "viz_type") if item.get(k)]
    return f"{name} ({', '.join(details)})" if details else str(name)


def result_view(tool: str, content: str, language: str) -> str:
    """What the model reads of a successful ``tool`` result stored as ``content`` (the ToolMessage JSON):
    ``{"object_used"?, "facts": <the answer writer's text>, "answer_in": <language>}`` for a tool with a writer,
    else the result through ``plain`` with ``answer_in`` last; ``content`` unchanged when it is not a JSON object."""
    try:
        result = json.loads(content)
    except ValueError:
        return content
    if not isinstance(result, dict):
        return content
    told = {"answer_in": language_name(language)} if language_name(language) else {}
    # The object a call acted on (a replaced id said, never silent: SC-001, ``turn.calls``) stays as it is.
    used = {"object_used": result["object_used"]} if "object_used" in result else {}
    if writer_for(tool) is not None:
        # The answer's links (issue 30) are for the page; the model reads their labels (a small model misread
        # addresses as facts).
        facts = md_plain(answer_from_result(tool, result, language))
        return json.dumps({**used, "facts": facts, **told}, ensure_ascii=False)
    return json.dumps({**used, **plain(result), **told}, ensure_ascii=False)


def model_view(messages: Sequence[BaseMessage], language: str) -> list[BaseMessage]:
    """``messages`` as an OpenAI-compatible model is sent them: every successful ToolMessage through
    ``result_view`` (the tool named by the call it answers); everything else as it is."""
    names: dict[str, str] = {}
    out: list[BaseMessage] = []
    for message in messages:
        if isinstance(message, AIMessage):
            names.update((str(call["id"]), call["name"]) for call in message.tool_calls if call.get("id"))
        if isinstance(message, ToolMessage) and message.status != "error" and message.tool_call_id in names:
            content = result_view(names[message.tool_call_id], str(message.content), language)
            message = message.model_copy(update={"content": content})
        out.append(message)
    return out


def last_facts(view: Sequence[BaseMessage]) -> str:
    """The facts of the last successful result in ``view`` (``model_view``'s messages), as text; ``""`` when the
    turn has none."""
    for message in reversed(view):
        if isinstance(message, HumanMessage):
            return ""
        if isinstance(message, ToolMessage) and message.status != "error":
            try:
                content = json.loads(str(message.content))
            except ValueError:
                return str(message.content)
            if isinstance(content, dict):
                return str(content.get("facts") or json.dumps({k: v for k, v in content.items() if k != "answer_in"}))
            return str(message.content)
    return ""


def model_inputs(
    messages: list[BaseMessage], language: str, *, truthful: bool
) -> tuple[list[BaseMessage], Sequence[Failure], Callable[[str], str] | None]:
    """What one model step is given and how its text answer is checked (issue 32 items 4, 5): an OpenAI-compatible
    model reads ``model_view``, its answer gets the turn's failures (``truth.turn_failures``), has claimed
    problems (where nothing failed) and the git state checked against the results (``truth.problems_checked``,
    ``truth.committed_checked``) and, when every call was refused for its
    arguments, asks instead of stating (``truth.unfounded_checked``); the ``truthful`` offline planner reads the
    stored messages and its answers need none of it.

    Returns:
        ``(messages for the model, failures to tell, the text check or None)``.
    """
    if truthful:
        return messages, (), None
    view = model_view(messages, language)
    results, failures, facts = turn_results(messages), turn_failures(messages), last_facts(view)

    def checked(text: str) -> str:
        if not failures:  # after a failure «1 ошибка» may be the failure's: its own line says what failed
            text = problems_checked(text, results, facts)
        return unfounded_checked(committed_checked(text, results, facts), messages)

    return view, failures, checked
