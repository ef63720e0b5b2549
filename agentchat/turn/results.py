"""Tool results shown to the user as HTML beside the tool's line (issue 15 item 5, issue 30 item 4): SQL rows as
one table.

The LLM still gets the (summarised) JSON of the result (``runtime.summarise``); this is only what the page shows
under «✓ выполнение SQL-запроса»: the count sentence (``superset.result_table.count_text``, the same the answer
says), links to download the whole result as CSV (``web.exports``, run again as the user) and to open the query in
SQL Lab, and the first ``ROWS_SHOWN`` rows, numbers in the reader's format at their column's scale. ``result_html``
is called live (the ``tool_finished`` frame) and for a reloaded conversation's timeline (from the stored
ToolMessage, which may be the summarised form: ``{"items", "total"}``).
"""

from collections.abc import Callable
from typing import Any

from django.template.loader import render_to_string
from django.urls import reverse

from agentchat.superset.result_table import (
    ROWS_SHOWN,
    column_scale,
    count_text,
    is_number,
    listed,
    number_text,
    row_values,
    sqllab_url,
)

SQL_ROWS_SHOWN = ROWS_SHOWN
# What the model is told of a result with a view of its own (the ToolMessage's ``shown_to_user``).
SHOWN_AS_TABLE = (
    "The user already sees these rows as a table under the tool's line, with a CSV download and a SQL Lab link: "
    "do not repeat them as a table; answer the question or summarise in a sentence."
)


def result_note(tool: str) -> str | None:
    """``SHOWN_AS_TABLE`` for a tool whose result the page draws itself, else None."""
    return SHOWN_AS_TABLE if tool in _VIEWS else None


def result_html(
    tool: str, result: Any, *, conversation_id: int | None = None, call_id: str | None = None
) -> str | None:
    """The HTML of a tool result for the page, or None for a tool whose result has no view of its own.

    Args:
        tool: the tool name (``superset_execute_sql`` has a view).
        result: the tool's result dict (as the tool returned it, or summarised).
        conversation_id / call_id: the call's conversation and id, for the CSV link (none without them).

    Returns:
        An HTML fragment (``chat/sql_result.html``; every value escaped by the template) or None (also for a failed
        call's None result).
    """
    view = _VIEWS.get(tool)
    if view is None or not isinstance(result, dict):
        return None
    csv = reverse("sql-result-csv", args=[conversation_id, call_id]) if conversation_id and call_id else None
    return view(result, csv)


def _cell(value: Any, scale: int | None) -> dict[str, Any]:
    if value is None:
        return {"value": "", "null": True, "number": False}
    if scale is not None and is_number(value):
        return {"value": number_text(value, scale), "null": False, "number": True}
    return {"value": str(value), "null": False, "number": False}


def sql_table(result: dict[str, Any], csv_url: str | None = None) -> str:
    """A ``superset_execute_sql`` result (``columns``, ``rows``, ``row_count``, ``row_limit``, ``truncated``;
    ``tools.sql``) as a table: the count sentence, CSV / copy / SQL Lab links, the first ``ROWS_SHOWN`` rows under
    the column names (a column's type on hover), numbers right-aligned in the reader's format, NULL shown as
    ``NULL``."""
    columns_info = [c if isinstance(c, dict) else {"name": c} for c in listed(result.get("columns"))[0]]
    names = [str(c.get("name")) for c in columns_info]
    rows = [row_values(row, names) for row in listed(result.get("rows"))[0][:ROWS_SHOWN]]
    scales = [column_scale(c.get("type"), [r[i] for r in rows if i < len(r)]) for i, c in enumerate(columns_info)]
    context = {
        "columns": [
            {"name": name, "type": columns_info[i].get("type") or "", "number": scales[i] is not None}
            for i, name in enumerate(names)
        ],
        "rows": [[_cell(v, scales[i] if i < len(scales) else None) for i, v in enumerate(row)] for row in rows],
        "count": count_text(result, len(rows)),
        "csv_url": csv_url,
        "sqllab_url": sqllab_url(result.get("superset_url"), result),
    }
    return render_to_string("chat/sql_result.html", context)


_VIEWS: dict[str, Callable[[dict[str, Any], str | None], str]] = {"superset_execute_sql": sql_table}
