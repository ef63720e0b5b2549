"""A SQL Lab result as people read it (issue 30 item 4): one count sentence, numbers in the reader's locale at the
column's own scale, the link to run the query in SQL Lab.

The page's table (``turn.results``) and the offline answer (``llm.offline.answers.sql``) both say how many rows
there are through ``count_text``, so they never disagree («показано 50 из 100; лимит 100» beside «первые 100»
beside «ещё 90» was the bug). Numbers: ``432421141162.26013`` (a SUM of floats) is written «432 421 141 162,26»
in Russian and "432,421,141,162.26" in English — the decimals are the column's scale (``DECIMAL(p, s)`` when the
database says so, else what the column's values need at fifteen significant digits, float's precision), and
groups start at five digits, as Russian typography writes numbers (a year stays «2024»).
"""

import re
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlencode

from django.utils.formats import number_format
from django.utils.translation import ngettext

ROWS_SHOWN = 50  # rows of a SQL result drawn on the page; the count sentence says how many there are
SCALE_MAX = 6  # decimals shown at most, whatever a float's digits
FULL_DIGITS = 14  # significant digits from which a float's last ones may be a sum's rounding noise
_FLOAT_NOISE = re.compile(r"(?:0{2,}|9{2,})\d?$")
SIGNIFICANT_SHOWN = 6  # digits a fraction is shown to, whole ones counted, but never fewer than two decimals
GROUPING_FROM = 10_000  # numbers from five digits get thousands separators
_DECLARED_SCALE = re.compile(r"(?:DECIMAL|NUMERIC|NUMBER)\s*\(\s*\d+\s*,\s*(\d+)\s*\)", re.IGNORECASE)


def listed(value: Any) -> tuple[list[Any], int]:
    """(items, total) of a list the summariser may have shortened to ``{"items", "total"}``."""
    if isinstance(value, dict) and "items" in value:
        return list(value["items"]), int(value.get("total", len(value["items"])))
    return list(value or []), len(value or [])


def is_number(value: Any) -> bool:
    """True for an int or float that is not a bool."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def row_values(row: Any, columns: list[str]) -> list[Any]:
    """One result row as a list in column order (SQL Lab sends dicts; a summarised result may send lists)."""
    if isinstance(row, list):
        return row
    if isinstance(row, dict):
        return [row.get(c) for c in columns]
    return [row]


def rows_total(result: dict[str, Any]) -> int:
    """The rows a result has: its ``row_count``, or the total of its (summarised) ``rows`` when that is larger."""
    return max(int(result.get("row_count") or 0), listed(result.get("rows"))[1])


def count_text(result: dict[str, Any], shown: int) -> str:
    """The one sentence about how many rows a ``superset_execute_sql`` result has, ``shown`` of them drawn.

    Args:
        result: the tool's result (``row_count``, ``row_limit``, ``truncated``; ``rows`` possibly summarised).
        shown: how many rows the reader sees.

    Returns:
        «80 строк.», «Показано 50 из 80 строк.» or, when the row cap cut the result, «Показано 50 из первых 100
        строк; лимит 100, у запроса есть ещё строки.» (``ngettext`` by the total).
    """
    total = rows_total(result)
    if result.get("truncated"):
        return ngettext(
            "Shown %(shown)d of the first %(total)d row; the limit is %(limit)s and the query has more.",
            "Shown %(shown)d of the first %(total)d rows; the limit is %(limit)s and the query has more.",
            total,
        ) % {"shown": shown, "total": total, "limit": result.get("row_limit") or total}
    if shown < total:
        return ngettext("Shown %(shown)d of %(total)d row.", "Shown %(shown)d of %(total)d rows.", total) % {
            "shown": shown,
            "total": total,
        }
    return ngettext("%(total)d row.", "%(total)d rows.", total) % {"total": total}


def total_text(result: dict[str, Any]) -> str:
    """How many rows the query gave, without what is drawn (the answer's words; the table above says the same
    numbers with ``count_text``): «80 строк.», or «100 строк; лимит 100, у запроса есть ещё строки.»."""
    total = rows_total(result)
    if result.get("truncated"):
        return ngettext(
            "%(total)d row; the limit is %(limit)s and the query has more.",
            "%(total)d rows; the limit is %(limit)s and the query has more.",
            total,
        ) % {"total": total, "limit": result.get("row_limit") or total}
    return ngettext("%(total)d row.", "%(total)d rows.", total) % {"total": total}


def _decimals(value: float) -> int:
    """Decimals ``value`` needs at fifteen significant digits: 432421141162.26013 → 2 (…162.260), 0.1 + 0.2 → 1.

    A float that fills fourteen or fifteen digits and ends in a run of two or more 0s or 9s (and at most one digit
    after) carries a sum's rounding noise there, not data: 20713944.699999001 → 1 (…944.7), 66394075732.2299 → 2
    (…732.23). A number of n whole digits shows at most ``max(2, SIGNIFICANT_SHOWN - n)`` decimals (an average price
    3111.732046 → 3111.73; 0.000123 keeps its six): the SQL Lab link and the CSV carry every digit."""
    try:
        text = format(Decimal(format(value, ".15g")).normalize(), "f")
    except InvalidOperation:
        return 0
    whole, _, fraction = text.lstrip("-").partition(".")
    noise = _FLOAT_NOISE.search(fraction)
    if noise and len((whole + fraction).lstrip("0")) >= FULL_DIGITS:
        fraction = fraction[: noise.start()]
    shown = max(2, SIGNIFICANT_SHOWN - len(whole.lstrip("0")))
    return min(SCALE_MAX, shown, len(fraction))


def column_scale(column_type: Any, values: list[Any]) -> int | None:
    """The decimals a numeric column is shown with: its declared ``DECIMAL(p, s)`` scale, else the most its floats
    need (``_decimals``), 0 for integers; None for a column that holds something else than numbers and NULLs."""
    numbers = [v for v in values if v is not None]
    if not numbers or not all(is_number(v) for v in numbers):
        return None
    declared = _DECLARED_SCALE.search(str(column_type or ""))
    if declared:
        return min(SCALE_MAX, int(declared.group(1)))
    return max((_decimals(v) for v in numbers if isinstance(v, float)), default=0)


def number_text(value: int | float, scale: int) -> str:
    """``value`` in the active language's format with ``scale`` decimals: «432 421 141 162,26», «2024»."""
    shown = round(value, scale) if isinstance(value, float) else value  # Django's number_format cuts, not rounds
    return number_format(shown, decimal_pos=scale, use_l10n=True, force_grouping=abs(value) >= GROUPING_FROM)


def sqllab_url(superset_url: str | None, result: dict[str, Any]) -> str | None:
    """Superset's SQL Lab with the query in a new tab on its database and schema (its ``/sqllab/?dbid=…&sql=…``
    parameters), or None without the environment's address or the query."""
    if not superset_url or not result.get("sql") or result.get("database_id") is None:
        return None
    query = {"dbid": result["database_id"], "sql": result["sql"]}
    if result.get("schema"):
        query["schema"] = result["schema"]
    return f"{superset_url.rstrip('/')}/sqllab/?{urlencode(query)}"
