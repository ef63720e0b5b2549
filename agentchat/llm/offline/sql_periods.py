"""The period a figure's question names, written on the dataset's date column by the SQL the offline planner writes
itself (issue 29: «сколько стоил газ в январе 2025?», «потребление Москвы за первый квартал 2024», "total cost by
year", «как менялось потребление газа по месяцам в 2024?» were asked back as SQL; "monthly consumption for
Moscow… I mean Москва, 2024" was given one average).

Read (``read_period``): a year («за 2025 год», "in 2024", "FY" forms are not), this or last year («в прошлом году»,
"this year": by today's date, ``django.utils.timezone.localdate``), a range of years («с 2024 по 2025»,
"2024–2025"), several years («2024 и 2025», "2024 vs 2025": each year a row), a month («в январе 2025», "March
2024"), a range of months («с января по март 2025»), a quarter («Q1 2025», «первый квартал», «1 кв.»), a half
(«первое полугодие», "H2"), and a breakdown by year or by month («по годам», «помесячно», "monthly", "year over
year"). A month, a quarter or a half of one year is a date range; of no year or of several, the months of every
year, a row per year. Anything else said of time («по кварталам», «за последние 3 месяца», "week 12", «за 24 год»)
is not read: None, and the SQL is asked for, never a figure of another period.

A date range is plain SQL (``"date" >= '2025-01-01' AND "date" < '2025-04-01'``); a date's part (the year or
month of a row) differs per database, so it is written once as PostgreSQL's ``TO_CHAR`` and transpiled by sqlglot
into the dataset's backend's dialect (SQLite: ``STRFTIME``); with a backend sqlglot does not know, it is not
written (None).
"""

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from django.utils import timezone

from agentchat.llm.offline.sql_values import NEGATION, dated
from agentchat.superset.sql_safety import dialect_for
from agentchat.toolset.weights import BY_MONTH, BY_QUARTER, BY_YEAR, RANKING, YEAR, YEAR_SPAN

# A year said in a form not read («за 24 год», "year 1812", "FY25"): the SQL is asked for.
YEAR_SAID = re.compile(r"\d\s*-?(й|ый|ом)?\s*(год\w*|гг?)(?![а-яё])|\b(year|fy)\s*-?\d|\b\d+\s+years?\b", re.I)
THIS_YEAR = re.compile(r"\b(в\s+)?(этом|текущем|нынешнем)\s+году\b|\bза\s+(этот|текущий)\s+год\b|\bthis\s+year\b", re.I)
LAST_YEAR = re.compile(
    r"\b(в\s+)?прошлом\s+году\b|\bза\s+прошлый\s+год\b|\b(last|previous|past)\s+year\b(?!s)|\bпрошлогодн\w*", re.I
)
_MONTHS = (
    r"январ\w*|january|jan", r"феврал\w*|february|feb", r"март\w*|march|mar", r"апрел\w*|april|apr",
    r"ма[йяе]|may", r"июн\w*|june|jun", r"июл\w*|july|jul", r"август\w*|august|aug",
    r"сентябр\w*|september|sept|sep", r"октябр\w*|october|oct", r"ноябр\w*|november|nov", r"декабр\w*|december|dec",
)  # fmt: skip
# A month's name; an English abbreviation or "may" only before a year ("Mar 2025"; "may" alone is a modal).
MONTH = re.compile(
    "|".join(rf"(?<!\w)(?P<m{n}>{m})(?!\w)" for n, m in enumerate(_MONTHS, 1)),  # «январь-февраль» too
    re.I,
)
_SHORT = re.compile(r"jan|feb|mar|apr|may|jun|jul|aug|sept?|oct|nov|dec", re.I)
_ORDINAL = {"перв": 1, "втор": 2, "трет": 3, "четв": 4, "firs": 1, "seco": 2, "thir": 3, "four": 4,
            "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}  # fmt: skip
QUARTER = re.compile(
    r"(?<![\w-])[qк]\s?(?P<a>[1-4])(?!\w)"
    r"|(?<!\w)(?P<b>[1-4](?:-?(?:й|ый|ом|м|е))?(?:\s*(?:,|и|and|&)\s*[1-4](?:-?(?:й|ый|ом|м|е))?)*)"
    r"\s*(?:кв\.?|квартал\w*)(?!\w)"
    r"|(?P<c>(?:(?:перв|втор|трет|четв[её]рт)\w*\s*(?:,|и)\s*)*(?:перв|втор|трет|четв[её]рт))\w*\s+квартал\w*"
    r"|\b(?P<d>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b"
    r"|\bquarter\s+(?P<e>[1-4])\b",
    re.I,
)
HALF = re.compile(
    r"(?P<a>перв|втор)\w*\s+полугоди\w*|(?<!\w)(?P<b>[12])\s?-?(?:е|ое)?\s*полугоди\w*|\b(?P<c>first|second)\s+half\b"
    r"|(?<![\w-])h(?P<d>[12])(?!\w)",
    re.I,
)
# A date given to the day or in digits («1-15 января», «на 1 января», «с 10 по 20 марта», "March 15", 2025-03-11,
# 2025-03, 01.01.2025): not read — a month's range would leave the days out, and a digits' date was dropped whole
# (a QA check: each gave a figure of another period).
DAY_DATE = re.compile(
    r"(?<![\w.])\d{4}-\d{1,2}(?:-\d{1,2})?(?![\w-])|(?<![\w.])\d{1,2}\.\d{1,2}(?:\.\d{2,4})?(?![\w.])"
    r"|(?<![\w.,])\d{1,2}(?:\s*[-–—]\s*\d{1,2})?\s*(?:-?го\s+)?(?:январ|феврал|март|апрел|ма[йяе]|июн|июл|август"
    r"|сентябр|октябр|ноябр|декабр|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
    r"|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?(?![\d:])",
    re.I,
)
# Time words the reading above leaves: a quarter or half not read, periods it does not break down by.
PERIOD_UNREAD = re.compile(
    r"квартал\w*|полугоди\w*|\bquarter\w*|\bhalf[- ]year\w*|недел\w*|\bweek\w*|по\s+дням|ежедневн\w*|\bdaily\b"
    r"|\bпоследни[ехм]\s+\d|\blast\s+\d|\bytd\b|\bmtd\b|с\s+начала\s+года"
    r"|(?<!топ-)(?<!топ )(?<!top-)(?<!top )\b\d+\s+(месяц\w*|months?)\b"
    r"|последн\w*\s+(\d+\s+)?(месяц|квартал|недел|год|дн|день|лет)\w*"
    r"|\b(last|past)\s+(\d+\s+)?(months?|quarters?|weeks?|days?)\b"
    r"|\bпервы[ехм]\s+\w+\s+месяц\w*|\bfirst\s+\w+\s+months\b|позапрошл\w*|прошл\w+\s+(месяц|квартал|недел)\w*"
    r"|\b(last|previous|past)\s+(month|quarter|week)\b|зим\w*|весн\w*|летом|лето\b|осен\w*"
    r"|\b(winter|spring|summer|autumn|fall)\b",
    re.I,
)
# A negation (``sql_values.NEGATION``) right before a period («не в декабре», «кроме января», "excluding 2024").
_NEGATED = re.compile(rf"(?:{NEGATION.pattern})((в|во|за|in|for)\s+)?$", re.I)
# Between two years or months: a range («с 2024 по 2025», "2024–2025", «с января по март»); else a list.
_RANGE = re.compile(r"^\s*(по|до|to|through|till|until|[-–—]|and)\s*$", re.I)
_RANGE_OPENED = re.compile(r"(?<!\w)(с|со|from|between)\s*$", re.I)
# The period a ranking ranks («какой месяц 2025 был самым дорогим?», "which year had the highest consumption?").
RANKED_PERIOD = re.compile(
    r"\b(?:как\w*|в\s+как\w*|which|what|(?:топ|top)[\s-]*\d{1,2})\s+(месяц\w*|год\w*|лет|months?|years?)\b", re.I
)
# An extreme said of a period («в каком месяце потребление было максимальным»): a ranking of periods too.
EXTREME_SAID = re.compile(r"максимальн\w*|минимальн\w*|\bmaximum\b|\bminimum\b", re.I)
_RANGE_WORDS = re.compile(r"\b(between|through|until|till|compared?|versus|vs)\b|\bсравн\w*", re.I)
_DASH_OR_TO = re.compile(r"^\s*(по|до|to|through|till|until|[-–—])\s*$", re.I)
#: Rows of a breakdown by year or month (24 months × 6 regions is 144 rows; the SQL tool's own row cap applies).
PERIOD_ROWS = 500
# The date's part of a row per period, as PostgreSQL writes it (``date_part``); a quarter has no format letter
# sqlglot writes for every database, so it is the year and the quarter of the month («2025-Q1»).
_PARTS = {
    "year": "TO_CHAR({c}, 'YYYY')",
    "month": "TO_CHAR({c}, 'YYYY-MM')",
    "quarter": "TO_CHAR({c}, 'YYYY') || '-Q' || CASE WHEN TO_CHAR({c}, 'MM') <= '03' THEN '1'"
    " WHEN TO_CHAR({c}, 'MM') <= '06' THEN '2' WHEN TO_CHAR({c}, 'MM') <= '09' THEN '3' ELSE '4' END",
}
# The breakdown a question asks, the first that matches («по месяцам» before «по годам»).
_BY = (("month", BY_MONTH), ("quarter", BY_QUARTER), ("year", BY_YEAR))


@dataclass(frozen=True)
class Period:
    """A figure's period: ``ranges`` ``[(first day, day after the last)]`` of the date column (none: every row),
    ``months`` the months of every year (1–12; empty: all), ``by`` the date's part each row is (``"year"``,
    ``"quarter"``, ``"month"`` or None: one figure)."""

    ranges: tuple[tuple[dt.date, dt.date], ...] = ()
    months: tuple[int, ...] = ()
    by: str | None = None


def read_period(question: str, today: dt.date | None = None) -> Period | None:
    """The period ``question`` names (see the module docstring); ``today`` for «в этом году» (default: today's local
    date). None when it says a period this reading does not write, so the SQL is asked for."""
    today = today or timezone.localdate()
    years = [int(y) for y in YEAR.findall(question)]
    years += [today.year] if THIS_YEAR.search(question) else []
    years += [today.year - 1] if LAST_YEAR.search(question) else []
    if _period_left_out(question):
        return None  # «в 2025, но не в декабре», «кроме января»: the rest of which period, asked (a QA check)
    if DAY_DATE.search(question) or PERIOD_UNREAD.search(
        HALF.sub(" ", QUARTER.sub(" ", BY_QUARTER.sub(" ", question)))
    ):
        return None  # «за последние 3 месяца», «по неделям»
    if YEAR_SAID.search(question) and not (YEAR.search(question) or YEAR_SPAN.search(question)):
        return None  # «за 24 год», "FY25"
    months = _months(question)
    if months is None:
        return None
    by = next((b for b, said in _BY if said.search(question)), None)
    ranking = RANKING.search(question) or EXTREME_SAID.search(question)
    if by is None and ranking and (ranked := RANKED_PERIOD.search(question)):
        by = "year" if ranked.group(1).casefold()[0] in "гy" else "month"  # «какой месяц был самым дорогим?»
    years = list(dict.fromkeys(years))
    if span := YEAR_SPAN.search(question):
        years = [int(span.group(1)), int(span.group(2))]
    if len(years) > 1 and len(months) > 1:
        return None  # «с ноября 2024 по февраль 2025», «январь 2024 и март 2025»: the months of which year
    if len(years) > 1 and (span or _years_range(question)):
        first, last = min(years), max(years)
        return Period(
            ranges=((dt.date(first, 1, 1), dt.date(last + 1, 1, 1)),),
            months=months,
            by=by or ("year" if months else None),
        )
    if len(years) > 1:  # «2024 и 2025», "2024 vs 2025": a row per year
        return Period(ranges=_joined(tuple(_year(y) for y in years)), months=months, by=by or "year")
    if years and months:  # a month, a quarter or a half of one year: a date range
        ranges = tuple((_day(years[0], m), _day(years[0], m + 1)) for m in months)
        return Period(ranges=_joined(ranges), by=by)
    if years:
        return Period(ranges=(_year(years[0]),), by=by)
    return Period(months=months, by=by or ("year" if months else None))


def _period_left_out(question: str) -> bool:
    """A month, quarter, half or year said right after a negation («но не в декабре», «кроме 2024», "except Q4")."""
    periods = (MONTH, QUARTER, HALF, YEAR)
    return any(_NEGATED.search(question[: m.start()]) for pattern in periods for m in pattern.finditer(question))


def without_period(text: str) -> str:
    """``text`` without the words of a period this module reads (months, quarters, halves, this or last year, a
    breakdown by year or month): they are no condition the SQL leaves out (``sql_aggregate.unread_words``)."""
    for pattern in (
        BY_YEAR,
        BY_MONTH,
        BY_QUARTER,
        THIS_YEAR,
        LAST_YEAR,
        QUARTER,
        HALF,
        MONTH,
        RANKED_PERIOD,
        _RANGE_WORDS,
    ):
        text = pattern.sub(" ", text)
    return text


def period_clauses(period: Period, column: str, backend: Any) -> list[str] | None:
    """The WHERE clauses of ``period`` on the date ``column`` (quoted), in ``backend``'s dialect (Superset's database
    ``backend``); None when a date's part is needed and sqlglot does not know the backend."""
    clauses = []
    if period.ranges:
        ranges = [
            f"{column} >= '{first.isoformat()}' AND {column} < '{end.isoformat()}'" for first, end in period.ranges
        ]
        clauses.append(ranges[0] if len(ranges) == 1 else "(" + " OR ".join(f"({r})" for r in ranges) + ")")
    if period.months:
        part = date_part(column, "MM", backend)
        if part is None:
            return None
        clauses.append(f"{part} IN ({', '.join(repr(f'{m:02d}') for m in period.months)})")
    return clauses


def period_column(period: Period, column: str, backend: Any, quote: Any) -> str | None:
    """The SELECT item of the date's part ``period`` is broken down by (``TO_CHAR(…, 'YYYY') AS "year"`` in
    ``backend``'s dialect), or None (no breakdown, or a backend sqlglot does not know)."""
    if period.by is None:
        return None
    part = _transpiled(_PARTS[period.by].format(c=column), backend)
    return None if part is None else f"{part} AS {quote(period.by)}"


def date_part(column: str, pattern: str, backend: Any) -> str | None:
    """``TO_CHAR(column, pattern)`` (PostgreSQL's format: ``YYYY``, ``MM``, ``YYYY-MM``) transpiled to the dialect of
    Superset's database ``backend`` (``superset.sql_safety.dialect_for``); None for a backend it does not name."""
    return _transpiled(f"TO_CHAR({column}, '{pattern}')", backend)


def _transpiled(expression: str, backend: Any) -> str | None:
    """PostgreSQL's ``expression`` in the dialect of ``backend`` (``date_part``), or None."""
    dialect = dialect_for(backend)
    return None if dialect is None else sqlglot.transpile(expression, read="postgres", write=dialect)[0]


def _months(question: str) -> tuple[int, ...] | None:
    """The months of the year ``question`` names (a month, a range of months, a quarter, a half), () for none, None
    for a month said twice in a way not read («январь и март» with a quarter)."""
    found = [(m.start(), m.end(), _month(m)) for m in MONTH.finditer(question)]
    found = [f for f in found if f[2]]
    quarters = {n for m in QUARTER.finditer(question) for n in _ordinals(m)}
    halves = {n for m in HALF.finditer(question) for n in _ordinals(m)}
    if sum(map(bool, (found, quarters, halves))) > 1:
        return None
    if quarters:
        return tuple(m for q in sorted(quarters) for m in range(3 * q - 2, 3 * q + 1))
    if halves:
        return tuple(m for h in sorted(halves) for m in range(6 * h - 5, 6 * h + 1))
    if len(found) == 2 and _bounds(question, found[0][:2], found[1][:2]) and found[0][2] < found[1][2]:
        return tuple(range(found[0][2], found[1][2] + 1))  # «с января по март»
    return tuple(sorted({f[2] for f in found}))


def _ordinals(match: re.Match[str]) -> set[int]:
    """The numbers of a ``QUARTER`` or ``HALF`` match: its digits («2 и 3 кварталы», a QA check summed only the
    third) or its ordinal word («первый», "second")."""
    said = next(g for g in match.groups() if g)
    digits = re.findall(r"\d", said)
    words = re.findall(r"перв|втор|трет|четв|first|second|third|fourth|1st|2nd|3rd|4th", said.casefold())
    return {int(d) for d in digits} if digits else {_ORDINAL[w[:4]] for w in words}


def _month(match: re.Match[str]) -> int:
    """The month (1–12) of a ``MONTH`` match; 0 for an English abbreviation or "may" not before a year."""
    number = int(next(name for name, value in match.groupdict().items() if value)[1:])
    word = match.group(0)
    if _SHORT.fullmatch(word) and not YEAR.match(match.string[match.end() :].lstrip(" .,")):
        return 0
    return number


def _years_range(question: str) -> bool:
    """The two years of ``question`` bound a range («с 2024 по 2025», "2024-2025"), not a list («2024 и 2025»)."""
    spans = [m.span() for m in YEAR.finditer(question)]
    return len(spans) == 2 and _bounds(question, spans[0], spans[1])


def _bounds(question: str, first: tuple[int, int], second: tuple[int, int]) -> bool:
    """The two words at spans ``first`` and ``second`` of ``question`` bound a range: a dash or «по» / "to" between
    them, or «с … и …» / "between … and …" around them; «и» / "and" alone lists them ("January and March" is no
    February)."""
    between = question[first[1] : second[0]]
    opened = _RANGE_OPENED.search(question[: first[0]])
    return bool(_DASH_OR_TO.match(between) or (opened and _RANGE.match(between)))


def _year(year: int) -> tuple[dt.date, dt.date]:
    return dt.date(year, 1, 1), dt.date(year + 1, 1, 1)


def _day(year: int, month: int) -> dt.date:
    """The first day of ``month`` of ``year`` (month 13: January of the next year)."""
    return dt.date(year + (month - 1) // 12, (month - 1) % 12 + 1, 1)


def _joined(ranges: tuple[tuple[dt.date, dt.date], ...]) -> tuple[tuple[dt.date, dt.date], ...]:
    """Adjacent ranges joined into one (January, February, March → January 1 to April 1)."""
    joined: list[tuple[dt.date, dt.date]] = []
    for first, end in sorted(ranges):
        if joined and joined[-1][1] == first:
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((first, end))
    return tuple(joined)


def by_period_sql(
    period: Period,
    payload: dict[str, Any],
    relation: str,
    quote: Callable[[Any], str],
    where: str,
    dimensions: list[str],
    measures: list[str],
    ranked: tuple[str, int] | None = None,
    change: bool = False,
) -> str | None:
    """The breakdown by ``period.by`` (the year or month of the dataset's date column), then by ``dimensions``, of
    ``measures``, in the order of time — or, ``ranked`` ``("DESC"|"ASC", rows)``, by the first measure («какой месяц
    2025 был самым дорогим?»); with ``change``, each row's change of the first measure from the period before, in
    per cent (``change_percent``: ``LAG`` over the periods of the same ``dimensions``; NULL for the first period).
    None with no measure, no date column or a database whose date parts sqlglot does not write."""
    column = date_column(payload)
    part = None if column is None else period_column(period, quote(column), backend_of(payload), quote)
    if part is None or not measures:
        return None
    keys = ", ".join(str(n) for n in range(1, len(dimensions) + 2))
    order, limit = (f"{len(dimensions) + 2} {ranked[0]}", ranked[1]) if ranked else (keys, PERIOD_ROWS)
    if change:
        figure, when = measures[0].rsplit(" AS ", 1)[0], part.rsplit(" AS ", 1)[0]
        window = f"OVER ({'PARTITION BY ' + ', '.join(dimensions) + ' ' if dimensions else ''}ORDER BY {when})"
        before = f"LAG({figure}) {window}"
        measures = [*measures, f'ROUND(100.0 * ({figure} - {before}) / NULLIF({before}, 0), 2) AS "change_percent"']
    return (
        f"SELECT {', '.join([part, *dimensions, *measures])} FROM {relation}{where} "  # noqa: S608
        f"GROUP BY {keys} ORDER BY {order} LIMIT {limit}"
    )


def date_column(payload: dict[str, Any]) -> str | None:
    """The name of the dataset's first date or time column in ``payload``, or None."""
    return next((str(c["name"]) for c in payload.get("columns") or [] if c.get("name") and dated(c)), None)


def backend_of(payload: dict[str, Any]) -> Any:
    """Superset's ``backend`` of the dataset's database (``source.backend``), or None."""
    return (payload.get("source") or {}).get("backend")
