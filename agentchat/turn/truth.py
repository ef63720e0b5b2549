"""Truthful after a failure (issue 32 item 4): an answer never hides that a call of its turn failed.

Behind the local 1.5B model «какие бэкапы есть для прода?» failed (an unknown environment) and the answer read «у
меня нет информации о бэкапах»: false, the call had failed. When a tool call of the turn failed and no later call of
that tool succeeded, the final answer must say so; the product adds a line naming the operation and the reason when
the model's text does not carry the reason itself. Calls the user declined or our policy refused are no failures:
their own lines say so (the card, ``guard.confirmations.declined_payload``); nor are calls refused for their
arguments (``REPAIRABLE``), which never ran: the model repairs them or asks the user.
"""

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.text import capfirst
from django.utils.translation import gettext
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agentchat.language import in_language
from agentchat.runtime.titles import tool_title

# Failures of the model's arguments, which it repairs from the ToolMessage or asks the user about (issue 32
# item 3): no error frame the first time (``turn.calls``), and no line in the answer (the call never ran and its
# reason is a validator's text).
REPAIRABLE = frozenset({"invalid_args", "invented_argument"})
# ToolMessage error codes of calls that did not run by someone's decision or for the model's arguments.
NOT_FAILURES = frozenset({"denied", "expired", "cancelled", "permission_denied"}) | REPAIRABLE
# An answer that asks the user for something, with or without a question mark: «Извините, уточните имя ветки.»,
# «Пришлите запрос.», "Please provide the SQL." (``unfounded_checked`` keeps it; it states nothing).
ASKS = re.compile(
    r"\?|\b(?:уточните|укажите|пришлите|пришли|назовите|напишите|выберите|откройте|дайте|введите|скажите|"
    r"please|specify|provide|tell me|choose)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Failure:
    """A failed call of the turn: ``tool`` its name, ``reason`` the user-facing error text (or the error code)."""

    tool: str
    reason: str


def this_turn(messages: Sequence[BaseMessage]) -> Sequence[BaseMessage]:
    """The messages after the last user message: this turn's calls and results (all of them without one)."""
    start = max((n for n, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1) + 1
    return messages[start:]


def error_code(message: ToolMessage) -> str:
    """The ``error`` code of a ToolMessage's JSON payload (``invalid_args``, ``permission_denied``, …); '' when it
    has none or is not JSON."""
    try:
        payload = json.loads(str(message.content))
    except ValueError:
        return ""
    return str(payload.get("error") or "") if isinstance(payload, dict) else ""


def turn_failures(messages: Sequence[BaseMessage]) -> list[Failure]:
    """The failures of this turn that no later call of the same tool made good.

    Args:
        messages: the conversation as sent to the model; this turn is what follows its last user message.

    Returns:
        One ``Failure`` per tool whose last call in the turn failed, in the order of those calls.
    """
    names: dict[str, str] = {}
    failed: dict[str, Failure] = {}
    for message in this_turn(messages):
        if isinstance(message, AIMessage):
            names.update((str(call["id"]), call["name"]) for call in message.tool_calls if call.get("id"))
        elif isinstance(message, ToolMessage):
            tool = names.get(message.tool_call_id, "")
            failed.pop(tool, None)
            if message.status != "error":
                continue
            try:
                payload = json.loads(str(message.content))
            except ValueError:
                payload = {"message": str(message.content)}
            code = payload.get("error") if isinstance(payload, dict) else None
            if code in NOT_FAILURES:
                continue
            reason = str(payload.get("message") or code or "") if isinstance(payload, dict) else str(payload)
            failed[tool] = Failure(tool=tool, reason=reason)
    return list(failed.values())


def failures_told(text: str, failures: Sequence[Failure], language: str | None = None) -> str:
    """``text`` with a line per failure whose reason it does not carry, in ``language``.

    Example: «Список резервных копий — не выполнено: Superset не отвечает.» appended after a blank line. ``text``
    unchanged when every failure's reason is already in it (the offline planner's failure answers carry it).
    """
    missing = [f for f in failures if f.reason and f.reason not in text]
    if not missing:
        return text
    with in_language(language):
        lines = [
            gettext("%(tool_title)s did not run: %(reason)s.")
            % {"tool_title": capfirst(tool_title(f.tool)), "reason": f.reason.rstrip(".")}
            for f in missing
        ]
    return "\n\n".join(part for part in (text.rstrip(), "\n".join(lines)) if part)


# An answer that says problems were found («Да, есть проблемы», "issues were found"), not one that says none were.
_BAD_RU = r"(?:проблем|ошиб|уязвимост|сломан|неисправн)"
_BAD_EN = r"(?:problems?|issues?|errors?|vulnerabilit\w*|risks?|broken)"
PROBLEMS_CLAIMED = re.compile(
    # «Обнаружено 5 критических проблем», «Нашёл две серьёзные уязвимости», not «никаких проблем»
    rf"(?<!нет )(?<!не )\b(есть|обнаружен\w*|найден\w*|выявлен\w*|имеются|имеется|наш[её]л\w*|нашли)"
    rf"\s+((?!ни\w*\b|не\b)\w+\s+){{0,3}}{_BAD_RU}"
    rf"|(?<!no )\b(problems|issues) (were |was )?(found|detected)"
    rf"|\bthere (are|is)\s+((?!no\b|none\b|zero\b)\w+\s+){{0,2}}{_BAD_EN}"
    rf"|(?<!no )\b(found|detected|identified)\s+((?!no\b|none\b|zero\b)\w+\s+){{0,3}}{_BAD_EN}\b"
    # a count of them: «4 ошибки в графиках», "2 broken charts" (not «0 ошибок»)
    rf"|(?<![\d.,])[1-9]\d*\s+(\w+\s+){{0,2}}(?:{_BAD_RU}|{_BAD_EN}\b)",
    re.I,
)
# Result keys that carry problems a tool found (a review's findings, a plan's problems, a check's issues).
PROBLEM_KEYS = ("problems", "findings", "issues", "warnings")


def _names_problems(value: Any) -> bool:
    """True when a result holds at least one problem: a non-empty ``PROBLEM_KEYS`` list or ``findings_total`` > 0,
    at any depth."""
    if isinstance(value, dict):
        if isinstance(value.get("findings_total"), int) and value["findings_total"] > 0:
            return True
        if any(isinstance(value.get(key), list) and value[key] for key in PROBLEM_KEYS):
            return True
        return any(_names_problems(item) for item in value.values())
    if isinstance(value, list):
        return any(_names_problems(item) for item in value)
    return False


def turn_results(messages: Sequence[BaseMessage]) -> list[Any]:
    """The successful results (parsed JSON) of this turn's calls, in order (this turn: after the last user
    message)."""
    out = []
    for message in this_turn(messages):
        if isinstance(message, ToolMessage) and message.status != "error":
            try:
                out.append(json.loads(str(message.content)))
            except ValueError:
                continue
    return out


def problems_checked(text: str, results: Sequence[Any], facts: str, language: str | None = None) -> str:
    """``text``, unless it claims problems that none of the turn's ``results`` names (issue 32 item 4: «Да, есть
    проблемы» after a permissions audit that found none): then what the tools returned (``facts``, the last
    result as labelled facts) under a sentence saying no problem was named, in ``language``."""
    if not PROBLEMS_CLAIMED.search(text) or any(_names_problems(r) for r in results):
        return text
    with in_language(language):
        return _instead(gettext("The tools named no problem; this is what they returned:"), facts)


def unfounded_checked(text: str, messages: Sequence[BaseMessage], language: str | None = None) -> str:
    """``text``, unless the turn's every call was refused for its arguments (an id nobody named, a missing one:
    ``REPAIRABLE``; beside them, calls of tools not offered) and the answer states something instead of asking
    (issue 32: after ``get_git_status`` was refused an invented id, a 1.5B model answered «The dashboard's changes
    are not committed»): then the question the refusal asks (``ask_user``) or, for an invented object, which one
    is meant — in ``language``."""
    payloads = []
    for message in this_turn(messages):
        if isinstance(message, ToolMessage):
            if message.status != "error":
                return text
            try:
                payloads.append(json.loads(str(message.content)))
            except ValueError:
                return text
    refused = [p for p in payloads if isinstance(p, dict) and p.get("error") in REPAIRABLE]
    # a call of a tool not offered beside them ran no more (a fresh check: «Готово.» after one of each)
    others = [p for p in payloads if isinstance(p, dict) and p.get("error") in ("not_offered", "unknown_tool")]
    if not refused or len(refused) + len(others) != len(payloads) or ASKS.search(text):
        return text
    asked = next((str(p["ask_user"]) for p in refused if p.get("ask_user")), "")
    if asked:
        return asked
    with in_language(language):
        return gettext(
            "Which object do you mean? Name it (its title or id) or open its page, and ask again: nothing was run."
        )


# An answer saying the changes are committed («изменения закоммичены», "everything is committed", «нет
# незакоммиченных изменений»), and one saying some are not («есть незакоммиченные изменения», "not committed").
COMMITTED_CLAIMED = re.compile(
    r"(?<!\w)закоммичен\w*|(?<!\w)сохранен\w*\s+в\s+(?:ветк|git|гит|main|репозитор)"
    r"|\b(?:are|is|were|was|been)\s+(?:all\s+|already\s+)?committed|\bnothing to commit|\bno uncommitted"
    r"|\bнет\s+(?:\w+\s+)?(?:незакоммиченн|несохранённ|несохраненн)",
    re.I,
)
UNCOMMITTED_CLAIMED = re.compile(
    r"(?<!нет )(?<!no )(?<!нет никаких )(?:незакоммиченн|несохранённ|несохраненн)\w*|(?<!no )\buncommitted\b"
    r"|\bне\s+(?:все\s+)?(?:закоммичен|сохранял|сохранен)|\bnot\s+(?:yet\s+|all\s+)?committed"
    r"|\bnever\s+been\s+committed",
    re.I,
)
# A negation in the few words before a «committed» claim turns it around («ещё не закоммичены», "has never been
# committed", "not all are committed").
_NEGATED = re.compile(r"(?:\b(?:never|not|no)\b|n't|(?<!\w)(?:не|ни|нет|никогда)(?!\w))[\w\s']{0,24}$", re.I)


def _says(pattern: re.Pattern[str], text: str, *, unless_negated: bool) -> bool:
    return any(
        not (unless_negated and _NEGATED.search(text[max(0, m.start() - 40) : m.start()]))
        for m in pattern.finditer(text)
    )


def _committed_flags(value: Any) -> list[bool]:
    """Every boolean ``committed`` of a result, at any depth (``get_git_status``: per dashboard)."""
    if isinstance(value, dict):
        own = [value["committed"]] if isinstance(value.get("committed"), bool) else []
        return own + [flag for item in value.values() for flag in _committed_flags(item)]
    if isinstance(value, list):
        return [flag for item in value for flag in _committed_flags(item)]
    return []


def committed_checked(text: str, results: Sequence[Any], facts: str, language: str | None = None) -> str:
    """``text``, unless it says the opposite of what the turn's git results say (a fresh check: «Да, изменения
    закоммичены» over a status whose export differed from the branch): then what the tools returned (``facts``)
    under a sentence saying the answer did not match it, in ``language``. Only an answer that says one side and
    not the other is judged; results without a ``committed`` flag judge nothing."""
    flags = [flag for result in results for flag in _committed_flags(result)]
    says_committed = _says(COMMITTED_CLAIMED, text, unless_negated=True)
    says_uncommitted = _says(UNCOMMITTED_CLAIMED, text, unless_negated=False)
    if not flags or says_committed == says_uncommitted or says_committed == all(flags):
        return text
    with in_language(language):
        return _instead(
            gettext("That answer did not match what the tools returned; this is what they returned:"), facts
        )


def _instead(head: str, facts: str) -> str:
    """A replaced answer: ``head`` (why), then what the tools returned (``facts``) when there is any."""
    return f"{head}\n\n{facts}" if facts else head
