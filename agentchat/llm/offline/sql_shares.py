"""A share of one value of the data in a summed measure, written by the offline planner itself (issue 29, the ninth
session: «какая доля атома в потреблении Москвы за 2025?» was asked back as SQL): the value the share is of, read
like any value of a condition (``sql_values``), goes into a ``CASE``; the other values named and the period are the
conditions (``sql_aggregate.figure_where``)."""

import re
from collections.abc import Callable
from typing import Any

from agentchat.llm.offline.sql_aggregate import figure_where, named_columns, unread_words
from agentchat.llm.offline.sql_periods import backend_of, date_column, period_column, read_period
from agentchat.llm.offline.sql_values import literal, names_value, negated_values, numeric, value_conditions
from agentchat.llm.offline.sql_words import LEAST, RANKING_ROWS, measure_columns, question_words, rows_asked
from agentchat.toolset.weights import BREAKDOWN, RANKING, SHARE

# Words between a share's word and what it is of («доля каждого региона», "the share of each source").
_EACH = re.compile(r"of|each|every|the|all|by|per|кажд\w*|всех|по|из", re.I)
# A share of each row of a ranking or breakdown said after its values («топ-3 региона по газу и их доля», "each
# one's share").
_EACH_ONE = re.compile(r"(?<!\w)(их|каждо\w*|each|their|every)(?!\w)", re.I)
# What a share falls to, said after the whole it is of («доля стоимости Татарстана приходится на газ»).
_FALLS_TO = re.compile(r"приход(ит|я)\w*\s+на|accounted\s+for\s+by|goes\s+to|falls\s+to")


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
    to break it down by. The value the share is of is the first one named after the share's word or after «приходится
    на» (else the first named), with the other values of its column («доля газа и угля»: ``IN``); the measure is a
    metric that sums one column, or a numeric column named. With no value named, a column named right after the
    share's word, or a ranking's rows and «их доля»: the share of each value (``_shares_of_each``). None when no
    such measure is, or a condition is not written."""
    kept = negated_values(question, values or {})[1]  # «кроме Москвы» is no value a share is of
    conditions, _unread = value_conditions(unread_words(kept, payload, values), values or {})
    share_at = SHARE.search(question)
    pairs = [(c, v) for c, vs in conditions.items() for v in vs]
    if share_at is None:
        return None
    folded = question.casefold().replace("ё", "е")
    # «какая доля стоимости Татарстана приходится на газ?»: the share is of what follows «приходится на»
    anchor = next((m.end() for m in _FALLS_TO.finditer(folded) if m.start() >= share_at.start()), share_at.end())
    said = {p: [m.start() for m in re.finditer(r"[a-zа-яё]+", folded) if names_value(m.group(0), p[1])] for p in pairs}
    after = sorted((min(i for i in said[p] if i >= anchor), p) for p in pairs if any(i >= anchor for i in said[p]))
    # «доля каждого региона в потреблении за 2025», «доли источников … по Москве» (not «доля региона Москва»),
    # «топ-3 региона по стоимости газа и их доля»: a share of each value of the column named
    said_next = [w.casefold() for w in re.findall(r"[^\W\d_]+", question[share_at.end() :])[:4]]
    said_next = [w for w in said_next if not _EACH.fullmatch(w)][:1]  # «доля каждого региона», "share of each source"
    valued = {c for c, _v in pairs}
    next_columns = {c["name"] for c in named_columns(" ".join(said_next), payload)}
    other_columns = {c["name"] for c in named_columns(question, payload)} - valued
    ranked_each = not after and other_columns and (RANKING.search(question) or _EACH_ONE.search(question))
    if not pairs or (next_columns and not next_columns & valued) or ranked_each:
        return _shares_of_each(question, payload, relation, quote, values)
    column = after[0][1][0] if after else pairs[0][0]
    shared = frozenset((column, v) for v in conditions[column])  # «доля газа и угля»: one share of both
    found = figure_where(question, payload, quote, values, apart=shared)
    words = question_words(question)
    summed = measure_columns(payload, words, numeric)
    if found is None or not summed:
        return None
    measure = quote(summed[0])
    listed = sorted(v for _c, v in shared)
    test = f"= {literal(listed[0])}" if len(listed) == 1 else f"IN ({', '.join(literal(v) for v in listed)})"
    share = (
        f"ROUND(100.0 * SUM(CASE WHEN {quote(column)} {test} THEN {measure} ELSE 0 END) / "
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
    window is summed before the LIMIT). None unless exactly one text column and one measure are named, when a
    condition is not written, with a breakdown by period or with a value left out (the whole is then unclear)."""
    by = named_columns(question, payload)
    summed = measure_columns(payload, question_words(question), numeric)
    found = figure_where(question, payload, quote, values)
    if len(by) != 1 or not summed or found is None:
        return None
    period = read_period(question)
    if (period is not None and period.by) or negated_values(question, values or {})[0]:
        return None  # per quarter, or of the whole but a value («кроме Москвы»): of which total, asked (a QA check)
    key, measure = quote(by[0]["name"]), quote(summed[0])
    limit = f" LIMIT {rows_asked(question)}" if RANKING.search(question) else f" LIMIT {RANKING_ROWS * 10}"
    order = "ASC" if RANKING.search(question) and LEAST.search(question) else "DESC"  # «топ-2 с наименьшим …»
    return (
        f"SELECT {key}, SUM({measure}) AS {quote('sum_' + summed[0])}, "  # noqa: S608
        f"ROUND(100.0 * SUM({measure}) / SUM(SUM({measure})) OVER (), 2) AS {quote('share_percent')} "
        f"FROM {relation}{found[0]} GROUP BY {key} ORDER BY 2 {order}{limit}"
    )
