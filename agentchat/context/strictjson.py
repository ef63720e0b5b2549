"""Strict JSON decoding of hostile input (WebSocket frames, DESIGN §6; UIContext bodies, DESIGN §7).

The standard decoder silently keeps the last of duplicate keys and dies with ``RecursionError`` on deep
nesting. Here both stay visible instead of being lost, so the caller can tell *which* part of a well-formed
document is wrong (a too-deep ``context`` inside a frame is an ``invalid_context``, not a ``bad_frame``):

- an object with repeated keys decodes to a ``DuplicateKeys`` dict (last value wins, ``duplicates`` names them);
- a container nested deeper than ``max_depth`` is not parsed but replaced by a ``Skipped`` marker (its text is
  only checked for balanced brackets and strings);
- an integer literal longer than ``MAX_INT_DIGITS`` digits becomes a ``Skipped`` marker too (Python refuses to
  convert more than 4300 digits).

Text that is not JSON (syntax errors, ``NaN``/``Infinity``, unbalanced skipped text, trailing data) raises
``JSONUnparseable``.
"""

import json
import re
from collections.abc import Callable
from json.scanner import py_make_scanner  # type: ignore[attr-defined]  # CPython has it; typeshed lists only make_scanner
from typing import Any

MAX_DEPTH = 32
MAX_INT_DIGITS = 1000
_SKIP_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)
_CLOSING = {"[": "]", "{": "}"}
# A container parser of the pure-Python scanner: ``parse((text, index), ...) -> (value, end index)``.
_Parser = Callable[..., tuple[Any, int]]
# Where a flaw is: the keys and list indexes from the document's root.
Path = tuple[str | int, ...]


class JSONUnparseable(ValueError):
    """The text is not a JSON document (the message says where, never echoes the input)."""


class DuplicateKeys(dict[str, Any]):
    """A decoded JSON object that repeated keys; ``duplicates`` lists each repeated key once (last value kept)."""

    duplicates: tuple[str, ...] = ()


class Skipped:
    """Stands in for a part of the document that was not decoded; ``reason`` says why (English, for errors)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason

    def __repr__(self) -> str:
        return f"<skipped: {self.reason}>"


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    repeated: list[str] = []
    for key, _ in pairs:
        if key in seen and key not in repeated:
            repeated.append(key)
        seen.add(key)
    if not repeated:
        return dict(pairs)
    obj = DuplicateKeys(pairs)
    obj.duplicates = tuple(repeated)
    return obj


def _refuse_constant(name: str) -> Any:
    raise JSONUnparseable(f"{name} is not JSON")


def _parse_int(text: str) -> int | Skipped:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        return Skipped(f"number longer than {MAX_INT_DIGITS} digits")
    return int(text)


def _skip_container(text: str, start: int, opener: str) -> int:
    """Return the index just past the container opened by ``opener`` at ``start - 1``; brackets must balance."""
    stack = [opener]
    for match in _SKIP_TOKENS.finditer(text, start):
        token = match.group()
        if token in _CLOSING:
            stack.append(token)
        elif token in ("]", "}"):
            if _CLOSING[stack.pop()] != token:
                raise JSONUnparseable(f"mismatched {token!r} at char {match.start()}")
            if not stack:
                return match.end()
    raise JSONUnparseable("unterminated container")


class _StrictDecoder(json.JSONDecoder):
    """``json.JSONDecoder`` on the pure-Python scanner, with depth accounting in the container parsers."""

    # Set by ``JSONDecoder.__init__`` and called by the pure-Python scanner; typeshed does not declare them.
    parse_object: _Parser
    parse_array: _Parser

    def __init__(self, max_depth: int):
        super().__init__(object_pairs_hook=_pairs, parse_constant=_refuse_constant, parse_int=_parse_int)
        self.max_depth = max_depth
        self.depth = 0
        base_object, base_array = self.parse_object, self.parse_array
        self.parse_object = self._nested(base_object, "{")
        self.parse_array = self._nested(base_array, "[")
        self.memo: dict[str, str] = {}
        self.scan_once = py_make_scanner(self)

    def _nested(self, parse: _Parser, opener: str) -> _Parser:
        def parse_nested(state: tuple[str, int], *args: Any) -> tuple[Any, int]:
            text, start = state
            if self.depth >= self.max_depth:
                return Skipped(f"nested deeper than {self.max_depth} levels"), _skip_container(text, start, opener)
            self.depth += 1
            try:
                return parse(state, *args)
            finally:
                self.depth -= 1

        return parse_nested


def strict_loads(text: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Decode one JSON document, keeping duplicate keys and over-deep parts visible (see the module doc).

    Args:
        text: the document (already decoded from UTF-8).
        max_depth: containers deeper than this many levels are replaced by ``Skipped``.

    Returns:
        The decoded value; may contain ``DuplicateKeys`` objects and ``Skipped`` markers.

    Raises:
        JSONUnparseable: the text is not JSON.
    """
    try:
        return _StrictDecoder(max_depth).decode(text)
    except json.JSONDecodeError as exc:
        raise JSONUnparseable(f"{exc.msg} at char {exc.pos}") from None
    except RecursionError:  # unreachable with sane max_depth; kept so hostile input never escapes as a crash
        raise JSONUnparseable("nesting too deep") from None


def json_flaws(value: Any, *, max_depth: int = MAX_DEPTH) -> list[tuple[Path, str]]:
    """Walk a decoded value (iteratively) and list what makes it unacceptable as a strict JSON document.

    Reports ``DuplicateKeys`` objects, ``Skipped`` markers, nesting deeper than ``max_depth`` (for values
    built in Python rather than by ``strict_loads``) and values that are not JSON types.

    Returns:
        ``[(path, message)]`` where ``path`` is the tuple of keys/indexes from the root; empty when clean.
    """
    flaws: list[tuple[Path, str]] = []
    stack: list[tuple[Path, Any, int]] = [((), value, 0)]
    while stack:
        path, node, depth = stack.pop()
        if isinstance(node, Skipped):
            flaws.append((path, node.reason))
        elif isinstance(node, dict | list) and depth >= max_depth:
            flaws.append((path, f"nested deeper than {max_depth} levels"))
        elif isinstance(node, dict):
            if isinstance(node, DuplicateKeys):
                flaws.append((path, "duplicate keys: " + ", ".join(node.duplicates)))
            for key, child in node.items():
                if not isinstance(key, str):
                    flaws.append((path, "object keys must be strings"))
                    break
                stack.append(((*path, key), child, depth + 1))
        elif isinstance(node, list):
            stack.extend(((*path, i), child, depth + 1) for i, child in enumerate(node))
        elif not (node is None or isinstance(node, str | int | float)):
            flaws.append((path, f"{type(node).__name__} is not a JSON value"))
    return flaws
