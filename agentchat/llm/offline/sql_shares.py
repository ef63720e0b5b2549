"""A share of one value of the data in a summed measure, written by the offline planner itself (issue 29, the ninth
session: «какая доля атома в потреблении Москвы за 2025?» was asked back as SQL): the value the share is of, read
like any value of a condition (``sql_values``), goes into a ``CASE``; the other values named and the period are the
conditions (``sql_aggregate.figure_where``)."""

import re
from collections.abc import Callable
from typing import Any

from agentchat.llm.offline.sql_aggregate import figure_where, named_columns, unread_words
from agentchat.llm.offline.sql_periods import backend_of, date_column, period_column, read_period
from agentchat.llm.offline.sql_values import literal, numeric, value_conditions
from agentchat.llm.offline.sql_words import RANKING_ROWS, measure_columns, question_words, rows_asked
from agentchat.toolset.weights import BREAKDOWN, RANKING, SHARE

# Words between a share's word and what it is of («доля каждого региона», "the share of each source").
_EACH = re.compile(r"of|each|every|the|all|by|per|кажд\w*|всех|по|из", re.I)


def share_sql(
    question: str,
    payload: dict[str, Any],
    relation: str,
    quote: Callable[[Any], str],
    values: dict[str, list[str]] | None = None,
) -> str | None:
    """The share, in per cent, of one value of the data in a summed measure («какая доля атома в потреблении Москвы
    за 2025?», "what share of total cost is gas, by region?"): ``ROUND(100.0 * SUM(CASE WHEN "source" = 'Атом' THEN
    "consumption_mwh" ELSE 0 END) / SUM("consumption_mwh"), 2)``, over the other conditions said, per a column named
    to break it down by. The value the share is of is the first one named after the share's word (else the first
    named); the measure is a metric that sums one column, or a numeric column named. None when no value is named
    (the values are not read yet, or none matches), no such measure is, or a condition is not written."""
    conditions, _unread = value_conditions(unread_words(question, payload, values), values or {})
    share_at = SHARE.search(question)
    pairs = [(c, v) for c, vs in conditions.items() for v in vs]
    if share_at is None:
        return None
    # «доля каждого региона в потреблении за 2025», "top 5 regions … each one's share", «доли источников … по Москве»
    said_next = [w.casefold() for w in re.findall(r"[^\W\d_]+", question[share_at.end() :])[:4]]
    said_next = [w for w in said_next if not _EACH.fullmatch(w)][:1]  # «доля каждого региона», "share of each source"
    of_column = named_columns(" ".join(said_next), payload) and not value_conditions(said_next, values or {})[0]
    if not pairs or of_column:
        return _shares_of_each(question, payload, relation, quote, values)
    folded = question.casefold().replace("ё", "е")

    def said_at(pair: tuple[str, str]) -> int:
        found = [
            m.start()
            for m in re.finditer(r"[a-zа-яё]+", folded)
            if value_conditions([m.group(0)], {pair[0]: [pair[1]]})[0]
        ]
        after = [i for i in found if i >= share_at.end()]
        return (after or [len(folded) + i for i in found] or [10**6])[0]

    column, value = min(pairs, key=said_at)
    found = figure_where(question, payload, quote, values, apart=(column, value))
    words = question_words(question)
    summed = measure_columns(payload, words, numeric)
    if found is None or not summed:
        return None
    measure = quote(summed[0])
    share = (
        f"ROUND(100.0 * SUM(CASE WHEN {quote(column)} = {literal(value)} THEN {measure} ELSE 0 END) / "
        f"SUM({measure}), 2) AS {quote('share_percent')}"
    )
    period = read_period(question)
    if period is not None and period.by:  # «доля газа в стоимости по годам»: a share per year, never one figure
        part = period_column(period, quote(date_column(payload) or ""), backend_of(payload), quote)
        if part is None or date_column(payload) is None:
            return None
        return f"SELECT {part}, {share} FROM {relation}{found[0]} GROUP BY 1 ORDER BY 1"  # noqa: S608
    by = [c for c in named_columns(question, payload) if c["name"] != column]
    if BREAKDOWN.search(question) and by:
        key = quote(by[0]["name"])
        return f"SELECT {key}, {share} FROM {relation}{found[0]} GROUP BY {key} ORDER BY 2 DESC"  # noqa: S608
    return f"SELECT {share} FROM {relation}{found[0]}"  # noqa: S608


def _shares_of_each(
    question: str,
    payload: dict[str, Any],
    relation: str,
    quote: Callable[[Any], str],
    values: dict[str, list[str]] | None,
) -> str | None:
    """The share, in per cent, of each value of the one text column named in the summed measure, beside its sum,
    largest first («доля каждого региона в потреблении за 2025»): ``SUM(m) / SUM(SUM(m)) OVER ()`` over the
    conditions said; a ranking keeps its top rows («топ-5 регионов … и доля каждого»: shares of the whole, the
    window is summed before the LIMIT). None unless exactly one text column and one measure are named, or when a
    condition is not written."""
    by = named_columns(question, payload)
    summed = measure_columns(payload, question_words(question), numeric)
    found = figure_where(question, payload, quote, values)
    if len(by) != 1 or not summed or found is None:
        return None
    key, measure = quote(by[0]["name"]), quote(summed[0])
    limit = f" LIMIT {rows_asked(question)}" if RANKING.search(question) else f" LIMIT {RANKING_ROWS * 10}"
    return (
        f"SELECT {key}, SUM({measure}) AS {quote('sum_' + summed[0])}, "  # noqa: S608
        f"ROUND(100.0 * SUM({measure}) / SUM(SUM({measure})) OVER (), 2) AS {quote('share_percent')} "
        f"FROM {relation}{found[0]} GROUP BY {key} ORDER BY 2 DESC{limit}"
    )
