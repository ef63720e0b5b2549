"""Superset's errors as a sentence in the user's language (issue 30 item 3).

Superset answers a failed request with SIP-40 errors — ``{"errors": [{"message", "error_type", "extra"}]}`` —
whose ``message`` is English and written for Superset's own UI («We can't seem to resolve the column "nope"»,
«You need access to the following tables: `main.regions`, `all_database_access` or …»). ``superset_error`` reads
the body once and returns which of our texts says it (a gettext msgid naming the object: the column, the table,
the line of a syntax error) with its parameters, and Superset's own text, which the page shows in an expandable
detail («Ответ Superset») and the model receives as it is.

Error types: superset/errors.py ``SupersetErrorType`` (Superset 6.1). A body without a known type falls back to
«Superset ответил ошибкой HTTP 500 (ss-dev).».
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

import httpx
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

ERROR_BODY_MAX_BYTES = 64 * 1024
RAW_MAX_CHARS = 1000  # Superset's own text kept for the detail and the model

_ACCESS: dict[str, Promise] = {
    "TABLE_SECURITY_ACCESS_ERROR": ngettext_lazy(
        "Superset refuses you access to the table %(names)s in %(env)s: your Superset role does not include it.",
        "Superset refuses you access to the tables %(names)s in %(env)s: your Superset role does not include them.",
        "count",
    ),
    "DATASOURCE_SECURITY_ACCESS_ERROR": _("Superset refuses you access to this dataset in %(env)s."),
    "DATABASE_SECURITY_ACCESS_ERROR": _("Superset refuses you access to this database in %(env)s."),
    "DASHBOARD_SECURITY_ACCESS_ERROR": _("Superset refuses you access to this dashboard in %(env)s."),
    "CHART_SECURITY_ACCESS_ERROR": _("Superset refuses you access to this chart in %(env)s."),
    "QUERY_SECURITY_ACCESS_ERROR": _("Superset refuses you access to this query in %(env)s."),
    "USER_ACTIVITY_SECURITY_ACCESS_ERROR": _("Superset refuses you access to other people's activity in %(env)s."),
    "MISSING_OWNERSHIP_ERROR": _("Superset refuses: you are not an owner of this object in %(env)s."),
}
ACCESS_OTHER = _("Superset refuses this request in %(env)s (HTTP %(status)s).")
PERMISSION = _("Superset refuses: you do not have the permission for this in %(env)s.")
# A 5xx saying the user lacks the permission («… user doesn't have permissions to overwrite it»): a refusal of this
# user, deterministic, not a change of unknown outcome (issue 28 review; ``superset.ownership`` asks first).
PERMISSION_REFUSAL = re.compile(r"(does ?n[o']t|do not|not) ha(ve|s) (the )?permissions? to", re.I)

_KNOWN: dict[str, Promise] = {
    "COLUMN_DOES_NOT_EXIST_ERROR": _("The query names a column that the table does not have: “%(column)s” (%(env)s)."),
    "TABLE_DOES_NOT_EXIST_ERROR": _("The query names a table that does not exist in %(env)s: “%(table)s”."),
    "SCHEMA_DOES_NOT_EXIST_ERROR": _("The query names a schema that does not exist in %(env)s: “%(schema)s”."),
    "OBJECT_DOES_NOT_EXIST_ERROR": _("An object the query names does not exist in %(env)s."),
    "DML_NOT_ALLOWED_ERROR": _("The database in %(env)s allows reading only: a query that changes data was refused."),
    "RESULT_TOO_LARGE_ERROR": _("The result is larger than Superset allows in %(env)s: narrow the query."),
    "SQLLAB_TIMEOUT_ERROR": _("The query did not finish within Superset's time limit in %(env)s."),
    "BACKEND_TIMEOUT_ERROR": _("The query did not finish within Superset's time limit in %(env)s."),
    "DATABASE_NOT_FOUND_ERROR": _("Superset has no such database in %(env)s."),
    "TABLE_NOT_FOUND_ERROR": _("Superset has no such table in %(env)s."),
    "MISSING_TEMPLATE_PARAMS_ERROR": _("The query uses template parameters that were not given (%(env)s)."),
    "INVALID_TEMPLATE_PARAMS_ERROR": _("The query's template parameters are not valid (%(env)s)."),
    "GENERIC_DB_ENGINE_ERROR": _("The database in %(env)s refused the query."),
}
SYNTAX = _("The SQL query has a syntax error (%(env)s).")
SYNTAX_AT = _("The SQL query has a syntax error at line %(line)s, position %(column)s (%(env)s).")
CONNECTION = _("Superset cannot connect to the database in %(env)s.")
HTTP_ERROR = _("Superset answered with an error, HTTP %(status)s (%(env)s).")
NOT_JSON = _("Superset's answer could not be read (HTTP %(got)s, %(env)s).")
TABLE_MISSING = _("There is no table “%(table)s” in the database in %(env)s.")

# What a database engine's own message says when Superset calls it GENERIC_DB_ENGINE_ERROR (SQLite, PostgreSQL).
_ENGINE_PATTERNS = (
    ("TABLE_DOES_NOT_EXIST_ERROR", "table", re.compile(r"no such table: (\S+)|relation \"([^\"]+)\" does not exist")),
    ("COLUMN_DOES_NOT_EXIST_ERROR", "column", re.compile(r"no such column: (\S+)|column \"([^\"]+)\" does not exist")),
)
# A dataset's validation refusal (POST /api/v1/dataset/, HTTP 422): «Table [main.x] could not be found, …».
_TABLE_NOT_FOUND = re.compile(r"Table \[([^\]]+)\] could not be found")
_QUOTED = re.compile(r"\"([^\"]+)\"|'([^']+)'|`([^`]+)`")


@dataclass(frozen=True)
class SupersetErrorText:
    """What to tell the user about one failed Superset answer.

    Attributes:
        message: a gettext msgid (lazy) with ``%(env)s``, ``%(status)s`` (the HTTP status) and the parameters in
            ``params``.
        params: the message's parameters besides ``env`` and ``status``.
        error_type: the SIP-40 type, or ``""`` when the body had none.
        upstream: Superset's own text (first error's message, at most ``RAW_MAX_CHARS``), ``""`` when none.
        denied: Superset's permissions refused the request (HTTP 403 or a ``*_SECURITY_ACCESS_ERROR``).
    """

    message: Promise
    params: dict[str, Any] = field(default_factory=dict)
    error_type: str = ""
    upstream: str = ""
    denied: bool = False


def _first_error(response: httpx.Response) -> dict[str, Any]:
    if len(response.content) > ERROR_BODY_MAX_BYTES or "json" not in response.headers.get("content-type", ""):
        return {}
    try:
        body = response.json()
    except (ValueError, json.JSONDecodeError):
        return {}
    if not isinstance(body, dict):
        return {}
    errors = body.get("errors")
    if isinstance(errors, list) and errors and isinstance(errors[0], dict):
        return errors[0]
    message = body.get("message") or body.get("msg")
    if isinstance(message, dict):  # a validation refusal: {"field": ["text", …]}
        message = "; ".join(f"{field}: {_joined(texts)}" for field, texts in message.items())
    return {"message": json.dumps(message, ensure_ascii=False) if isinstance(message, list) else message}


def _joined(texts: Any) -> str:
    return " ".join(map(str, texts)) if isinstance(texts, list) else str(texts)


def upstream_text(response: httpx.Response) -> str:
    """Superset's own words about a failed answer: the first SIP-40 error's message, else the body's ``message``,
    else the start of the body; whitespace runs collapsed, at most ``RAW_MAX_CHARS`` characters."""
    error = _first_error(response)
    text = str(error.get("message") or "") if error else ""
    if not text:
        text = response.text[:RAW_MAX_CHARS]
    return " ".join(text.split())[:RAW_MAX_CHARS]


def _quoted(text: str) -> str:
    match = _QUOTED.search(text)
    return next((g for g in match.groups() if g), "") if match else ""


def _engine_error(message: str) -> tuple[str, dict[str, Any]]:
    """A GENERIC_DB_ENGINE_ERROR whose engine text says which table or column is missing."""
    for error_type, param, pattern in _ENGINE_PATTERNS:
        match = pattern.search(message)
        if match:
            return error_type, {param: next(g for g in match.groups() if g)}
    return "GENERIC_DB_ENGINE_ERROR", {}


def _extra(error: dict[str, Any]) -> dict[str, Any]:
    extra = error.get("extra")
    return extra if isinstance(extra, dict) else {}


def _access(error_type: str, error: dict[str, Any]) -> tuple[Promise, dict[str, Any]]:
    extra = _extra(error)
    if error_type == "TABLE_SECURITY_ACCESS_ERROR":
        tables = [str(t) for t in extra.get("tables") or []] or [_quoted(str(error.get("message") or "")) or "?"]
        return _ACCESS[error_type], {"names": ", ".join(tables), "count": len(tables)}
    if error_type in _ACCESS:
        return _ACCESS[error_type], {}
    return ACCESS_OTHER, {}


def superset_error(response: httpx.Response) -> SupersetErrorText:
    """Read a failed Superset answer (status ≥ 400, not 401/429) into the text the user gets.

    Args:
        response: Superset's answer.

    Returns:
        The message and parameters for the type Superset names (a missing column, a refused table, a syntax error
        with its line…), Superset's own text, and whether its permissions refused the request.
    """
    error = _first_error(response)
    error_type = str(error.get("error_type") or "")
    upstream = upstream_text(response)
    status = response.status_code
    if status == 403 or error_type.endswith("_SECURITY_ACCESS_ERROR") or error_type == "MISSING_OWNERSHIP_ERROR":
        message, params = _access(error_type, error)
        return SupersetErrorText(message, params, error_type, upstream, denied=True)
    if status >= 500 and PERMISSION_REFUSAL.search(upstream):
        return SupersetErrorText(PERMISSION, {}, error_type, upstream, denied=True)
    extra = _extra(error)
    raw = str(error.get("message") or "")
    if error_type in ("SYNTAX_ERROR", "INVALID_SQL_ERROR"):
        if extra.get("line") is not None and extra.get("column") is not None:
            where = {"line": extra["line"], "column": extra["column"]}
            return SupersetErrorText(SYNTAX_AT, where, error_type, upstream)
        return SupersetErrorText(SYNTAX, {}, error_type, upstream)
    if error_type.startswith("CONNECTION_"):
        return SupersetErrorText(CONNECTION, {}, error_type, upstream)
    shown_type, params = _engine_error(raw) if error_type == "GENERIC_DB_ENGINE_ERROR" else (error_type, {})
    if shown_type in ("COLUMN_DOES_NOT_EXIST_ERROR", "TABLE_DOES_NOT_EXIST_ERROR", "SCHEMA_DOES_NOT_EXIST_ERROR"):
        key = {"COLUMN": "column", "TABLE": "table", "SCHEMA": "schema"}[shown_type.split("_", 1)[0]]
        params.setdefault(key, _quoted(raw) or "?")
    if shown_type in _KNOWN:
        return SupersetErrorText(_KNOWN[shown_type], params, error_type, upstream)
    missing = _TABLE_NOT_FOUND.search(upstream)
    if missing:
        return SupersetErrorText(TABLE_MISSING, {"table": missing.group(1)}, error_type, upstream)
    return SupersetErrorText(HTTP_ERROR, {}, error_type, upstream)
