"""Shapes of analyst question the offline planner writes SQL for itself (issue 29: a figure asked on a dataset's
page was answered «пришлите SQL-запрос»; turns_day9 e915, e901, turns_day8 d823):

- a ranking: "top 3 regions by total consumption in 2024", «какие три региона потребили больше всего за 2025 год»:
  one column of the dataset to group by, one or more measures (the dataset's metrics, else a numeric column summed,
  else the rows counted), an optional year on the dataset's date column, the order (most or least) and the number
  of rows; a breakdown ("how many rows per region?", «потребление по источникам») is the same, every value listed;
- a grand total: "total cost in 2025, one number", «сколько потреблено всего за 2024 год, по всем регионам»: the
  measures over all rows (an optional year), no column to group by;
- duplicates: "any dupes? more than one row per date + region + source", «есть ли дубли»: the rows that share the
  named columns (all columns when none is named), with how many times each appears.

The columns and measures are found by the words of the question: a column's or metric's name ("region",
"total_consumption" → "consumption") or the first letters of its label, Superset's verbose_name («Регион»,
«Потребление, МВт·ч» → «потреб»). When no column or no measure is found, nothing is written (None): the person is
asked for the SQL, as before. The statement runs through the SQL tool's read-only proof like any other.
"""

import functools
import re
from collections.abc import Callable
from typing import Any

from agentchat.llm.offline.environments import TIER_PART
from agentchat.llm.offline.sql_periods import (
    EXTREME_SAID,
    YEAR,
    YEAR_SPAN,
    Period,
    backend_of,
    by_period_sql,
    date_column,
    period_clauses,
    read_period,
    without_period,
)
from agentchat.llm.offline.sql_values import (
    NEGATION,
    dated,
    negated_values,
    numeric,
    text_columns,
    value_conditions,
    values_where,
)
from agentchat.llm.offline.sql_words import (
    ANSWER_FORM,
    FRAME_STEMS,
    LEAST,
    NOT_WRITTEN,
    ONE_RECORD,
    PER_UNIT,
    PERCENT_UNIT,
    PRICE_ASKED,
    PRICE_NAMED,
    SEPARATELY,
    THRESHOLD,
    TOP_ROWS,
    column_named,
    measure_columns,
    measure_named,
    question_words,
    rows_asked,
)
from agentchat.toolset.aspects import fold, plain_words
from agentchat.toolset.listing import listing_phrases
from agentchat.toolset.weights import (
    BREAKDOWN,
    CHANGE,
    DISTINCT_COUNT,
    DUPLICATES,
    GRAND_TOTAL,
    RANKING,
    SHARE,
    aggregate_asked,
    change_asked,
)
from agentchat.toolset.words import COUNT

# What the two shapes do not write, so the person is asked for the SQL rather than shown another figure.
CONDITION = re.compile(
    r"\b(where|only|except|excluding|without|from (?!the dataset|this)|где|только|кроме|без|исключая)\b|[=<>]"
    r"|(?<!\w)'|'(?!\w)"  # a literal's quote, not an apostrophe ("what's")
    r"|\bпо\s+[А-ЯЁ]|\b(in|for)\s+[A-Z][a-z]|\b(в|во|у|для)\s+[А-ЯЁ][а-яё]",  # «в Москве»: one region's rows
)
# The part of ``CONDITION`` no value read of the dataset writes (``sql_values``): a negation, an operator, a literal.
HARD_CONDITION = re.compile(r"\b(where|except|excluding|without|где|кроме|без|исключая)\b|[=<>]|(?<!\w)'|'(?!\w)", re.I)
# What a grand total names over all values («по всем регионам и источникам», "across all regions"): no column to
# group by; «без разбивки» ("no breakdown") is no condition either, nor the answer's form («только цифру, без
# графиков»: turns_day14 read the dataset and showed its description).
ALL_OF = re.compile(
    r"\bпо\s+всем\s+[а-яё]+(\s*(,|и)\s*[а-яё]+)*|\b(across|over|for)\s+all\s+\w+(\s*(,|and)\s*\w+)*", re.I
)
NO_BREAKDOWN = re.compile(
    rf"без\s+разбивки(\s+по\s+[а-яё]+)?|\b(without|no)\s+(a\s+)?breakdown(\s+(by|per)\s+\w+)?\b|{ANSWER_FORM.pattern}",
    re.I,
)
# Values asked as one sum («газ и уголь вместе по месяцам», "Moscow and Kazan combined").
TOGETHER = re.compile(r"вместе|в\s+сумме|суммарн\w*|\b(together|combined|in total)\b", re.I)
#: Rows of duplicates listed; rows of a breakdown.
DUPLICATE_ROWS, BREAKDOWN_ROWS = 50, 100


def unread_words(question: str, payload: dict[str, Any], values: dict[str, list[str]] | None = None) -> list[str]:
    """The words of ``question`` that neither the dataset in ``payload`` (its table, columns, metrics, their names
    and labels) nor the plain and framing words account for, in order, folded — each a condition the SQL might
    leave out (see ``FRAME_STEMS``). Numbers (a year, a count) are not words here; environment names neither.

    Read: the sentences that ask the figure (the others are context: «Спасибо!»), a heading before a colon among
    them («Москва и Питер: потребление по источникам»). A clause before a dash is the figure's subject when one of
    its words names a value of ``values`` («Свердловская область, уголь, 2024 — сколько потребили?» summed every
    region, a QA check) or the values are not read yet, and context otherwise («Готовлю отчёт для директора — …»)."""
    question = PERCENT_UNIT.sub(" ", question) if SHARE.search(question) or change_asked(question) else question
    source = payload.get("source") or {}
    named = [str(source.get("table") or "")]
    for item in [*(payload.get("columns") or []), *(payload.get("metrics") or [])]:
        named += [str(item.get("name") or ""), str(item.get("label") or "")]
    known = {w[:5] for text in named for w in re.findall(r"[a-zа-яё]+", text.casefold().replace("ё", "е"))}
    known |= _plain_stems()

    def unread(text: str) -> list[str]:
        words = re.findall(r"[a-zа-яё]+", fold(_WATT_HOURS.sub(" мвт ", without_period(text))))
        return [
            w
            for w in dict.fromkeys(words)
            if len(w) >= 3 and w[:5] not in known and not w.startswith(_UNITS) and not TIER_PART.fullmatch(w)
        ]

    def asks(text: str) -> bool:
        return bool(aggregate_asked(text) or COUNT.search(text) or text.rstrip().endswith("?"))

    parts = [p for p in re.split(r"(?<=[.!?])\s+|\n+", question) if p.strip()]
    found: list[str] = []
    for sentence in [p for p in parts if asks(p)] or [question]:
        clauses = [c for c in re.split(r"\s[—–-]\s|;", sentence) if c.strip()]
        asking = [c for c in clauses if asks(c)] or clauses
        found += unread(" ".join(asking))
        for clause in (c for c in clauses if c not in asking):
            before = unread(clause)
            if values is None or value_conditions(before, values)[0]:
                found += before
    return list(dict.fromkeys(found))


# Units and scales in any case form («в рублях», «млн», «мвтч»): the figure's unit, no condition; read by prefix
# (no other short stem is: «мин» is no «Минск»). An environment's tier («на проде», "in prod") is where, not a
# condition either (``environments.TIER_PART``).
_UNITS = ("руб", "мвт", "квт", "млн", "млрд", "тыс", "mwh", "kwh", "rub", "roub", "₽")
_WATT_HOURS = re.compile(r"(мега|кило)ватт?[- ]?час\w*|(mega|kilo)watt[- ]?hours?", re.I)  # «мегаватт-часов»: a unit


@functools.cache
def _plain_stems() -> frozenset[str]:
    """The five-letter stems of the plain words (``plain_words``) and of ``FRAME_STEMS``, computed once."""
    return frozenset(w[:5] for w in plain_words() | FRAME_STEMS)


def values_wanted(question: str, payload: dict[str, Any]) -> bool:
    """True when the figure ``question`` asks of the dataset in ``payload`` is not written only for words the
    dataset's names do not account for, which its text columns' values may (``sql_values``): a month, a negation or
    an operator, a year not read or a part of a year are not written whatever the values are."""
    if read_period(question) is None or HARD_CONDITION.search(NEGATION.sub(" ", NO_BREAKDOWN.sub(" ", question))):
        return False
    return bool(unread_words(question, payload)) and bool(text_columns(payload))


def metric_named(question: str, payload: dict[str, Any]) -> bool:
    """A metric of the dataset is asked by its own name ("what's total_cost for Q1 2025?": one figure of it)."""
    return any(re.search(rf"\b{re.escape(str(m.get('name')))}\b", question) for m in payload.get("metrics") or [])


def aggregate_sql(
    question: str,
    payload: dict[str, Any],
    relation: str,
    quote: Callable[[Any], str],
    values: dict[str, list[str]] | None = None,
) -> str | None:
    """The ranking or duplicates SQL ``question`` asks of the dataset in ``payload`` (``superset_explore_database``'s
    dataset mode: ``columns`` ``[{"name", "type", "label"}]``, ``metrics`` ``[{"name", "expression", "label"}]``),
    selecting from ``relation``; ``quote`` quotes an identifier; ``values`` ``{column: [values]}`` of its text
    columns, when read (``sql_values``): the values the question names become its conditions. None when the question
    names no column to group by or no measure, or a condition it does not write (see the module docstring)."""
    found = figure_where(question, payload, quote, values)
    if found is None:
        return None  # a month or a condition («кроме газа», "where source = …") is not written: the SQL is asked for
    where, conditions = found
    functions = [f for f in _functions(question) if f != "AVG" or not PER_UNIT.search(question)]  # a price is one
    period = read_period(question) or Period()
    overall = GRAND_TOTAL.search(question) or functions or metric_named(question, payload)  # "whats the max …"
    unsplit = NO_BREAKDOWN.sub(" ", PER_UNIT.sub(" ", question))  # «без разбивки по источникам», "per MWh": no key
    total = bool(overall) and not (RANKING.search(question) or BREAKDOWN.search(unsplit) or period.by)
    words = question_words(ALL_OF.sub(" ", unsplit))  # «по всем регионам», "across all regions": no group by region
    columns = [c for c in payload.get("columns") or [] if c.get("name")]
    named = [c for c in columns if column_named(c, words)]
    if DUPLICATES.search(question):
        keys = [quote(c["name"]) for c in (named or columns)]
        if not keys:
            return None
        listed = ", ".join(keys)
        return (
            f"SELECT {listed}, COUNT(*) AS copies FROM {relation} GROUP BY {listed} "  # noqa: S608
            f"HAVING COUNT(*) > 1 ORDER BY copies DESC LIMIT {DUPLICATE_ROWS}"
        )
    if (RANKING.search(question) or EXTREME_SAID.search(question)) and TOP_ROWS.search(question):  # «топ-5 записей»
        return _top_rows(question, payload, relation, quote, where, named)
    dimensions = [c for c in named if not numeric(c) and not dated(c)]
    if SEPARATELY.search(question):  # «газа и угля по отдельности»: a row per value named
        dimensions = [c for c in columns if len(conditions.get(c["name"], [])) > 1] + dimensions
    if PER_UNIT.search(question):
        words = (words - {"cost", "стоимость"}) | {"price"}  # «сколько стоил 1 МВт·ч газа»: the price, no total
    if period.by and PRICE_ASKED.search(question) and not PRICE_NAMED.search(question):
        words = (words - {"price"}) | {"cost", "стоимость"}  # «самый дорогой месяц»: the month that cost most
    metrics = [m for m in payload.get("metrics") or [] if measure_named(m, words)]
    if PRICE_ASKED.search(question):  # «какой источник дешевле всего?»: ranked by the price, not the total cost
        metrics.sort(key=lambda m: "price" not in str(m.get("name")).casefold())
    measures = [f"{m['expression']} AS {quote(m['name'])}" for m in metrics]
    if PER_UNIT.search(question) and not any("price" in str(m.get("name")).casefold() for m in metrics):
        return None  # a price with no price metric: never a column's sum in its place (asked for as SQL)
    if not measures:
        measures = [f"SUM({quote(c['name'])}) AS {quote('sum_' + c['name'])}" for c in named if numeric(c)]
    if functions:  # "average consumption_mwh by region" was written as its SUM (a fresh check)
        numbers = [c for c in named if numeric(c)]
        carried = [m for m in metrics if any(f.casefold() in str(m.get("name")).casefold() for f in functions)]
        if numbers:
            measures = [
                f"{f}({quote(c['name'])}) AS {quote(f.lower() + '_' + c['name'])}" for c in numbers for f in functions
            ]
        elif carried:  # «средняя цена по регионам»: the dataset's own avg_price
            measures = [f"{m['expression']} AS {quote(m['name'])}" for m in carried]
        else:
            return None  # no column to take it of: the SQL is asked for, never a total in its place
    if not measures and COUNT.search(question):
        measures = ["COUNT(*) AS row_count"]  # "how many rows per region?"
    if period.by:  # «потребление по месяцам за 2025», "total cost by year and source": a row per period (and value)
        order = "ASC" if LEAST.search(question) else "DESC"
        ranked = RANKING.search(question) or EXTREME_SAID.search(question)  # «в каком месяце … максимальным»
        rank = (order, rows_asked(question)) if ranked else None
        # «Москва vs Санкт-Петербург by quarter»: two values of a column compared are a row each, not one sum
        compared = [c for c, vs in conditions.items() if len(vs) > 1 and not (dimensions or TOGETHER.search(question))]
        keys = [quote(d["name"]) for d in dimensions[:1]] or [quote(c) for c in compared[:1]]
        change = change_asked(question) and not rank  # «на сколько выросли … в 2025 против 2024»: the change too
        return by_period_sql(period, payload, relation, quote, where, keys, measures, rank, change)
    if CHANGE.search(question):
        return None  # a change with one period or none named («на сколько выросли затраты?»): never one total
    ranked = RANKING.search(question) or BREAKDOWN.search(question)  # «топ-5 записей … в Москве»: no total of it
    if (total or (conditions and not ranked)) and not dimensions and measures:
        return f"SELECT {', '.join(measures)} FROM {relation}{where}"  # noqa: S608 - one figure over all rows
    if not dimensions or not measures:
        return None
    keys = [quote(d["name"]) for d in dimensions[:3]]  # «по регионам и источникам»: a row per pair (it gave regions)
    dimension, by, order = ", ".join(keys), len(keys) + 1, "ASC" if LEAST.search(question) else "DESC"
    limit = rows_asked(question) if RANKING.search(question) else BREAKDOWN_ROWS
    sort = f"{by} {order}" if RANKING.search(question) or len(keys) == 1 else f"1, {by} {order}"
    return (
        f"SELECT {dimension}, {', '.join(measures)} FROM {relation}{where} "  # noqa: S608
        f"GROUP BY {dimension} ORDER BY {sort} LIMIT {limit}"
    )


# An average, a minimum or a maximum asked of a column («средняя стоимость по источникам», "min and max consumption per
# region"): that function, not the dataset's total. A lone Russian «максимальный» ranks (a ranking's «регион с
# максимальным потреблением»); «минимальное и максимальное» together are the functions.
_AVERAGE = re.compile(r"\b(average|avg)\b|(?<!\bi )\bmean\b|\bсредн\w*", re.I)  # not "I mean"
_MIN_MAX = re.compile(r"\b(min|max|minimum|maximum|мин|макс)\b", re.I)
_BOTH_RU = re.compile(r"минимальн\w*\s+и\s+максимальн\w*|максимальн\w*\s+и\s+минимальн\w*", re.I)
# «минимальное потребление гидро по регионам», «максимальная стоимость»: the function of that measure (a QA check got
# the SUM); «регион с максимальным потреблением» still ranks by the total.
_OF_MEASURE = re.compile(
    r"(?<!\bс )(?<!\bсо )\b(минимальн|максимальн)\w*\s+(?:значени\w*\s+)?(потреблени|стоимост|цен|расход)", re.I
)


def figure_where(
    question: str,
    payload: dict[str, Any],
    quote: Callable[[Any], str],
    values: dict[str, list[str]] | None = None,
    apart: frozenset[tuple[str, str]] = frozenset(),
) -> tuple[str, dict[str, list[str]]] | None:
    """The conditions of a figure ``question`` asks of the dataset in ``payload``: ``(" WHERE …" or "",
    {column: [values]})`` — the values it names (``values``, when read: ``sql_values``; but ``apart``, the
    ``(column, value)`` pairs a share is of) and its period on the dataset's date column; None when it says a condition
    that is not written (a word no name nor value accounts for, a negation, a threshold, a period not read), so the
    SQL is asked for rather than a figure of more rows given."""
    left_out, question = negated_values(question, values or {})  # «кроме газа»: "source" <> 'Газ'
    conditions, unread = value_conditions(unread_words(question, payload, values), values or {})
    if apart:
        conditions = {c: [v for v in vs if (c, v) not in apart] for c, vs in conditions.items()}
        conditions = {c: vs for c, vs in conditions.items() if vs}
    condition = CONDITION.search(NO_BREAKDOWN.sub(" ", question))
    if (conditions or left_out) and not HARD_CONDITION.search(NO_BREAKDOWN.sub(" ", question)):
        condition = None  # «в Москве», «только газ», «кроме газа»: the values read are the condition
    period = read_period(question)
    if period is None or condition or unread or THRESHOLD.search(YEAR.sub(" ", question)):
        return None
    in_percent = SHARE.search(question) or change_asked(question)  # a share's or a change's unit
    if NOT_WRITTEN.search(PERCENT_UNIT.sub(" ", question) if in_percent else question):
        return None  # «в процентах», «в тысячах МВт·ч», «округли», «среднемесячное»: a figure the SQL does not shape
    if SEPARATELY.search(question) and not (period.by or any(len(vs) > 1 for vs in conditions.values())):
        return None  # apart from what: asked
    clauses = values_where(conditions, quote) + values_where(left_out, quote, left_out=True)
    if period.ranges or period.months:
        column = date_column(payload)
        said = None if column is None else period_clauses(period, quote(column), backend_of(payload))
        if said is None:
            return None  # a period of a dataset with no date column, or a date's part of an unknown database
        clauses += said
    return (f" WHERE {' AND '.join(clauses)}" if clauses else "", conditions)


def _top_rows(
    question: str,
    payload: dict[str, Any],
    relation: str,
    quote: Callable[[Any], str],
    where: str,
    named: list[dict[str, Any]],
) -> str | None:
    """The records of the dataset with the highest (or lowest) value of the numeric column ``question`` names, or of
    the column its metric named sums (``total_consumption`` → ``consumption_mwh``); money in words («самые дорогие»)
    is the cost. None when no such column is named."""
    words = question_words(question) | ({"cost", "стоимость"} if PRICE_ASKED.search(question) else set())
    numbers = [str(c["name"]) for c in named if numeric(c)] + measure_columns(payload, words, numeric)
    if not numbers:
        return None
    order = "ASC" if LEAST.search(question) else "DESC"
    one = ONE_RECORD.search(question) and not re.search(r"\d|топ|top", YEAR.sub(" ", question), re.I)
    rows = 1 if one else rows_asked(question)
    return f"SELECT * FROM {relation}{where} ORDER BY {quote(numbers[0])} {order} LIMIT {rows}"  # noqa: S608


def distinct_sql(
    question: str,
    payload: dict[str, Any],
    relation: str,
    quote: Callable[[Any], str],
    values: dict[str, list[str]] | None = None,
) -> str | None:
    """``SELECT COUNT(DISTINCT "column") …`` when ``question`` asks how many different values a text column of the
    dataset in ``payload`` holds («сколько регионов в данных?», «в скольких регионах есть атом?» with the values
    read as its condition; ``weights.DISTINCT_COUNT``); None when the word counted names no text column, or a number
    other than a year is said («сколько регионов потребили больше 1000 МВт·ч?» is no count of all regions)."""
    counted = distinct_asked(question, payload)
    found = figure_where(question, payload, quote, values) if counted else None
    if counted is None or found is None or re.search(r"\d", YEAR_SPAN.sub(" ", YEAR.sub(" ", question))):
        return None
    name = counted
    return f"SELECT COUNT(DISTINCT {quote(name)}) AS {quote(name + '_count')} FROM {relation}{found[0]}"  # noqa: S608


def distinct_asked(question: str, payload: dict[str, Any]) -> str | None:
    """The name of the text column of the dataset in ``payload`` whose different values ``question`` counts
    («сколько регионов», "how many sources": ``weights.DISTINCT_COUNT``), or None."""
    match = DISTINCT_COUNT.search(question)
    columns = named_columns(match.group("ru") or match.group("en"), payload) if match else []
    return str(columns[0]["name"]) if columns else None


def figure_asked(question: str) -> bool:
    """A figure of the data is asked: a ranking, a breakdown, a total, a function of a column or duplicates
    (``weights.aggregate_asked``), or a count of rows."""
    return bool(aggregate_asked(question) or COUNT.search(question))


def listed_columns(question: str, payload: dict[str, Any]) -> list[str]:
    """The names of the dataset's text columns whose values ``question`` lists («какие регионы вообще есть в данных?
    и источники тоже перечисли» → ``region``, ``source``; turns_day12 h1211, a QA check), in the dataset's order; []
    when it asks a figure (a ranking names a column too: "which region consumed most") or its schema."""
    if figure_asked(question):
        return []
    named = {c["name"] for p in listing_phrases(question) for c in named_columns(p, payload)}
    return [name for name in text_columns(payload) if name in named]


def named_columns(question: str, payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The text columns of the dataset in ``payload`` that ``question`` names by name or label («регионы» →
    ``region``, labelled «Регион»), in the dataset's order."""
    words = question_words(question)
    text = set(text_columns(payload))
    return [c for c in payload.get("columns") or [] if c.get("name") in text and column_named(c, words)]


def _functions(question: str) -> list[str]:
    """The SQL aggregate functions ``question`` names: ``AVG``, ``MIN``, ``MAX`` (in that order), or []."""
    found = ["AVG"] if _AVERAGE.search(question) else []
    words = {m.group(1).casefold()[:3] for m in _MIN_MAX.finditer(question)}
    if _BOTH_RU.search(question):
        words |= {"min", "max", "мин", "мак"}
    words |= {m.group(1).casefold()[:3] for m in _OF_MEASURE.finditer(question)}
    found += ["MIN"] if words & {"min", "мин"} else []
    return found + (["MAX"] if words & {"max", "мак"} else [])
