"""Tool results shown to the user as HTML beside the tool's line (issue 15 item 5): SQL rows as a table.

The LLM still gets the (summarised) JSON of the result (``runtime.summarise``); this is only what the page shows
under «✓ выполнение SQL-запроса». ``result_html`` is called live (the ``tool_finished`` frame) and for a reloaded
conversation's timeline (from the stored ToolMessage, which may be the summarised form: ``{"items", "total"}``).
"""

from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from django.utils.translation import gettext, ngettext

SQL_ROWS_SHOWN = 50  # rows of a SQL result drawn in the table; the rest is counted («ещё N строк»)


def result_html(tool: str, result: Any) -> str | None:
    """The HTML of a tool result for the page, or None for a tool whose result has no view of its own.

    Args:
        tool: the tool name (``superset_execute_sql`` has a view).
        result: the tool's result dict (as the tool returned it, or summarised).

    Returns:
        An HTML fragment (``chat/sql_result.html``; every value escaped by the template) or None.
    """
    view = _VIEWS.get(tool)
    return view(result) if view is not None and isinstance(result, dict) else None


def _listed(value: Any) -> tuple[list[Any], int]:
    """(items, total) of a list the summariser may have shortened to ``{"items", "total"}``."""
    if isinstance(value, dict) and "items" in value:
        return list(value["items"]), int(value.get("total", len(value["items"])))
    return list(value or []), len(value or [])


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cell(value: Any) -> dict[str, Any]:
    # As the database sent it (no locale's decimal comma); 83935788.89999993 → 83935788.9: binary float noise.
    shown = str(round(value, 6) if isinstance(value, float) else value)
    return {"value": shown, "null": value is None, "number": _is_number(value)}


def _note(hidden: int, result: dict[str, Any]) -> str:
    """«ещё N строк» for rows not drawn, and «достигнут лимит в N строк» when the row cap cut the result."""
    parts = []
    if hidden > 0:
        parts.append(ngettext("%(count)d more row", "%(count)d more rows", hidden) % {"count": hidden})
    if result.get("truncated"):
        parts.append(gettext("the limit of %(limit)s rows was reached") % {"limit": result.get("row_limit")})
    return " · ".join(parts)


def sql_table(result: dict[str, Any]) -> str:
    """A ``superset_execute_sql`` result as a table (``superset_execute_sql`` returns ``columns``, ``rows``,
    ``row_count``, ``truncated``; ``tools.sql``): the first ``SQL_ROWS_SHOWN`` rows under the column names,
    numbers right-aligned, NULL shown as ``NULL``, and «ещё N строк» for rows not drawn (ngettext).
    """
    columns = [str(c.get("name")) if isinstance(c, dict) else str(c) for c in _listed(result.get("columns"))[0]]
    rows, listed = _listed(result.get("rows"))
    total = max(int(result.get("row_count") or 0), listed)
    cells = []
    for row in rows[:SQL_ROWS_SHOWN]:
        values = row if isinstance(row, list) else [row.get(c) for c in columns] if isinstance(row, dict) else [row]
        cells.append([_cell(v) for v in values])
    numeric = [
        any(r[i]["number"] for r in cells if i < len(r))
        and all(r[i]["number"] or r[i]["null"] for r in cells if i < len(r))
        for i in range(len(columns))
    ]
    context = {
        "columns": [{"name": name, "number": numeric[i]} for i, name in enumerate(columns)],
        "rows": cells,
        "hidden": total - len(cells),
        "note": _note(total - len(cells), result),
    }
    return render_to_string("chat/sql_result.html", context)


_VIEWS: dict[str, Callable[[dict[str, Any]], str]] = {"superset_execute_sql": sql_table}
