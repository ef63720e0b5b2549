"""Structured summarisation of tool results before they enter the LLM context (DESIGN §10; seed AGTL-FR-003).

Results over ``max_chars`` characters of JSON are shrunk, never hard-cut: lists keep their first items and say
``{"items": [...], "total": N, "truncated": true}``, long strings are cut at a sentence boundary, nested
structures shrink level by level. The output is always valid JSON and never splits a character.
"""

import json
import re
from typing import Any

# (items kept per list, characters kept per string), tried from generous to strict.
_LIMITS = [(50, 2000), (20, 1000), (10, 500), (5, 300), (3, 160), (2, 80), (1, 40)]
_SENTENCE_END = re.compile(r"[.!?…。](?=\s)|\n")
_ELLIPSIS = "…"


def to_json(value: Any) -> str:
    """Serialise ``value`` compactly with non-ASCII kept (the form whose length is the size in characters)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def cut_text(text: str, limit: int) -> str:
    """Cut ``text`` to at most ``limit`` characters, at the last sentence end, else word, before the limit.

    Never ends inside a surrogate pair or after a zero-width joiner; appends «…» when cut.
    """
    if len(text) <= limit:
        return text
    window = text[: max(limit - 1, 1)]
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    cut = ends[-1] if ends and ends[-1] >= len(window) // 2 else window.rfind(" ")
    if cut < len(window) // 2:
        cut = len(window)
    head = window[:cut].rstrip()
    while head and (head[-1] == "\u200d" or "\ud800" <= head[-1] <= "\udfff" or head[-1] in "\ufe0f"):
        head = head[:-1]
    return head + _ELLIPSIS


def _shrink(value: Any, items: int, chars: int) -> Any:
    if isinstance(value, str):
        return cut_text(value, chars)
    if isinstance(value, list):
        kept = [_shrink(v, items, chars) for v in value[:items]]
        if len(value) <= items:
            return kept
        return {"items": kept, "total": len(value), "truncated": True}
    if isinstance(value, dict):
        return {k: _shrink(v, items, chars) for k, v in value.items()}
    return value


def _drop_keys(value: dict, max_chars: int) -> dict:
    """Keep the leading keys of a too-wide object that fit, and say how many were left out."""
    kept: dict[str, Any] = {}
    for key, item in value.items():
        trial = {**kept, key: item, "_omitted_keys": len(value) - len(kept) - 1}
        if len(to_json(trial)) > max_chars:
            break
        kept[key] = item
    return {**kept, "_omitted_keys": len(value) - len(kept), "truncated": True}


def summarise(value: Any, max_chars: int) -> tuple[Any, bool]:
    """Return ``(value or its summary, summarised?)`` so that ``len(to_json(result)) <= max_chars`` when possible.

    Args:
        value: a JSON-able tool result.
        max_chars: budget in characters of compact JSON (``TOOL_RESPONSE_MAX_CHARS``, 4000 by default).

    Returns:
        The unchanged value when it fits; else the largest uniform shrink that fits (falling back to dropping
        trailing keys of a top-level object), with ``total`` counts for every shortened list.
    """
    if len(to_json(value)) <= max_chars:
        return value, False
    shrunk = value
    for items, chars in _LIMITS:
        shrunk = _shrink(value, items, chars)
        if len(to_json(shrunk)) <= max_chars:
            return shrunk, True
    if isinstance(shrunk, dict):
        return _drop_keys(shrunk, max_chars), True
    return {"summary": cut_text(to_json(shrunk), max_chars - 40), "truncated": True}, True
