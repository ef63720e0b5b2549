"""What a turn knows when it judges an id the model gave against the page's (issue 16, ``runtime.binding``): whether
the question points at the page's object, and which ids this turn's own tool results gave the model."""

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage

from agentchat.runtime.binding import result_ids
from agentchat.toolset.reading import read_question


def points_at_page(question: str, given: Any) -> bool:
    """The question points at the page's object («этот дашборд», "this one") and does not name ``given``, the id
    the model gave (issue 16 review): "compare this dashboard with dashboard 1" keeps the model's 1, while a
    number that is not that id ("this dashboard for 2024", "top 10", «за 30 дней») leaves "this" meaning the
    page's object. The id counts only as a whole number (``1`` is not named by ``2014`` or ``10``)."""
    if not read_question(question).this:
        return False
    return not re.search(rf"(?<!\d){re.escape(str(given))}(?!\d)", question)


def learnt_ids(messages: Sequence[BaseMessage]) -> dict[tuple[str, str | None], set[int]]:
    """The dashboard and dataset ids the successful tool results of this turn named (``binding.result_ids``), by
    object type and environment: ``{("dashboard", "ss-dev"): {5}}`` after a search of ss-dev that found dashboard 5.

    This turn is what follows the last user message (a turn continued after a card, rebuilt from the stored
    history, included). An earlier turn's results do not count: a new question about "this dashboard" is about
    the page again. An error result names no object the model may take (its ids are the ones it was refused on).
    The caller reads them before a step's calls run: the model wrote all of a step's calls before any result.

    Args:
        messages: the turn's conversation as sent to the model, oldest first.
    """
    start = next((i + 1 for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)), 0)
    found: dict[tuple[str, str | None], set[int]] = {}
    for message in messages[start:]:
        if not isinstance(message, ToolMessage) or message.status == "error":
            continue
        try:
            value = json.loads(str(message.content))
        except ValueError:
            continue
        for where, ids in result_ids(value).items():
            found.setdefault(where, set()).update(ids)
    return found
