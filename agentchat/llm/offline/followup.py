"""Short answers to the offline planner's own questions (DESIGN §11): «prod», «в staging», «2», «ss-dev».

A message that only gives a value (an environment, a number, a quoted name) answers the question the planner
asked; it is the rest of the previous request whatever keyword it happens to be («staging» is also a word of the
environment list). And an environment named by its tier that is not active here is said to be so, rather than
asked for again or replaced by the page's. Pure functions of the text and of the active environments.
"""

import re
from collections.abc import Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agentchat.llm.offline.environments import (
    QUOTED,
    TIER_WORDS,
    envs_named,
    titles_blanked,
    unknown_environments_named,
)
from agentchat.llm.offline.state import Turn
from agentchat.runtime.provenance import provenance_question

# Words around a value that add nothing to it («в prod», "to staging", «ну на прод», "prod please").
_GLUE = re.compile(
    r"^(?:в|во|на|из|с|со|к|и|а|ну|давай|тогда|же|пожалуйста|плиз|to|into|in|on|from|the|a|and|then|please|pls|ok"
    r"|okay|id|№|#)$",
    re.I,
)
# The tier words that can only mean an environment (not «продукт», «разработка», «боевой»), by tier.
_TIER_NAMES = {
    "prod": r"prod|production|прод|проде|проду|продом|прода|продакш[еи]н\w*",
    "staging": r"staging|stage|стейдж\w*|стейджинг\w*|стэйдж\w*",
    "dev": r"dev|дев|деве",
}


def _env_word(word: str, environments: list[tuple[str, str]]) -> bool:
    lowered = word.lower()
    if any(lowered == env_id.lower() for env_id, _ in environments):
        return True
    return any(re.fullmatch(pattern, lowered, re.I) for pattern in TIER_WORDS.values())


def bare_answer(text: str, environments: list[tuple[str, str]]) -> bool:
    """Whether ``text`` only gives a value: an environment (id or tier word), a number or a quoted name, with at
    most prepositions and politeness around it («в prod», "staging", «2», «"Обзор регионов"»)."""
    rest = QUOTED.sub(" ", text)
    words = re.findall(r"[\w-]+|[#№]", rest)
    values = [w for w in words if _env_word(w, environments) or w.isdigit()]
    quoted = rest != text
    if not values and not quoted:
        return False
    return all(w in values or _GLUE.match(w) for w in words)


def bare_direction(turn: Turn, environments: list[tuple[str, str]]) -> bool:
    """Whether the turn's question is only a direction to an environment («в прод», «на prod», "to staging": a bare
    answer, ``bare_answer``, that starts with «в», «во», «на», "to", "into" or "onto") on a dashboard page that
    offers the deploy, with nothing asked before: it asks to move the dashboard there (turns_day6 y65: «в прод» was
    not understood)."""
    if turn.previous_question or turn.page.object_type != "dashboard" or "deploy_dashboard" not in turn.tools:
        return False
    direction = re.match(r"\s*(в|во|на|to|into|onto)\b", turn.question, re.I)
    return bool(direction) and bare_answer(turn.question, environments) and not QUOTED.search(turn.question)


def inactive_tiers(text: str, environments: list[tuple[str, str]]) -> list[str]:
    """The tiers ``text`` names as an environment («staging», «на стейджинге», "to prod") that no active
    environment has, in order (``environments``: ``[(env_id, tier)]``). A quoted title's words are its name
    («Staging KPIs»), not an environment."""
    text = titles_blanked(text, environments)
    active = {tier for _, tier in environments} | {env_id.lower() for env_id, _ in environments}
    found: list[tuple[int, str]] = []
    for tier, pattern in _TIER_NAMES.items():
        match = re.search(rf"(?<![\w-])(?:{pattern})(?![\w-])", text, re.I)
        if match and tier not in active and match.group(0).lower() not in active:
            found.append((match.start(), tier))
    return [tier for _, tier in sorted(found)]


def no_such_environment_text(text: str, environments: list[tuple[str, str]], language: str) -> str | None:
    """«Окружения «ss-prod» нет. Какое вы имеете в виду: ss-dev, prod?» when ``text`` names an environment that does
    not exist (``unknown_environments_named``), else None: said so, never read as prod's nor replaced by the page's
    or by «pick an environment» (day set d35, and a fresh check with no environment selected)."""
    unknown = unknown_environments_named(text, environments)
    if not unknown:
        return None
    return provenance_question([], [("env_id", unknown[0])], [env_id for env_id, _ in environments], language, False)


def previous_answered(previous: str, answer: str, environments: list[tuple[str, str]], follow_up: bool = False) -> str:
    """The previous request as ``answer`` completes it: when the answer names an active environment («prod» after
    «Окружения «ss-prod» нет. Какое вы имеете в виду…» or «staging здесь не активно»), the environment it
    replaces — one that does not exist or is not active — is taken out, so the joined request is not refused again
    for it (a fresh check: «prod» asked the same question again); for a short ``follow_up`` («а в ss-dev?»,
    ``previous_request``) every environment it named is. Otherwise ``previous`` unchanged."""
    if not envs_named(answer, environments)[0]:
        return previous
    if follow_up:  # «а в ss-dev?» after «есть ли в prod …?»: the environment named replaces the one named before
        named = envs_named(previous, environments)[0]
        for env_id, tier in environments:
            if env_id in named:
                words = f"{re.escape(env_id)}|{_TIER_NAMES.get(tier, re.escape(env_id))}"
                previous = re.sub(rf"(?<![\w-])(?:в|во|на|in|on)?\s*(?:{words})(?![\w-])", " ", previous, flags=re.I)
    for word in unknown_environments_named(previous, environments):
        previous = re.sub(rf"(?<![\w-]){re.escape(word)}(?![\w-])", " ", previous)
    active = {tier for _, tier in environments}
    for tier, pattern in _TIER_NAMES.items():
        if tier not in active:
            previous = re.sub(rf"(?<![\w-])(?:{pattern})(?![\w-])", " ", previous, flags=re.I)
    return previous


# A link's address in an answer («[«Обзор регионов»](/dashboards/2/?env_id=prod)», a Superset URL): its "?" asks
# nothing (a fresh check: the next question was read as the answer to one and repeated the search before it).
_LINKS = re.compile(r"\]\([^)\s]*\)|\bhttps?://\S+")


def asked_back(messages: Sequence[BaseMessage]) -> str:
    """The user message before the last one when the assistant answered it with a question (a text with a "?"
    outside links' addresses: the planner's own go on after it, «В какое окружение? Напишите, например, «в prod».»),
    else ''."""
    humans = [n for n, m in enumerate(messages) if isinstance(m, HumanMessage)]
    if len(humans) < 2:
        return ""
    before = messages[humans[-1] - 1]
    if isinstance(before, AIMessage) and not before.tool_calls and "?" in _LINKS.sub(" ", str(before.content)):
        return str(messages[humans[-2]].content)
    return ""


# A short follow-up that only changes a value of the request before it («а в ss-dev?», "and in prod?", "what about
# staging?"): the planner reads it with that request when it gives a value only (``bare_answer``).
_ELLIPSIS = re.compile(r"^\s*(а|и|ну а|and|what about|how about)\b[^?]{0,30}\?\s*$", re.I)


def previous_request(messages: Sequence[BaseMessage]) -> tuple[str, bool]:
    """``(asked_back, False)``; or, for a short follow-up that starts with «а» / "and" / "what about" and ends with
    "?" (a fresh check: «а в ss-dev?» after «есть ли в prod «Обзор регионов»?» listed ss-dev's backups), ``(the user
    message before it, True)``; else ``("", False)``."""
    if previous := asked_back(messages):
        return previous, False
    humans = [m for m in messages if isinstance(m, HumanMessage)]
    if len(humans) >= 2 and _ELLIPSIS.match(str(humans[-1].content)):
        return str(humans[-2].content), True
    return "", False


def routing_question(question: str, messages: Sequence[BaseMessage], environments: list[tuple[str, str]]) -> str:
    """What the tool router reads for ``question`` (DESIGN §12): a bare answer to the assistant's question
    («prod», "in ss-dev") with the request it completes, so the tools of that request are offered (a fresh check:
    «uat» after «Окружения «preprod» нет…» offered no backup tool and an engineer read a role refusal)."""
    previous, follow_up = previous_request(messages)
    if not previous or not bare_answer(question, environments):
        return question
    return f"{previous_answered(previous, question, environments, follow_up)} {question}"
