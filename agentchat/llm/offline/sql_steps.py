"""The SQL the offline planner writes itself (DESIGN §11: offline, it writes no query it was not asked for): a plain
count, the first rows, the distinct values of a named column, or a column's ``max(…)``/``min(…)`` written as SQL,
of a dataset's source, read from ``superset_explore_database``'s result; the database SQL named no database runs
on (the environment's only one); and the tables of a dataset's own database, read after the dataset.

Names are quoted as SQL identifiers, and every statement is proven read-only (``superset.sql_safety``) before it runs,
like any SQL a model writes.
"""

import re
from typing import Any

from agentchat.llm.offline.answers.base import items
from agentchat.llm.offline.mentions import Mentions
from agentchat.llm.offline.sql_aggregate import (
    CONDITION,
    aggregate_sql,
    distinct_asked,
    distinct_sql,
    figure_asked,
    figure_where,
    listed_columns,
    metric_named,
    unread_words,
    values_wanted,
)
from agentchat.llm.offline.sql_periods import EXTREME_SAID
from agentchat.llm.offline.sql_shares import share_sql
from agentchat.llm.offline.sql_values import VALUES_ROW_LIMIT, dated, numeric, value_conditions, values_read, values_sql
from agentchat.llm.offline.sql_words import COST_ASKED, ONE_RECORD, PRICE_ASKED, measure_columns, question_words
from agentchat.llm.offline.state import Result, Turn
from agentchat.toolset.listing import values_listed
from agentchat.toolset.weights import (
    ALL_ROWS,
    DATA_SPAN,
    DISTINCT_COUNT,
    SHARE,
    aggregate_asked,
    extreme_asked,
    writes_sql,
)
from agentchat.toolset.words import COUNT, FIRST_ROWS, VALUES

# A query of the conversation referred to («запрос выше», "the query from above", "run that query again").
EARLIER_QUERY = re.compile(
    r"\b(query|sql|select)\b.{0,20}\b(above|earlier|before|previous|again)\b|\b(that|the same|the last|the previous)"
    r"\s+(query|sql)\b|запрос\w*\s+(выше|сверху|ранее|из начала)|(тот|этот|предыдущ\w*|прошл\w*|вышеуказанн\w*|тот же)"
    r"\s+(sql-?)?запрос\w*",
    re.I,
)
# The other tables of a database asked for («какие ещё таблицы есть в базе этого датасета?», "which tables are in the
# database behind this dataset?"); a single table («из какой таблицы») is the dataset's own source.
TABLES_LISTED = re.compile(
    r"\b(?:which|what|other|all|list(?: of)?|any)\s+(?:other\s+|more\s+)?tables\b|\btables\s+(?:are|is|does|do|else)\b"
    r"|(?:какие|какая|другие|все|ещё|еще|остальные|список|прочие)\s+(?:ещё\s+|еще\s+|другие\s+|там\s+|есть\s+)?таблиц",
    re.I,
)
DATABASE_WORD = re.compile(r"\b(?:database|db)\b|\bбаз[аеуыо]\w*", re.I)
# A quantity asked in any words («сколько», «на сколько», "how much", "how many"): never answered with first rows.
HOW_MUCH = re.compile(r"(?<!\w)(на\s+)?скольк\w*|\bhow\s+(much|many)\b", re.I)
#: Rows of distinct values listed (the SQL's LIMIT); the tool's own row cap applies too.
VALUES_LIMIT = 50


def sql_for(
    question: str, payload: dict[str, Any], row_limit: int | None, values: dict[str, list[str]] | None = None
) -> str | None:
    """The SQL ``question`` asks of a dataset, from ``payload`` (``superset_explore_database`` in dataset mode:
    ``source`` ``{"table", "schema", "sql"}`` and ``columns`` ``[{"name"}]``), or None (no source, or distinct values
    of a column the dataset does not have). ``values`` are its text columns' values when read (``sql_values``).

    Returns:
        ``SELECT COUNT(DISTINCT "col") …`` of a text column counted (``sql_aggregate.distinct_sql``),
        ``SELECT COUNT(*) AS row_count FROM …`` (with the conditions ``sql_aggregate.figure_where`` writes; None when
        one is not written), ``SELECT DISTINCT "col" FROM … ORDER BY 1 LIMIT 50``, the values of the columns a
        question lists (``sql_values.values_sql``), a ranking, a total or the duplicates (``sql_aggregate``; None
        when its columns are not found) or ``SELECT * FROM … LIMIT n`` (``row_limit``, default 10).
    """
    relation = _relation(payload)
    if relation is None:
        return None
    if SHARE.search(question):  # «доля атома в потреблении Москвы за 2025»; None: asked for as SQL
        return share_sql(question, payload, relation, _identifier, values)
    one_record = EXTREME_SAID.search(question) and ONE_RECORD.search(question)  # «максимальное … за одну декаду»
    if (aggregate_asked(question) or one_record or metric_named(question, payload)) and (
        sql := aggregate_sql(question, payload, relation, _identifier, values)
    ):
        return sql  # a ranking, a breakdown or duplicates ("how many rows per region?" is no plain count)
    if distinct_asked(question, payload):  # «сколько регионов в данных?»; None: a condition not written
        return distinct_sql(question, payload, relation, _identifier, values)
    spanned = DATA_SPAN.search(question) or extreme_asked(question)
    if spanned and CONDITION.search(DATA_SPAN.sub(" ", question)):
        return None  # «первая и последняя дата по ВИЭ в Москве»: a condition the span does not write (a QA check)
    if DATA_SPAN.search(question) and (column := _date_column(payload)):  # «за какой период есть данные?»
        quoted, count = _identifier(column), "COUNT(*) AS row_count, " if COUNT.search(question) else ""
        return f"SELECT {count}MIN({quoted}) AS first_date, MAX({quoted}) AS last_date FROM {relation}"  # noqa: S608
    if COUNT.search(question):  # «сколько записей по Москве?» counted every row (a QA check): its conditions too
        found = figure_where(question, payload, _identifier, values)
        return None if found is None else f"SELECT COUNT(*) AS row_count FROM {relation}{found[0]}"  # noqa: S608
    extreme = extreme_asked(question)
    if extreme:  # «max(date) in prod», «макс дату глянь»: a column of the dataset only
        function, named = extreme
        column = _date_column(payload) if named is None else _column(payload, named)
        if column is None:
            return None
        alias = _identifier(f"{function.lower()}_{column}")
        return f"SELECT {function}({_identifier(column)}) AS {alias} FROM {relation}"  # noqa: S608
    if columns := listed_columns(question, payload):
        return values_sql(payload, relation, _identifier, columns)  # «какие регионы есть в данных?»
    if VALUES.search(question) and not FIRST_ROWS.search(question):
        names = [str(c.get("name")) for c in payload.get("columns") or [] if c.get("name")]
        words = set(re.findall(r"[\w]+", question.casefold()))
        column = next((n for n in names if n.casefold() in words), None)
        if column is None:
            return None
        quoted = _identifier(column)
        return f"SELECT DISTINCT {quoted} FROM {relation} ORDER BY 1 LIMIT {VALUES_LIMIT}"  # noqa: S608
    if aggregate_asked(question) or DISTINCT_COUNT.search(question) or HOW_MUCH.search(question):
        return None  # a figure not written («сколько дашбордов …», «на сколько процентов выросли …» are no rows)
    if PRICE_ASKED.search(question) or COST_ASKED.search(question) or _measure_named(question, payload):
        return None  # money or a measure asked in words no figure here reads («цена газа …?»): never the first rows
    if ALL_ROWS.search(question) and row_limit is None:
        return f"SELECT * FROM {relation}"  # noqa: S608 - the SQL tool's row cap applies and is said
    return f"SELECT * FROM {relation} LIMIT {10 if row_limit is None else row_limit}"  # noqa: S608 - see the module docstring


def figure_step(
    question: str, payload: dict[str, Any], row_limit: int | None, sql: str | None = None
) -> dict[str, Any] | None:
    """After a dataset's read (``payload``), the SQL call's arguments the question asks for: ``{"sql"}`` written
    (``sql_for``), else — with no SQL of the person's (``sql``) — ``{"sql", "row_limit"}`` of the read of its text
    values (``values_step``); None when neither."""
    if written := sql_for(question, payload, row_limit):
        return {"sql": written}
    return None if sql else values_step(question, payload)


def values_step(question: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """``{"sql", "row_limit"}`` of the query that reads the dataset's text values (``sql_values``) when the figure
    ``question`` asks is not written only for words they may account for; else None."""
    relation = _relation(payload)
    asked = figure_asked(question) or metric_named(question, payload) or distinct_asked(question, payload)
    if relation is None or not asked:
        return None
    if not values_wanted(question, payload):
        return None
    sql = values_sql(payload, relation, _identifier)
    return {"sql": sql, "row_limit": VALUES_ROW_LIMIT} if sql else None


def sql_after_values(turn: Turn, row_limit: int | None) -> dict[str, Any] | None:
    """After the values read (``values_step``), the figure's SQL call arguments (the dataset's, with the SQL written
    with the values as its conditions), ``{}`` when it is still not written (the SQL is asked for), or None when
    the last result is no values read."""
    read, values = _values_result(turn)
    if read is None:
        return None
    sql = sql_for(turn.question, read.payload, row_limit, values)
    return {**read.args, "sql": sql} if sql else {}


def still_unread(turn: Turn) -> list[str]:
    """The words of the question that the dataset read this turn (``superset_explore_database``), the words of asking
    and the values read (``sql_values``) do not account for; [] when no dataset was read."""
    read = next((r for r in reversed(turn.results) if r.tool == "superset_explore_database" and r.ok), None)
    if read is None or not isinstance(read.payload, dict):
        return []
    values = _values_result(turn)[1]
    return value_conditions(unread_words(turn.question, read.payload, values or None), values)[1]


def values_seen(turn: Turn) -> dict[str, list[str]]:
    """``{column: [values]}`` of the dataset's text columns when this turn's last call read them, else {}."""
    return _values_result(turn)[1]


def _values_result(turn: Turn) -> tuple[Result | None, dict[str, list[str]]]:
    """(the dataset's read, ``{column: [values]}``) when the last result is its values read, else (None, {})."""
    last = turn.results[-1] if turn.results else None
    read = turn.results[-2] if len(turn.results) > 1 else None
    if last is None or read is None or last.tool != "superset_execute_sql" or not last.ok:
        return None, {}
    if read.tool != "superset_explore_database" or not isinstance(read.payload, dict):
        return None, {}
    step = values_step(turn.question, read.payload)
    if step is None or last.args.get("sql") != step["sql"]:
        return None, {}
    return read, values_read(last.payload)


def refers_to_missing_query(question: str, earlier_sql: bool) -> bool:
    """True when ``question`` runs a query said to be earlier in the conversation («тот запрос», "the query from
    above") and none is there (``earlier_sql`` False): the person is asked for it, no model writes one in its place
    (day set d23: a model handed the turn ran ``SELECT * FROM your_table``)."""
    return not earlier_sql and bool(EARLIER_QUERY.search(question))


def only_database(payload: dict[str, Any]) -> int | None:
    """The id of the environment's only database in ``superset_explore_database``'s list (``databases``), or None
    (none or several: the person picks one from the answer)."""
    rows, _total = items(payload.get("databases"))
    return rows[0].get("id") if len(rows) == 1 else None


def sql_instead(intended: str, last: str, question: str) -> bool:
    """True when the figure, rows or values ``question`` asks are read with SQL although the tool ``intended`` reads
    a dataset: one found by name ("first 5 rows of energy_consumption"), or the page's dataset read by ``last``
    (``superset_explore_database``) when a figure is asked («по Татарстану по источникам», «количество записей по
    газу» were shown its description, a QA check)."""
    if intended in ("get_dataset_details", "search_datasets"):
        return True
    return intended == last == "superset_explore_database" and figure_asked(question)


def explore_next(question: str, read: Result, offered: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """After ``superset_explore_database`` answered ``read``, the call the question still asks, as ``(tool, args)``:
    the tables of the dataset's own database (``database_tables_args``), or the values of its columns the question
    lists («какие источники энергии есть?» was shown the columns, a QA check) when the SQL tool is ``offered``; else
    None (the dataset's description answers it)."""
    payload = read.payload if isinstance(read.payload, dict) else {}
    if tables := database_tables_args(question, payload):
        return read.tool, {"env_id": read.args.get("env_id"), **tables}
    dataset_id = read.args.get("dataset_id")
    if "superset_execute_sql" in offered and dataset_id and payload.get("mode") == "dataset":
        asked = listed_columns(question, payload) or DATA_SPAN.search(question)
        sql = sql_for(question, payload, None) if asked else None
        if sql:
            return "superset_execute_sql", {"env_id": read.args.get("env_id"), "dataset_id": dataset_id, "sql": sql}
    return None


def database_tables_args(question: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """``{"database_id", "schema"}`` of a dataset's own database when ``question`` asks which tables that database
    holds and ``payload`` is ``superset_explore_database``'s dataset answer (its ``source``); else None. A fresh
    check: "which tables are in the database behind this dataset?" on a dataset page was shown the dataset only."""
    source = payload.get("source") or {}
    if payload.get("mode") != "dataset" or not source.get("database_id"):
        return None
    if not (TABLES_LISTED.search(question) and DATABASE_WORD.search(question)):
        return None
    return {"database_id": source["database_id"], **({"schema": source["schema"]} if source.get("schema") else {})}


def sql_first_step(turn: Turn, mentions: Mentions, args: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The read before superset_execute_sql, as ``(tool, args)``, or None: SQL the planner writes itself reads the
    dataset's table first; SQL given with no database named lists the databases first (the environment's only one
    runs it). A count with a condition («сколько строк за 2023 год») is not one it writes: the SQL is asked for
    instead. ``args`` are the SQL call's arguments filled so far (``env_id``, ``dataset_id``…)."""
    if "superset_explore_database" not in turn.tools or not args.get("env_id"):
        return None
    if mentions.sql and not {"database_id", "database_name", "dataset_id"} & set(args):
        return "superset_explore_database", {"env_id": args["env_id"]}
    # «список регионов» with the SQL tool chosen: the dataset's columns decide whether values are listed
    listed = writes_sql(turn.question) or values_listed(turn.question)
    if listed and args.get("dataset_id") and not mentions.sql:
        return "superset_explore_database", {"env_id": args["env_id"], "dataset_id": args["dataset_id"]}
    return None


def _measure_named(question: str, payload: dict[str, Any]) -> bool:
    """The question names a measure of the dataset (a metric, a numeric column) outside a request for rows."""
    return not FIRST_ROWS.search(question) and bool(measure_columns(payload, question_words(question), numeric))


def _column(payload: dict[str, Any], name: str) -> str | None:
    """The dataset's column called ``name`` (any case), as Superset spells it, or None."""
    columns = {str(c.get("name")).casefold(): str(c.get("name")) for c in payload.get("columns") or []}
    return columns.get(name.casefold())


def _date_column(payload: dict[str, Any]) -> str | None:
    """The dataset's only date or time column (its type holds DATE or TIME), else its column called ``date``, or
    None (none, or several and none of them ``date``)."""
    dates = [str(c["name"]) for c in payload.get("columns") or [] if dated(c)]
    return dates[0] if len(dates) == 1 else _column(payload, "date")


def _relation(payload: dict[str, Any]) -> str | None:
    """What a dataset's SQL selects from: its table (``"schema"."table"``) or its SQL as a subquery; None without
    either."""
    source = payload.get("source") or {}
    if table := source.get("table"):
        schema = source.get("schema")
        return f"{_identifier(schema)}.{_identifier(table)}" if schema else _identifier(table)
    if source.get("sql"):
        return f"({str(source['sql']).rstrip(' ;')}) AS dataset"
    return None


def _identifier(name: Any) -> str:
    """``name`` as a double-quoted SQL identifier (an inner ``"`` doubled, so a name cannot end the quoting)."""
    return '"' + str(name).replace('"', '""') + '"'
