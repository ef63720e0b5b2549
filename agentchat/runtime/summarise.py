"""Structured summarisation of tool results before they enter the LLM context (DESIGN §10; seed AGTL-FR-003).

A result whose compact JSON is longer than ``max_chars`` characters (``TOOL_RESPONSE_MAX_CHARS``, 4000) is
shrunk, never hard-cut:

- a list keeps its first items and becomes ``{"items": [...], "total": N, "truncated": true}``; ``total`` is
  the real length, so counts survive;
- a long string is cut at the last sentence end (else word boundary, else grapheme boundary) and ends in «…»;
  a cut never splits a character or a grapheme cluster (emoji ZWJ sequences, flags, combining marks);
- an object with too many keys keeps lists and scalars first and says ``"_omitted_keys": n``;
- nested structures shrink level by level: the same limits apply at every depth, tightened step by step until
  the whole fits; as a last resort containers below some depth become count-only stubs.

The output is always JSON-serialisable; ``len(to_json(output)) <= max_chars`` whenever ``max_chars`` leaves
room for the smallest stub (about 60 characters). The user still sees full results where pages show them: only
the LLM's copy is summarised.
"""

import json
import re
from dataclasses import dataclass
from typing import Any

import regex

ELLIPSIS = "…"
OMITTED_KEYS = "_omitted_keys"
_SENTENCE_END = re.compile(r"[.!?…。！？](?=\s)|\n")
_GRAPHEME = regex.compile(r"\X")
_SAFE_PAIR = regex.compile(r"(?=\p{Grapheme_Cluster_Break=Other}\p{Grapheme_Cluster_Break=Other})")
_SCAN_BACK = 64
_SCALARS = (int, float, bool, type(None))


@dataclass(frozen=True)
class _Level:
    items: int  # list items kept
    chars: int  # characters kept per string
    keys: int  # keys kept per object
    depth: int | None  # containers deeper than this become stubs (None: no limit)


# From generous to strict; each step keeps ~3/4 of the previous one, then depth limits.
_BASE = _Level(items=50, chars=2000, keys=200, depth=None)
_LEVELS = [
    _Level(max(1, int(_BASE.items * s)), max(16, int(_BASE.chars * s)), max(4, int(_BASE.keys * s)), None)
    for s in (2.0 * 0.75**i for i in range(16))
] + [_Level(1, 16, 4, depth) for depth in (6, 4, 3, 2, 1)]
_STRICTEST_FULL_DEPTH = _Level(1, 16, 4, None)


def to_json(value: Any) -> str:
    """Serialise ``value`` compactly with non-ASCII kept (the form whose length is the size in characters)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _grapheme_floor(text: str, pos: int) -> int:
    """Return the largest grapheme-cluster boundary of ``text`` that is ≤ ``pos`` (0 if none).

    Scanning clusters from the start costs O(pos); instead the scan starts at a known boundary shortly before
    ``pos``: between two characters of break class Other there is always one (UAX #29 GB999).
    """
    start = 0
    for match in _SAFE_PAIR.finditer(text, max(pos - _SCAN_BACK, 0), max(pos - 1, 0)):
        start = match.start() + 1
    best = start
    for match in _GRAPHEME.finditer(text, start):
        if match.end() > pos:
            break
        best = match.end()
    return best


def cut_text(text: str, limit: int) -> str:
    """Return ``text`` if it has at most ``limit`` characters, else a cut ending in «…» of at most ``limit``.

    The cut falls at the last sentence end, else the last whitespace, in the second half of the window, else at
    the last grapheme boundary; it never splits a code point or a grapheme cluster (UAX #29 via ``regex``'s
    ``\\X``), so emoji ZWJ sequences, flags and letters with combining marks stay whole or go whole.
    """
    if len(text) <= limit:
        return text
    room = max(limit - len(ELLIPSIS), 0)
    probe = text[: room + 1]  # one more character, so a sentence end right at the limit is seen
    ends = [m.end() for m in _SENTENCE_END.finditer(probe) if m.end() <= room]
    cut = ends[-1] if ends and ends[-1] >= room // 2 else probe.rfind(" ", 0, room + 1)
    if cut < room // 2:
        cut = room
    head = text[: _grapheme_floor(text, cut)].rstrip()
    return head + ELLIPSIS if len(head) + len(ELLIPSIS) <= limit else head


def _stub(value: Any) -> Any:
    """Count-only stand-in of a container below the depth limit."""
    if isinstance(value, list | tuple):
        return {"items": [], "total": len(value), "truncated": True} if value else []
    if isinstance(value, dict):
        return {OMITTED_KEYS: len(value)} if value else {}
    return value


def _kept_keys(value: dict[str, Any], limit: int) -> set[str]:
    """Pick ``limit`` keys of a too-wide object: lists (their counts matter), then scalars/strings, then objects."""

    def rank(item: tuple[str, Any]) -> int:
        inner = item[1]
        if isinstance(inner, list | tuple):
            return 0
        return 2 if isinstance(inner, dict) else 1

    return {key for key, _ in sorted(value.items(), key=rank)[:limit]}


def _shrink(value: Any, level: _Level, depth: int = 0) -> Any:
    if isinstance(value, str):
        return cut_text(value, level.chars)
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, list | tuple | dict) and level.depth is not None and depth >= level.depth:
        return _stub(value)
    if isinstance(value, list | tuple):
        kept = [_shrink(v, level, depth + 1) for v in value[: level.items]]
        if len(value) <= level.items:
            return kept
        return {"items": kept, "total": len(value), "truncated": True}
    if isinstance(value, dict):
        # A key of the data named like the marker is counted as omitted, never kept: the marker is always ours.
        own = {k: v for k, v in value.items() if k != OMITTED_KEYS}
        if len(own) == len(value) <= level.keys:
            return {k: _shrink(v, level, depth + 1) for k, v in value.items()}
        keep = _kept_keys(own, level.keys)
        out = {k: _shrink(v, level, depth + 1) for k, v in own.items() if k in keep}
        out[OMITTED_KEYS] = len(value) - len(keep)
        return out
    return cut_text(str(value), level.chars)  # dates, decimals, …: as to_json would render them


def _last_resort(value: Any, max_chars: int) -> Any:
    """Fit anything: a count stub plus the longest JSON preview (a string) that keeps the whole under budget."""
    if isinstance(value, list | tuple):
        envelope: dict[str, Any] = {"items": [], "total": len(value), "truncated": True}
    elif isinstance(value, dict):
        envelope = {OMITTED_KEYS: len(value), "truncated": True}
    else:
        envelope = {"truncated": True}
    text = to_json(_shrink(value, _STRICTEST_FULL_DEPTH))
    low, high = 0, min(len(text), max_chars)
    while low < high:  # the longest preview length that still fits
        mid = (low + high + 1) // 2
        if len(to_json({**envelope, "preview": cut_text(text, mid)})) <= max_chars:
            low = mid
        else:
            high = mid - 1
    return {**envelope, "preview": cut_text(text, low)} if low else envelope


def summarise(value: Any, max_chars: int, *, size: int | None = None) -> tuple[Any, bool]:
    """Return ``(value, False)`` when it fits in ``max_chars`` characters of JSON, else ``(summary, True)``.

    Args:
        value: a JSON-able tool result.
        max_chars: budget in characters of compact JSON (``to_json``); ``TOOL_RESPONSE_MAX_CHARS``, 4000.
        size: ``len(to_json(value))`` when the caller has it already (saves serialising a large value twice).

    Returns:
        The value itself, untouched, when it fits; else the most generous uniform shrink that fits (lists with
        real ``total`` counts, strings cut at sentence boundaries); else a count stub with a JSON preview.
    """
    if (len(to_json(value)) if size is None else size) <= max_chars:
        return value, False
    # Sizes shrink (almost always) monotonically along the ladder: binary-search the first level that fits.
    low, high = 0, len(_LEVELS)
    while low < high:
        mid = (low + high) // 2
        if len(to_json(_shrink(value, _LEVELS[mid]))) <= max_chars:
            high = mid
        else:
            low = mid + 1
    for level in _LEVELS[low:]:  # normally the first one fits; the scan covers non-monotonic corners
        shrunk = _shrink(value, level)
        if len(to_json(shrunk)) <= max_chars:
            return shrunk, True
    return _last_resort(value, max_chars), True


def list_totals(value: Any, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], int]:
    """Return ``{path: length}`` of every list reachable through object keys only (no list indices).

    A summarised list (``{"items", "total", "truncated": true}``) reports its ``total``, so
    ``list_totals(raw)`` and ``list_totals(summary)`` agree on every path the summary kept: that is what
    "totals survive" means (SC-004).
    """
    if isinstance(value, list | tuple):
        return {path: len(value)}
    if not isinstance(value, dict):
        return {}
    if value.get("truncated") is True and isinstance(value.get("items"), list) and "total" in value:
        return {path: value["total"]}
    out: dict[tuple[str, ...], int] = {}
    for key, inner in value.items():
        out.update(list_totals(inner, (*path, key)))
    return out
