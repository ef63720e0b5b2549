"""Which object kind a question names by its title or slug (issue 16 review): «задеплой дашборд energy-report в
prod» names a dashboard itself, so on another dashboard's page the planner searches for it instead of using the page's.
A kind noun written with a typo («дашборт», "dashbord") is read as the noun, as the reading reads it.
"""

import re

from agentchat.toolset.tokens import corrected, object_of
from agentchat.toolset.words import NAMED

_NOUNS = (("dashboard", r"дашборд\w*|дашик\w*|dashboard"), ("dataset", r"датасет\w*|dataset"))


_KINDS = frozenset({"dashboard", "dashboards", "dataset", "datasets"})


def kind_words_corrected(text: str) -> str:
    """``text`` with each word that is a typo of a dashboard or dataset noun written as that noun («расскажи про
    дашборт продажи» → «… дашборд продажи»; ``toolset.tokens.corrected``), so the noun is read as the kind and
    not as part of the name searched for."""

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        lowered = word.casefold()
        fixed = corrected(lowered)
        if fixed == lowered or object_of(lowered) or object_of(fixed) not in _KINDS:
            return word
        return fixed.capitalize() if word[:1].isupper() else fixed

    return re.sub(r"[^\W\d_]{6,}", fix, text)


# Each kind's search and its read of one object (DESIGN §8).
KIND_TOOLS = {
    "dashboard": ("search_dashboards", "get_health_summary"),
    "dataset": ("search_datasets", "get_dataset_details"),
}


def tool_kind(tool: str, properties: dict) -> str | None:
    """The object kind ``tool`` is about: its search's, else the kind of the one object id it takes
    (``dashboard_id`` or ``dataset_id`` among ``properties``, its JSON schema's), else None."""
    for kind, (search, _read) in KIND_TOOLS.items():
        if tool == search:
            return kind
    kinds = [kind for kind in KIND_TOOLS if f"{kind}_id" in properties]
    return kinds[0] if len(kinds) == 1 else None


def named_kind(plain: str, text: str | None) -> str | None:
    """The object kind whose noun stands right before the searched ``text`` («дашборд energy-report», "dataset
    «regions»"), else right after it in quotes ("the «Обзор регионов» dashboard"): the question names an object of
    that kind itself (issue 16 review), else None."""
    if not text:
        return None
    for kind, noun in _NOUNS:
        if re.search(rf"(?:{noun})\s+[«\"“']?{re.escape(text[:3])}", plain, re.I):
            return kind
    for kind, noun in _NOUNS:  # or right after it: "the «Обзор регионов» dashboard: …" (turns_day10 f1007)
        if re.search(rf"[«\"“']{re.escape(text)}[»\"”']\s+(?:{noun})", plain, re.I):
            return kind
    return None


def name_quoted(question: str, name: str | None) -> str:
    """``question`` with the name it gives without quotes (``name``, what the search looks for) put in «»: the
    tool is chosen as for the same question with its title quoted («расскажи про дашборд Обзор регионов» as «…
    дашборд «Обзор регионов»»), the title's words being no keywords of a tool. Unchanged when the reading sees a
    name in it already (``toolset.words.NAMED``), or ``name`` is not in it as written (a topic's stem)."""
    if not name or NAMED.search(question):
        return question
    match = re.search(rf"(?<![\w«\"“'-]){re.escape(name)}(?![\w»\"”'-])", question)
    if match is None:
        return question
    return f"{question[: match.start()]}«{name}»{question[match.end() :]}"
