"""Answer templates for the SQL tools (ru/en through the catalogue)."""

from typing import Any

from django.utils.translation import gettext as _

from agentchat.llm.offline.answers.base import answer_writer, items
from agentchat.llm.offline.answers.markup import md_text
from agentchat.superset.result_table import column_scale, number_text, row_values, rows_total, total_text


@answer_writer("superset_format_sql")
def format_sql(result: dict[str, Any], language: str) -> str:
    head = _("Formatted SQL (%(dialect)s):") % {"dialect": result.get("dialect")}
    return f"{head}\n```sql\n{result.get('sql')}\n```"


@answer_writer("superset_execute_sql")
def execute_sql(result: dict[str, Any], language: str) -> str:
    """One sentence: a single value (COUNT, SUM…) said in the reader's number format, else where the query ran and
    how many rows it gave in the numbers the table above it says (``result_table.total_text``); the rows are not
    drawn twice."""
    rows, _total = items(result.get("rows"))
    columns = [str(c.get("name")) for c in items(result.get("columns"))[0] if isinstance(c, dict)]
    where = f"{md_text(result.get('database'))} ({result.get('env_id')})"
    if not result.get("truncated") and int(result.get("row_count") or len(rows)) == 1 and len(columns) == 1 and rows:
        # one value (COUNT, SUM, …): say it, not «1 row»
        value = row_values(rows[0], columns)[0]
        if value is None:  # SUM over no rows («за 2031 год»): no figure, said as such rather than «= NULL»
            return _(
                "The query on database %(where)s gave no value of %(column)s (NULL): no row matches its conditions, "
                "or the rows that do hold no value."
            ) % {"where": where, "column": md_text(columns[0])}
        scale = column_scale(items(result.get("columns"))[0][0].get("type"), [value])
        shown = number_text(value, scale) if scale is not None else md_text(value)
        return _("Result of the query on database %(where)s: %(column)s = %(value)s.") % {
            "where": where,
            "column": md_text(columns[0]),
            "value": shown,
        }
    if not rows_total(result):
        return _("The query on database %(where)s ran and returned no rows.") % {"where": where}
    return _("The query on database %(where)s ran: %(count)s The table is above, under the query's line.") % {
        "where": where,
        "count": total_text(result),
    }
