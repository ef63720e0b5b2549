"""Where a call's object ids, environments and SQL come from (issue 32 item 1): a model's call reaches Superset
only with ids and SQL the conversation gave it and environments that exist.

A small model writes ``get_git_status(dashboard_id=123)`` with no page and no one having said 123, or
``list_backups(env_id="ss-prod")``: the first reached Superset (404) and the answer repeated the question back, the
second showed the user a validator's text. An id in a call must come from the page (``objectId``, or a saved plan),
the user's words or the answers they were shown before this turn (a whole number in any user message or earlier
answer: the model's own words in this turn vouch for nothing), or a tool result of this conversation
(``binding.result_ids`` of every successful result, of any type and environment, and any ``…_id`` value of one).
That holds for dashboards, datasets, saved copies, databases, tasks, migrations and ``object_id``; an environment
argument must be an active environment. Otherwise ``turn.calls`` refuses the call
before the impact look-up or the run (audited as ``invented_argument``) and the model's ToolMessage says what to
do instead: search or ask; use one of the listed environments.
"""

import json
import re
from collections.abc import Collection, Sequence
from typing import Any, NamedTuple

from django.utils.translation import gettext, gettext_lazy, ngettext
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agentchat.language import in_language
from agentchat.runtime.binding import as_id
from agentchat.runtime.spec import ToolSpec
from policies import services as policy

# Arguments naming one object by id (type for the message), and lists of them. ``object_id`` is of the call's
# ``object_type`` (superset_audit_permissions: dataset, database or dashboard).
ID_ARGS = {
    "dashboard_id": "dashboard",
    "dataset_id": "dataset",
    "backup_id": "backup",
    "database_id": "database",
    "task_id": "task",
    "migration_id": "migration",
    "object_id": "",
}
ID_LIST_ARGS = {"dashboard_ids": "dashboard", "dataset_ids": "dataset"}
# Arguments naming an environment.
ENV_ARGUMENTS = ("env_id", "source_env_id", "target_env_id", "other_env_id")
# What the model is told to use to find an object it has no id of (a tool of every role's read set).
FINDER = {
    "dashboard": "search_dashboards",
    "dataset": "search_datasets",
    "backup": "list_backups",
    "database": "superset_explore_database",
    "task": "get_task_status",
    "migration": "preview_migration",
}
# Tools whose ``sql`` is the user's query (to format, to make a dataset of), never one the model writes.
SQL_FROM_USER = frozenset({"superset_format_sql", "superset_create_dataset"})
# The question for that SQL, whoever asks it (the refusal of an invented query, the offline planner).
OWN_SQL_QUESTION = gettext_lazy("Send me your SQL query (in backticks is best): I do not write one myself.")
_WHOLE_NUMBER = re.compile(r"(?<!\d)\d{1,40}(?!\d)")
# Keys of a tool result whose whole-number values are ids the model may use (a database's, a task's, a chart's).
_ID_KEY = re.compile(r"(?:^|_)ids?$")


class Known(NamedTuple):
    """What this conversation gave the model (``known_from``).

    Attributes:
        ids: the page's object id, every whole number (1–19 digits) of every user message and of every answer the
            user was shown before this turn (the model's own words in this turn vouch for nothing), every dashboard
            or dataset id a successful tool result named (``binding.result_ids``, any type or environment), and
            every whole number under an ``id``/``…_id``/``…_ids`` key of one (a database's, a task's).
        texts: every user message and successful tool result, as ``sql_key`` reads them (where SQL may come from).
    """

    ids: frozenset[int]
    texts: tuple[str, ...]


def known_from(messages: Sequence[BaseMessage], context: dict[str, Any] | None) -> Known:
    """The ids and texts this conversation gave the model.

    Args:
        messages: the conversation as sent to the model, oldest first (stored history and this turn).
        context: the turn's validated UIContext dict (its ``objectId`` counts), or None.
    """
    found: set[int] = set()
    texts: list[str] = []
    object_id = (context or {}).get("objectId")
    if object_id is not None and str(object_id).isdigit():
        found.add(int(object_id))
    turn_start = max((n for n, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    for n, message in enumerate(messages):
        shown_before = isinstance(message, AIMessage) and n < turn_start
        if isinstance(message, HumanMessage) or shown_before:
            found.update(int(n) for n in _WHOLE_NUMBER.findall(str(message.content)))
            if isinstance(message, HumanMessage):
                texts.append(sql_key(str(message.content)))
        elif isinstance(message, ToolMessage) and message.status != "error":
            try:
                value = json.loads(str(message.content))
            except ValueError:
                continue
            texts.extend(sql_key(text) for text in _strings(value))
            found.update(_keyed_ids(value))  # every id ``binding.result_ids`` reads is under such a key
    return Known(ids=frozenset(found), texts=tuple(texts))


def _keyed_ids(value: Any) -> set[int]:
    """Whole numbers under an ``id``-like key (``_ID_KEY``) of a decoded JSON ``value``, at any depth."""
    found: set[int] = set()
    if isinstance(value, list):
        for item in value:
            found |= _keyed_ids(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            items = item if isinstance(item, list) else [item]
            if _ID_KEY.search(str(key)):
                found.update(number for one in items if (number := as_id(one)) is not None)
            found |= _keyed_ids(item)
    return found


def sql_key(text: str) -> str:
    """``text`` as SQL is compared (``invented_sql``): without whitespace or a final ``;``, case-folded."""
    return re.sub(r"\s+", "", text).rstrip(";").casefold()


def _strings(value: Any) -> list[str]:
    """Every string of a decoded JSON ``value``, depth first."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    return [text for item in value for text in _strings(item)] if isinstance(value, list) else []


def invented_sql(spec: ToolSpec, args: dict[str, Any], texts: Collection[str]) -> bool:
    """Whether a call gives SQL that no user message or tool result of the conversation holds, to a tool whose SQL
    must be the user's (``SQL_FROM_USER``: «приведи SQL к нормальному виду» with no SQL made the model write
    ``SELECT * FROM my_table`` and format it, issue 32)."""
    sql = args.get("sql")
    if spec.name not in SQL_FROM_USER or not isinstance(sql, str) or not sql.strip():
        return False
    key = sql_key(sql)
    return not any(key in text for text in texts)


def invented_ids(spec: ToolSpec, args: dict[str, Any], known: Collection[int]) -> list[tuple[str, int]]:
    """The object ids of a call that nothing in the conversation named.

    Args:
        spec: the tool; args: the call's arguments after binding (page-filled values are the page's, so known).
        known: ``Known.ids`` of the conversation.

    Returns:
        ``[(argument, id)]`` in argument order, empty when every id is known. ``dashboard_ids`` beside a
        ``migration_id`` are the saved plan's business (``tools.migration_impact.migration_target``), a
        ``dashboard_id`` beside a ``dashboard`` slug the slug's (``tools.deploy.dashboard_resolve`` refuses an id
        that is not that dashboard's).
    """
    fields = spec.args_schema.model_fields
    out: list[tuple[str, int]] = []
    for name in fields:
        value = args.get(name)
        if name in ID_ARGS:
            # beside the dashboard's slug, the id is checked against it (tools.deploy.dashboard_resolve)
            values = [] if name == "dashboard_id" and args.get("dashboard") else [value]
        elif name in ID_LIST_ARGS and isinstance(value, list) and args.get("migration_id") in (None, ""):
            values = value
        else:
            continue
        out.extend((name, number) for one in values if (number := as_id(one)) is not None and number not in known)
    return out


def unknown_environments(spec: ToolSpec, args: dict[str, Any], env_ids: Collection[str]) -> list[tuple[str, str]]:
    """The environment arguments of a call whose value is no active environment: ``[(argument, value)]``."""
    fields = spec.args_schema.model_fields
    return [
        (name, str(args[name]))
        for name in ENV_ARGUMENTS
        if name in fields and args.get(name) not in (None, "") and str(args[name]) not in env_ids
    ]


def _kind(argument: str, object_type: str | None) -> str:
    """The kind of object an id argument names («dashboard», «database», …); ``object_id``'s is ``object_type``."""
    return ID_ARGS.get(argument) or ID_LIST_ARGS.get(argument) or str(object_type or "")


def provenance_text(
    ids: list[tuple[str, int]],
    envs: list[tuple[str, str]],
    env_ids: Sequence[str],
    language: str | None = None,
    sql: bool = False,
    object_type: str | None = None,
) -> str:
    """The ToolMessage detail of a refused call, in ``language``: which ids no one named and how to find the
    object (the search tool, or ask the user), which environments do not exist and which do.

    Example: «dashboard_id=123: этот id не назван ни страницей, ни пользователем, ни результатом инструмента;
    найдите объект (search_dashboards) или спросите пользователя.»
    """
    with in_language(language):
        parts = []
        for name, value in ids:
            finder = FINDER.get(_kind(name, object_type), "search_dashboards")
            parts.append(
                gettext(
                    "%(argument)s=%(value)s: no page, message or tool result of this conversation names this "
                    "id; find the object (%(finder)s) or ask the user which one is meant."
                )
                % {"argument": name, "value": value, "finder": finder}
            )
        for name, env in envs:
            parts.append(
                ngettext(
                    "%(argument)s=%(value)s: no such environment; the only environment is: %(envs)s.",
                    "%(argument)s=%(value)s: no such environment; the environments are: %(envs)s.",
                    len(env_ids),
                )
                % {"argument": name, "value": env, "envs": ", ".join(env_ids)}
            )
        if sql:
            parts.append(
                gettext(
                    "sql: no user message or tool result of this conversation holds this SQL; do not write a query "
                    "yourself: ask the user for theirs."
                )
            )
        return " ".join(parts)


def provenance_question(
    ids: list[tuple[str, int]],
    envs: list[tuple[str, str]],
    env_ids: Sequence[str],
    language: str | None,
    sql: bool,
    object_type: str | None = None,
) -> str:
    """The question for the person about a refused call (its ToolMessage's ``ask_user``), in ``language``: which
    environment of theirs, their SQL, or which object — what the refusal is about, not a generic «which object»
    (a 1.5B model's answer after the refusal is replaced by it when it states something: ``turn.truth``).

    Example: «Окружения «ss-prod» нет. Какое вы имеете в виду: ss-dev, prod?»
    """
    with in_language(language):
        if envs:
            return gettext("There is no environment “%(value)s”. Which one do you mean: %(envs)s?") % {
                "value": envs[0][1],
                "envs": ", ".join(env_ids),
            }
        if sql:
            return str(OWN_SQL_QUESTION)
        kind = _kind(ids[0][0], object_type) if ids else ""
        return {
            "dashboard": gettext("Which dashboard do you mean? Give its title or id, or open its page."),
            "dataset": gettext("Which dataset do you mean? Give its name or id, or open its page."),
            "backup": gettext("Which saved copy do you mean? Ask me to list the copies, or give its id."),
            "database": gettext("Which database do you mean? Give its name or id."),
            "task": gettext("Which task do you mean? Give its number, or ask for the status of your latest task."),
            "migration": gettext("Which migration do you mean? Give its number or open its page."),
        }.get(kind, gettext("Which object do you mean? Give its title or id, or open its page."))


def call_provenance(spec: ToolSpec, args: dict[str, Any], known: Known, language: str | None = None) -> tuple[str, str]:
    """The refusal of a call with an id no one named, an environment that is not active or SQL the user did not
    give (``known_from``), in ``language``: ``(detail for the model, question for the person)``
    (``provenance_text``, ``provenance_question``); ``("", "")`` when every id and environment of the call is
    accounted for. Reads the active environments (``policies.services.environments_active``): call it from a
    thread in async code.
    """
    ids = invented_ids(spec, args, known.ids)
    env_ids = [e.env_id for e in policy.environments_active()]
    envs = unknown_environments(spec, args, env_ids)
    sql = invented_sql(spec, args, known.texts)
    if not (ids or envs or sql):
        return "", ""
    object_type = args.get("object_type")
    return provenance_text(ids, envs, env_ids, language, sql, object_type), provenance_question(
        ids, envs, env_ids, language, sql, object_type
    )
