"""SQL read-only policy, row cap and formatting, decided by parsing with sqlglot (DESIGN §8; issue 5).

A statement may run through ``superset_execute_sql`` only when sqlglot parses the text into exactly one
statement whose root is a query (SELECT, a set operation of SELECTs, optionally with CTEs) and whose whole tree
holds no data change, schema change, session/engine command, ``SELECT … INTO``, row lock or server-side-effect
function. The first keyword is never trusted: comments, CTEs and a second statement after ``;`` are all seen
by the parser. Anything sqlglot cannot parse is refused, never passed through.
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sqlglot
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from agentchat.errors import InvalidArguments
from agentchat.language import in_language

if TYPE_CHECKING:  # the stubs' type of a text or a lazy msgid (django-stubs-ext is a dev dependency)
    from django_stubs_ext import StrOrPromise

# Superset's ``database.backend`` (SQLAlchemy dialect name) → sqlglot dialect. Unknown backends parse with
# sqlglot's generic dialect.
DIALECTS: dict[str, str] = {
    "sqlite": "sqlite",
    "postgresql": "postgres",
    "postgres": "postgres",
    "mysql": "mysql",
    "mariadb": "mysql",
    "mssql": "tsql",
    "oracle": "oracle",
    "bigquery": "bigquery",
    "snowflake": "snowflake",
    "trino": "trino",
    "presto": "presto",
    "hive": "hive",
    "spark": "spark",
    "databricks": "databricks",
    "clickhouse": "clickhouse",
    "clickhousedb": "clickhouse",
    "redshift": "redshift",
    "duckdb": "duckdb",
    "awsathena": "athena",
    "teradatasql": "teradata",
    "doris": "doris",
    "starrocks": "starrocks",
    "druid": "druid",
}
# Dialect names accepted from users (``superset_format_sql``): sqlglot's own names.
DIALECT_CHOICES = tuple(sorted(set(DIALECTS.values())))

_QUERY_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery)
# Node types that change data, schema, session or engine state wherever they appear in the tree.
_FORBIDDEN_NODES: tuple[type[exp.Expr], ...] = (
    exp.DML,  # INSERT, UPDATE, DELETE, MERGE, COPY
    exp.DDL,  # CREATE, INSERT
    exp.Drop,
    exp.Alter,
    exp.TruncateTable,
    exp.Command,  # anything sqlglot only knows as a raw command: VACUUM, REPLACE, EXPLAIN, GRANT on some dialects…
    exp.Pragma,
    exp.Attach,
    exp.Detach,
    exp.Into,  # SELECT … INTO new_table
    exp.Lock,  # SELECT … FOR UPDATE / FOR SHARE takes row locks
    exp.Grant,
    exp.Revoke,
    exp.Set,
    exp.Use,
    exp.Transaction,
    exp.Commit,
    exp.Rollback,
    exp.LoadData,
    exp.Export,
    exp.Cache,
    exp.Uncache,
    exp.Analyze,
    exp.Kill,
    exp.Refresh,
    exp.Execute,
    exp.Declare,
)
# Functions that act on the server rather than read data (sessions, sequences, files, extensions, sleeps).
_FORBIDDEN_FUNCTIONS = frozenset(
    {
        "load_extension",
        "writefile",
        "readfile",
        "pg_terminate_backend",
        "pg_cancel_backend",
        "pg_reload_conf",
        "pg_rotate_logfile",
        "pg_promote",
        "set_config",
        "setval",
        "nextval",
        "lo_import",
        "lo_export",
        "lo_unlink",
        "lo_create",
        "dblink",
        "dblink_exec",
        "pg_read_file",
        "pg_read_binary_file",
        "pg_ls_dir",
        "pg_sleep",
        "pg_advisory_lock",
        "pg_advisory_xact_lock",
        "sleep",
        "benchmark",
        "get_lock",
        "sys_exec",
        "sys_eval",
        "xp_cmdshell",
    }
)


class SqlNotAllowed(InvalidArguments):
    """The SQL is not a single read-only statement; ``text(language)`` says why, in that language.

    Args:
        reason: a ``gettext_lazy`` msgid with ``%(name)s`` placeholders; params: their values.
        unparsed: refused only because the parser failed, not for what it found.
    """

    def __init__(self, reason: "StrOrPromise", /, *, unparsed: bool = False, **params: Any):
        self.reason, self.reason_params = reason, params
        self.unparsed = unparsed
        super().__init__(self.reason_text("en"))

    def reason_text(self, language: str = "") -> str:
        """Return why the SQL was refused, in ``language`` (``ru``/``en``; empty: the active language)."""
        with in_language(language):
            return str(self.reason % self.reason_params) if self.reason_params else str(self.reason)

    def text(self, language: str = "") -> str:
        """Return the refusal in ``language`` (``ru``/``en``; empty: the active language)."""
        with in_language(language):
            return _("Query refused: %(reason)s. Only a single read statement (SELECT) is allowed.") % {
                "reason": self.reason_text(language)
            }


@dataclass(frozen=True)
class ReadStatement:
    """A statement proven read-only.

    Attributes:
        tree: the parsed statement (a sqlglot query: SELECT, set operation or subquery).
        dialect: the sqlglot dialect it was parsed with (None = generic).
    """

    tree: exp.Query
    dialect: str | None

    def literal_limit(self) -> int | None:
        """Return the statement's own outer LIMIT when it is an integer literal, else None."""
        limit = self.tree.args.get("limit")
        value = limit.expression if isinstance(limit, exp.Limit) else None
        if isinstance(value, exp.Literal) and value.is_int:
            return int(value.this)
        return None

    def with_row_cap(self, cap: int) -> str:
        """Return the statement as SQL returning at most ``cap`` rows: a larger or missing LIMIT becomes ``cap``."""
        own = self.literal_limit()
        if own is not None and own <= cap:
            return self.tree.sql(dialect=self.dialect)
        return self.tree.limit(cap, copy=True).sql(dialect=self.dialect)


def dialect_for(backend: str | None) -> str | None:
    """Return the sqlglot dialect of a Superset database ``backend`` (e.g. ``postgresql`` → ``postgres``)."""
    return DIALECTS.get((backend or "").lower())


def _kind(node: exp.Expr) -> str:
    if isinstance(node, exp.Command):
        return str(node.this).upper()
    if isinstance(node, exp.Into):
        return "SELECT … INTO"
    if isinstance(node, exp.Lock):
        return "FOR UPDATE/SHARE"
    return node.key.upper()


def _function_name(node: exp.Func) -> str:
    return (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()


def _parse(sql: str, dialect: str | None) -> list[exp.Expr]:
    try:
        statements = sqlglot.parse(sql, read=dialect)
    except (ParseError, TokenError) as exc:
        detail = str(exc).splitlines()[0][:200]
        raise SqlNotAllowed(
            gettext_lazy("the SQL could not be parsed (%(detail)s)"), unparsed=True, detail=detail
        ) from exc
    return [s for s in statements if s is not None]


def sql_read_only(*, sql: str, dialect: str | None) -> ReadStatement:
    """Return ``sql`` parsed as one read-only statement, or refuse it.

    Args:
        sql: the user's SQL text (comments and a trailing ``;`` allowed).
        dialect: sqlglot dialect name (``dialect_for(backend)``), None for sqlglot's generic dialect.

    Returns:
        ``ReadStatement`` whose root is a SELECT/set operation and whose tree has no forbidden node.

    Raises:
        SqlNotAllowed: unparseable, empty, several statements, a non-query root, or a forbidden node or
            function anywhere in the tree (see the module docstring).
    """
    statements = _parse(sql, dialect)
    if not statements:
        raise SqlNotAllowed(gettext_lazy("the query is empty"))
    if len(statements) > 1:
        kinds = ", ".join(_kind(s) for s in statements[:5])
        raise SqlNotAllowed(
            gettext_lazy("several statements (%(count)d: %(kinds)s)"), count=len(statements), kinds=kinds
        )
    tree = statements[0]
    if not isinstance(tree, _QUERY_ROOTS):
        kind = _kind(tree)
        raise SqlNotAllowed(gettext_lazy("a %(kind)s statement is not a read"), kind=kind)
    for node in tree.walk():
        if isinstance(node, _FORBIDDEN_NODES):
            kind = _kind(node)
            raise SqlNotAllowed(gettext_lazy("the query contains %(kind)s"), kind=kind)
        if isinstance(node, exp.Func) and _function_name(node) in _FORBIDDEN_FUNCTIONS:
            name = _function_name(node)
            raise SqlNotAllowed(gettext_lazy("function %(name)s acts on the server instead of reading data"), name=name)
    return ReadStatement(tree=tree, dialect=dialect)


def sql_precheck(*, sql: str) -> None:
    """Refuse, before the database (and so the dialect) is known, SQL that is unsafe whatever the backend.

    Parses with sqlglot's generic dialect; when that parser fails (backticks, ``TOP``, ``[brackets]`` …) every
    dialect of ``DIALECT_CHOICES`` is tried: any dialect that parses the text and finds a forbidden construct
    refuses it, and text that no dialect parses is refused. The backend's own dialect is checked again with
    ``sql_read_only`` once the database is looked up, so this only moves refusals before any upstream request.

    Raises:
        SqlNotAllowed: as ``sql_read_only``.
    """
    try:
        sql_read_only(sql=sql, dialect=None)
        return
    except SqlNotAllowed as exc:
        if not exc.unparsed:
            raise
        generic_refusal = exc
    parsed_somewhere = False
    for dialect in DIALECT_CHOICES:
        try:
            sql_read_only(sql=sql, dialect=dialect)
            parsed_somewhere = True
        except SqlNotAllowed as exc:
            if not exc.unparsed:
                raise
    if not parsed_somewhere:
        raise generic_refusal


def sql_format(*, sql: str, dialect: str | None) -> str:
    """Return ``sql`` pretty-printed by sqlglot in ``dialect`` (statements separated by ``;`` and a blank line).

    Comments are kept; keywords are upper-cased; the statements are not checked for safety (nothing runs).

    Raises:
        InvalidArguments: the SQL cannot be parsed in that dialect (message names the position).
    """
    try:
        statements = sqlglot.transpile(sql, read=dialect, write=dialect, pretty=True)
    except (ParseError, TokenError) as exc:
        raise InvalidArguments(str(exc).splitlines()[0][:300]) from exc
    statements = [s for s in statements if s.strip()]
    if not statements:
        raise InvalidArguments("empty SQL")
    return ";\n\n".join(statements)
