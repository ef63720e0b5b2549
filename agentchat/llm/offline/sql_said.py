"""The SQL a question carries and the SQL dialect it names, read by rules (offline planner, DESIGN §11).

Pure functions of the text; no database, no network (sqlglot only parses).
"""

import re

import sqlglot

BACKTICKS = re.compile(r"`{1,3}(?:sql\n)?([^`]+)`{1,3}", re.I)
SQL_START = re.compile(r"\b(select|with)\b\s+[\s\S]+", re.I)
# A statement that writes, said before a SELECT («UPDATE t SET …; SELECT 1»): the SQL starts there, so the SQL tool's
# read-only check refuses it in words, rather than the write being dropped unsaid (a fresh check, q10).
WRITE_START = re.compile(
    r"\b(update\s+[\w.\"]+\s+set|insert\s+into|delete\s+from|drop\s+(table|view|schema|database|index)|alter\s+table"
    r"|truncate\s+(table\s+)?[\w.\"]+|create\s+(or\s+replace\s+)?(table|view|index)|merge\s+into|grant\s+\w+\s+on)\b[\s\S]+",
    re.I,
)
# A SELECT that opens the message or a line («select current_user, version()»): SQL even with no FROM.
SQL_LEADS = re.compile(r"(?:^|[:\n])\s*(select|with)\b", re.I)

DIALECTS = {
    "postgres": r"postgres\w*|постгрес\w*|pg\b",
    "mysql": r"mysql",
    "sqlite": r"sqlite",
    "tsql": r"t-?sql|ms ?sql|sql server",
    "bigquery": r"bigquery",
    "snowflake": r"snowflake",
    "clickhouse": r"clickhouse",
    "oracle": r"oracle",
}

# How many trailing clauses are cut off at most while looking for the SQL's end (``_without_prose``).
PROSE_CUTS = 8


def _without_prose(sql: str) -> str:
    """``sql`` without the words after it that are no SQL ("select a, b from t group by a, in the same database as
    this one? Much appreciated.", «select count(*) from regions — скока на проде?»): cut at a spaced dash, then at the
    last comma or sentence end until sqlglot parses it (at most ``PROSE_CUTS`` cuts); ``sql`` as given when no cut
    parses."""
    candidate = re.split(r"\s[—–]\s", sql)[0].rstrip(" ?")  # «select … — скока на проде?»: a dash starts words
    for _ in range(PROSE_CUTS):
        try:
            sqlglot.parse_one(candidate)
            return candidate
        except sqlglot.errors.SqlglotError:
            cut = max(candidate.rfind(mark) for mark in ",?.;!")
            if cut <= 0:
                break
            candidate = candidate[:cut].rstrip()
    return sql


def sql_said(text: str) -> str | None:
    """The SQL the question carries: in backticks (a fenced ``sql`` block too), else from its first SELECT/WITH to
    the end, without «в базе X» and the prose after it (``_without_prose``); None when it carries none."""
    quoted = BACKTICKS.search(text)
    if quoted and re.search(r"\b(select|with|insert|update|delete|create|drop|pragma)\b", quoted.group(1), re.I):
        return quoted.group(1).strip()
    start = SQL_START.search(text)
    write = WRITE_START.search(text)
    if write and (not start or write.start() < start.start()):
        return _without_prose(write.group(0).strip().rstrip(" ?"))
    if start and (re.search(r"\bfrom\b|\bselect\s+(\d|\*|count\()", start.group(0), re.I) or SQL_LEADS.search(text)):
        sql = start.group(0).strip()
        # «… в базе Energy», "… in the Energy db"
        sql = re.sub(r"\s+(в|на|in|on)\s+(the\s+)?((базе|database)\s+\S+|\S+\s+(database|db))\s*$", "", sql, flags=re.I)
        return _without_prose(sql.rstrip(" ?"))
    return None
