"""Where a call's object ids and environments come from (issue 32 item 1): a model's call reaches Superset only
with ids the conversation gave it and environments that exist.

A small model writes ``get_git_status(dashboard_id=123)`` with no page and no one having said 123, or
``list_backups(env_id="ss-prod")``: the first reached Superset (404) and the answer repeated the question back, the
second showed the user a validator's text. An id in a call must come from the page (``objectId``, or a saved plan),
the user's words or the answers they were shown (a whole number in any user or assistant message), or a
tool result of this conversation (``binding.result_ids`` of every successful result, of any type and
environment); an environment argument must be an active environment. Otherwise ``turn.calls`` refuses the call
before the impact look-up or the run (audited as ``invented_argument``) and the model's ToolMessage says what to
do instead: search or ask; use one of the listed environments.
"""

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from django.utils.translation import gettext, ngettext
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agentchat.language import in_language
from agentchat.runtime.binding import result_ids
from agentchat.runtime.spec import ToolSpec
from policies import services as policy

# Arguments naming one object by id (type for the message), and lists of them.
ID_ARGS = {"dashboard_id": "dashboard", "dataset_id": "dataset"}
ID_LIST_ARGS = {"dashboard_ids": "dashboard", "dataset_ids": "dataset"}
# Arguments naming an environment.
ENV_ARGUMENTS = ("env_id", "source_env_id", "target_env_id")
# What the model is told to use to find an object it has no id of (a tool of every role's read set).
FINDER = {"dashboard": "search_dashboards", "dataset": "search_datasets"}
_WHOLE_NUMBER = re.compile(r"(?<!\d)\d{1,19}(?!\d)")


def known_ids(messages: Sequence[BaseMessage], context: dict[str, Any] | None) -> frozenset[int]:
    """The object ids this conversation gave the model.

    Args:
        messages: the conversation as sent to the model, oldest first (stored history and this turn).
        context: the turn's validated UIContext dict (its ``objectId`` counts), or None.

    Returns:
        The page's object id, every whole number (1–19 digits) of every user message and of every answer the
        user was shown, and every dashboard or
        dataset id that a successful tool result named (``binding.result_ids``, any type or environment).
    """
    found: set[int] = set()
    object_id = (context or {}).get("objectId")
    if object_id is not None and str(object_id).isdigit():
        found.add(int(object_id))
    for message in messages:
        if isinstance(message, HumanMessage | AIMessage):
            found.update(int(n) for n in _WHOLE_NUMBER.findall(str(message.content)))
        elif isinstance(message, ToolMessage) and message.status != "error":
            try:
                value = json.loads(str(message.content))
            except ValueError:
                continue
            for ids in result_ids(value).values():
                found.update(ids)
    return frozenset(found)


def invented_ids(spec: ToolSpec, args: dict[str, Any], known: Collection[int]) -> list[tuple[str, int]]:
    """The object ids of a call that nothing in the conversation named.

    Args:
        spec: the tool; args: the call's arguments after binding (page-filled values are the page's, so known).
        known: ``known_ids`` of the conversation.

    Returns:
        ``[(argument, id)]`` in argument order, empty when every id is known. ``dashboard_ids`` beside a
        ``migration_id`` are the saved plan's business (``tools.migration_impact.migration_target``).
    """
    fields = spec.args_schema.model_fields
    out: list[tuple[str, int]] = []
    for name in fields:
        value = args.get(name)
        if name in ID_ARGS:
            values = [value]
        elif name in ID_LIST_ARGS and isinstance(value, list) and args.get("migration_id") in (None, ""):
            values = value
        else:
            continue
        for one in values:
            if isinstance(one, int | str) and not isinstance(one, bool) and str(one).isdigit():
                if int(one) not in known:
                    out.append((name, int(one)))
    return out


def unknown_environments(spec: ToolSpec, args: dict[str, Any], env_ids: Collection[str]) -> list[tuple[str, str]]:
    """The environment arguments of a call whose value is no active environment: ``[(argument, value)]``."""
    fields = spec.args_schema.model_fields
    return [
        (name, str(args[name]))
        for name in ENV_ARGUMENTS
        if name in fields and args.get(name) not in (None, "") and str(args[name]) not in env_ids
    ]


def provenance_text(
    ids: list[tuple[str, int]], envs: list[tuple[str, str]], env_ids: Sequence[str], language: str | None = None
) -> str:
    """The ToolMessage detail of a refused call, in ``language``: which ids no one named and how to find the
    object (the search tool, or ask the user), which environments do not exist and which do.

    Example: «dashboard_id=123: этот id не назван ни страницей, ни пользователем, ни результатом инструмента;
    найдите объект (search_dashboards) или спросите пользователя.»
    """
    with in_language(language):
        parts = []
        for name, value in ids:
            finder = FINDER[ID_ARGS.get(name) or ID_LIST_ARGS[name]]
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
        return " ".join(parts)


def call_provenance(spec: ToolSpec, args: dict[str, Any], known: Collection[int], language: str | None = None) -> str:
    """The refusal detail of a call with an id no one named or an environment that is not active, in
    ``language``; empty when every id and environment of the call is accounted for. Reads the active
    environments (``policies.services.environments_active``): call it from a thread in async code.
    """
    ids = invented_ids(spec, args, known)
    env_ids = [e.env_id for e in policy.environments_active()]
    envs = unknown_environments(spec, args, env_ids)
    return provenance_text(ids, envs, env_ids, language) if ids or envs else ""
