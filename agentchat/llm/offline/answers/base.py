"""Shared helpers of the answer templates and the registry of writers (tool name → writer)."""

import datetime as dt
import json
from collections.abc import Callable
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings

from agentchat.runtime.titles import tool_title

Writer = Callable[[dict[str, Any], str], str]
_WRITERS: dict[str, Writer] = {}


def answer_writer(tool: str) -> Callable[[Writer], Writer]:
    """Register the decorated function as the answer template of ``tool``: ``fn(result, language) -> str``."""

    def register(fn: Writer) -> Writer:
        _WRITERS[tool] = fn
        return fn

    return register


def writer_for(tool: str) -> Writer | None:
    """Return the registered template of ``tool`` or None."""
    return _WRITERS.get(tool)


def when(value: Any, language: str = "ru") -> str:
    """Format a timestamp for people in ``TIME_ZONE``: ``29.11.2026 23:51 MSK`` (ru) or ``2026-11-29 23:51 MSK``
    (en). Naive values are UTC, as Superset sends them; anything unparseable is returned as it is."""
    if not value:
        return "—"
    try:
        moment = value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    local = moment.astimezone(ZoneInfo(settings.TIME_ZONE))
    return local.strftime("%Y-%m-%d %H:%M %Z" if language == "en" else "%d.%m.%Y %H:%M %Z")


def t(language: str, ru: str, en: str) -> str:
    """Pick the Russian or English text."""
    return en if language == "en" else ru


def items(value: Any) -> tuple[list, int]:
    """Return (shown items, real total) of a list that the summariser may have shortened."""
    if isinstance(value, dict) and "items" in value:
        return list(value["items"]), int(value.get("total", len(value["items"])))
    return list(value or []), len(value or [])


def more(shown: int, total: int, language: str) -> str:
    """Return «… и ещё N» when ``total`` exceeds ``shown``, else an empty string."""
    if total <= shown:
        return ""
    return t(language, f"\n… и ещё {total - shown}", f"\n… and {total - shown} more")


def generic(tool: str, result: Any, language: str) -> str:
    """Fallback: the result as indented JSON, headed by the tool's user-facing title."""
    body = json.dumps(result, ensure_ascii=False, indent=1)
    title = tool_title(tool, language)
    return t(language, f"Результат ({title}):\n{body}", f"Result ({title}):\n{body}")
