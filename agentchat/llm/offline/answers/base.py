"""Shared helpers of the answer templates and the registry of writers (tool name → writer).

Every writer runs under ``translation.override(language)`` (``answer_writer`` wraps it), so its texts are plain
``gettext``/``ngettext`` calls with English msgids; the Russian wording is in ``locale/ru`` (DESIGN §11, issue 14).
"""

import datetime as dt
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.utils import translation
from django.utils.formats import date_format
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agentchat.language import in_language
from agentchat.runtime.titles import tool_title

Writer = Callable[[dict[str, Any], str], str]
_WRITERS: dict[str, Writer] = {}


def answer_writer(tool: str) -> Callable[[Writer], Writer]:
    """Register the decorated function as the answer template of ``tool``: ``fn(result, language) -> str``.

    The registered (and returned) function runs ``fn`` under ``translation.override(language)``, so it answers
    in ``language`` whether or not the turn's own override is active.
    """

    def register(fn: Writer) -> Writer:
        @functools.wraps(fn)
        def in_language(result: dict[str, Any], language: str) -> str:
            with translation.override(language):
                return fn(result, language)

        _WRITERS[tool] = in_language
        return in_language

    return register


def writer_for(tool: str) -> Writer | None:
    """Return the registered template of ``tool`` or None."""
    return _WRITERS.get(tool)


def when(value: Any, language: str | None = None) -> str:
    """Format a timestamp for people in ``TIME_ZONE``: ``29.11.2026 23:51 MSK`` (ru) or ``2026-11-29 23:51 MSK``
    (en) — ``DATETIME_FORMAT`` of ``agentchat.formats`` in ``language`` (the active language when None), the
    spelling the pages and the admin use too. Naive values are UTC, as Superset sends them; anything unparseable is
    returned as it is."""
    if not value:
        return "—"
    try:
        moment = value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    local = moment.astimezone(ZoneInfo(settings.TIME_ZONE))
    with in_language(language):
        return date_format(local, "DATETIME_FORMAT")


def items(value: Any) -> tuple[list, int]:
    """Return (shown items, real total) of a list that the summariser may have shortened."""
    if isinstance(value, dict) and "items" in value:
        return list(value["items"]), int(value.get("total", len(value["items"])))
    return list(value or []), len(value or [])


def more(shown: int, total: int, language: str | None = None) -> str:
    """Return «… и ещё N» (on a line of its own) when ``total`` exceeds ``shown``, else an empty string; in
    ``language`` (the active language when None)."""
    if total <= shown:
        return ""
    rest = total - shown
    with in_language(language):
        return "\n" + ngettext("… and %(count)d more", "… and %(count)d more", rest) % {"count": rest}


@dataclass(frozen=True)
class SearchWords:
    """The first sentence of a search's answer, by whether it found rows and was for a ``query`` (issue 16 review:
    with a query, Superset's count is of the names that contain it). ``found*`` are ``ngettext_lazy(…, "count")``;
    every text reads ``%(count)d``, ``%(env)s`` and ``%(query)s`` as it needs."""

    none: Promise
    none_for_query: Promise
    found: Promise
    found_for_query: Promise

    def head(self, *, found: bool, count: int, env: Any, query: str | None) -> str:
        """The sentence for a search in ``env`` that ``found`` rows, ``count`` of them (Superset's total)."""
        if found:
            text = self.found_for_query if query else self.found
        else:
            text = self.none_for_query if query else self.none
        return str(text % {"count": count, "env": env, "query": query})


def generic(tool: str, result: Any, language: str) -> str:
    """Fallback: the result as indented JSON, headed by the tool's user-facing title."""
    body = json.dumps(result, ensure_ascii=False, indent=1)
    title = tool_title(tool, language)
    with translation.override(language):
        return _("Result (%(tool_title)s):") % {"tool_title": title} + "\n\n```json\n" + body + "\n```"
