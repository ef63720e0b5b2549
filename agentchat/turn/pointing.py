"""What a turn knows when it judges an id the model gave against the page's (issue 16, ``runtime.binding``): whether
the question points at the page's object, and which ids this turn's own tool results gave the model."""

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agentchat.runtime.binding import ENV_ARGS, result_ids
from agentchat.toolset.reading import read_question


def points_at_page(question: str, given: Any) -> bool:
    """The question points at the page's object («этот дашборд», "this one") and does not name ``given``, the id
    the model gave (issue 16 review): "compare this dashboard with dashboard 1" keeps the model's 1, while a
    number that is not that id ("this dashboard for 2024", "top 10", «за 30 дней») leaves "this" meaning the
    page's object. The id counts only as a whole number (``1`` is not named by ``2014`` or ``10``)."""
    if not read_question(question).this:
        return False
    return not re.search(rf"(?<!\d){re.escape(str(given))}(?!\d)", question)


# Arguments that only say where and how many: a call whose other arguments are all empty lists the instance.
LISTING_ARGS = frozenset((*ENV_ARGS, "limit"))


def _listing(args: dict[str, Any]) -> bool:
    """A call that named nothing: ``search_dashboards {"env_id": "ss-dev"}`` lists every dashboard there."""
    return all(name in LISTING_ARGS or value in (None, "", [], {}) for name, value in args.items())


def learnt_ids(messages: Sequence[BaseMessage]) -> dict[tuple[str, str | None], set[int]]:
    """The dashboard and dataset ids the successful tool results of this turn named (``binding.result_ids``), by
    object type and environment: ``{("dashboard", "ss-dev"): {5}}`` after a search of ss-dev that found dashboard 5.

    This turn is what follows the last user message (a turn continued after a card, rebuilt from the stored
    history, included). An earlier turn's results do not count: a new question about "this dashboard" is about
    the page again. An error result names no object the model may take (its ids are the ones it was refused on).
    The caller reads them before a step's calls run: the model wrote all of a step's calls before any result.
    A listing that named nothing (``_listing``: only the environment and a limit) teaches no id: every object of
    the instance is in it, so taking one of them says nothing of which one the user meant (third review: "this
    dashboard" answered with a listed stranger's id); a search for something named does teach its hits.

    Args:
        messages: the turn's conversation as sent to the model, oldest first.
    """
    start = next((i + 1 for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)), 0)
    found: dict[tuple[str, str | None], set[int]] = {}
    calls = {c["id"]: c["args"] for m in messages[start:] if isinstance(m, AIMessage) for c in m.tool_calls}
    for message in messages[start:]:
        if not isinstance(message, ToolMessage) or message.status == "error":
            continue
        args = calls.get(message.tool_call_id)
        if args is not None and _listing(args):  # a result whose call is not in the history counts
            continue
        try:
            value = json.loads(str(message.content))
        except ValueError:
            continue
        for where, ids in result_ids(value).items():
            found.setdefault(where, set()).update(ids)
    return found
