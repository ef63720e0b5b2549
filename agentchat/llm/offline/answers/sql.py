"""Answer templates for the SQL tools (ru/en)."""

from typing import Any

from agentchat.llm.offline.answers.base import answer_writer, items, t

SHOWN_ROWS = 10  # rows quoted in the answer; the full (capped) result stays in the tool message


def _cell(value: Any) -> str:
    if isinstance(value, float):
        value = round(value, 6)  # 83935788.89999993 → 83935788.9: binary float noise, not data
    text = "NULL" if value is None else str(value)
    return text if len(text) <= 60 else text[:59] + "…"


@answer_writer("superset_format_sql")
def format_sql(result: dict[str, Any], language: str) -> str:
    head = t(language, f"Отформатированный SQL ({result.get('dialect')}):", f"Formatted SQL ({result.get('dialect')}):")
    return f"{head}\n```sql\n{result.get('sql')}\n```"


@answer_writer("superset_execute_sql")
def execute_sql(result: dict[str, Any], language: str) -> str:
    rows, _ = items(result.get("rows"))
    columns = [c.get("name") for c in items(result.get("columns"))[0]]
    count, where = result.get("row_count", len(rows)), f"{result.get('database')} ({result.get('env_id')})"
    if result.get("truncated"):
        head = t(
            language,
            f"Запрос на {where}: показаны первые {count} строк (лимит {result.get('row_limit')}, есть ещё).",
            f"Query on {where}: first {count} rows shown (limit {result.get('row_limit')}, more exist).",
        )
    elif count == 1 and len(columns) == 1 and rows:
        # one value (COUNT, SUM, …): say it, not «1 row»
        row = rows[0]
        value = row[0] if isinstance(row, list) else row.get(columns[0]) if isinstance(row, dict) else row
        return t(
            language,
            f"Результат запроса на {where}: {columns[0]} = {_cell(value)}.",
            f"Result of the query on {where}: {columns[0]} = {_cell(value)}.",
        )
    else:
        head = t(language, f"Запрос на {where}: строк в результате — {count}.", f"Query on {where}: {count} rows.")
    lines = [head]
    if columns:
        lines.append(" | ".join(str(c) for c in columns))
        for row in rows[:SHOWN_ROWS]:
            values = row if isinstance(row, list) else [row.get(c) for c in columns] if isinstance(row, dict) else [row]
            lines.append(" | ".join(_cell(v) for v in values))
        if len(rows) > SHOWN_ROWS:
            lines.append(
                t(
                    language,
                    f"… ещё {count - SHOWN_ROWS} строк в результате",
                    f"… {count - SHOWN_ROWS} more rows in the result",
                )
            )
    return "\n".join(lines)
