"""Answer templates for the SQL tools (ru/en through the catalogue)."""

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agentchat.llm.offline.answers.base import answer_writer, items

SHOWN_ROWS = 10  # rows quoted in the answer; the full (capped) result stays in the tool message


def _cell(value: Any) -> str:
    if isinstance(value, float):
        value = round(value, 6)  # 83935788.89999993 → 83935788.9: binary float noise, not data
    text = "NULL" if value is None else str(value)
    return text if len(text) <= 60 else text[:59] + "…"


@answer_writer("superset_format_sql")
def format_sql(result: dict[str, Any], language: str) -> str:
    head = _("Formatted SQL (%(dialect)s):") % {"dialect": result.get("dialect")}
    return f"{head}\n```sql\n{result.get('sql')}\n```"


def _head(result: dict[str, Any], count: int, where: str) -> str:
    if result.get("truncated"):
        return ngettext(
            "Query on %(where)s: first %(count)d row shown (limit %(limit)s, more exist).",
            "Query on %(where)s: first %(count)d rows shown (limit %(limit)s, more exist).",
            count,
        ) % {"where": where, "count": count, "limit": result.get("row_limit")}
    return ngettext(
        "Query on %(where)s: %(count)d row in the result.", "Query on %(where)s: %(count)d rows in the result.", count
    ) % {"where": where, "count": count}


@answer_writer("superset_execute_sql")
def execute_sql(result: dict[str, Any], language: str) -> str:
    rows, _total = items(result.get("rows"))
    columns = [c.get("name") for c in items(result.get("columns"))[0]]
    count, where = int(result.get("row_count", len(rows)) or 0), f"{result.get('database')} ({result.get('env_id')})"
    if not result.get("truncated") and count == 1 and len(columns) == 1 and rows:
        # one value (COUNT, SUM, …): say it, not «1 row»
        row = rows[0]
        value = row[0] if isinstance(row, list) else row.get(columns[0]) if isinstance(row, dict) else row
        return _("Result of the query on %(where)s: %(column)s = %(value)s.") % {
            "where": where,
            "column": columns[0],
            "value": _cell(value),
        }
    lines = [_head(result, count, where)]
    if columns:
        shown = [_values(row, columns) for row in rows[:SHOWN_ROWS]]
        lines += ["", *markdown_table([str(c) for c in columns], shown)]
        if len(rows) > SHOWN_ROWS:
            rest = count - SHOWN_ROWS
            lines += [
                "",
                ngettext("… %(count)d more row in the result", "… %(count)d more rows in the result", rest)
                % {"count": rest},
            ]
    return "\n".join(lines)


def _values(row: Any, columns: list[Any]) -> list[Any]:
    """One result row as a list in column order (SQL Lab sends dicts; a summarised result may send lists)."""
    if isinstance(row, list):
        return row
    if isinstance(row, dict):
        return [row.get(c) for c in columns]
    return [row]


def markdown_table(columns: list[str], rows: list[list[Any]]) -> list[str]:
    """The lines of a GFM Markdown table: a header, the alignment row (numbers right-aligned) and one line per row.

    Args:
        columns: column names; rows: values in column order (None is shown as ``NULL``).

    Returns:
        ``["| a | b |", "| --- | ---: |", …]``; a ``|`` or ``\\`` inside a value is escaped.
    """
    numeric = [
        bool(rows) and all(isinstance(r[i], int | float) and not isinstance(r[i], bool) for r in rows if i < len(r))
        for i in range(len(columns))
    ]
    out = ["| " + " | ".join(_escape(c) for c in columns) + " |"]
    out.append("| " + " | ".join("---:" if n else "---" for n in numeric) + " |")
    out += ["| " + " | ".join(_escape(_cell(v)) for v in row) + " |" for row in rows]
    return out


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")
