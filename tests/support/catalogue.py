"""Reading gettext catalogues (``locale/<lang>/LC_MESSAGES/django.po``) without GNU gettext.

A small parser of the PO format as ``makemessages``/``msgmerge`` write it (comments, flags, ``msgctxt``,
``msgid``, ``msgid_plural``, ``msgstr``/``msgstr[n]``, continued strings, obsolete ``#~`` entries), so the
catalogue tests that need no extraction run on a machine without gettext (``make test-fast``).
"""

import ast
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.processes import ROOT

LOCALE = ROOT / "locale"
RU_PO = LOCALE / "ru" / "LC_MESSAGES" / "django.po"
RU_MO = LOCALE / "ru" / "LC_MESSAGES" / "django.mo"


@dataclass
class Entry:
    """One message of a catalogue: ``msgstr`` holds one string, or one per plural form for a plural entry."""

    msgid: str
    msgctxt: str | None = None
    msgid_plural: str | None = None
    msgstr: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    obsolete: bool = False

    @property
    def key(self) -> tuple[str | None, str]:
        """``(msgctxt, msgid)``: what identifies the message."""
        return self.msgctxt, self.msgid

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags


def _string(token: str) -> str:
    """The value of a PO string literal (C escapes, like Python's for what makemessages writes)."""
    return ast.literal_eval(token)


def po_entries(path: Path) -> list[Entry]:
    """Return every entry of the PO file at ``path``, the header (``msgid ""``) first.

    Raises:
        ValueError: a line the parser does not know.
    """
    entries: list[Entry] = []
    flags: set[str] = set()
    current: Entry | None = None
    target: tuple[str, int | None] | None = None  # the field a continued string belongs to

    def flush() -> None:
        nonlocal current, flags
        if current is not None:
            entries.append(current)
        current, flags = None, set()

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        obsolete = line.startswith("#~")
        if obsolete:
            line = line[2:].strip()
        if not line:
            flush()
            continue
        if line.startswith("#,"):
            flush()
            flags = {f.strip() for f in line[2:].split(",")}
            continue
        if line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if line.startswith('"'):
            if current is None or target is None:
                raise ValueError(f"{path}:{number}: a continued string outside an entry")
            name, index = target
            value = _string(line)
            if name == "msgstr" and index is not None:
                current.msgstr[index] += value
            elif name == "msgstr":
                current.msgstr[0] += value
            else:
                setattr(current, name, getattr(current, name) + value)
            continue
        if keyword == "msgctxt":
            flush()
            current = Entry(msgid="", msgctxt=_string(rest), flags=flags, obsolete=obsolete)
            target = ("msgctxt", None)
        elif keyword == "msgid":
            if current is None or current.msgid or current.msgstr:
                flush()
                current = Entry(msgid="", flags=flags, obsolete=obsolete)
            current.msgid = _string(rest)
            target = ("msgid", None)
        elif keyword == "msgid_plural" and current is not None:
            current.msgid_plural = _string(rest)
            target = ("msgid_plural", None)
        elif keyword == "msgstr" and current is not None:
            current.msgstr = [_string(rest)]
            target = ("msgstr", None)
        elif keyword.startswith("msgstr[") and current is not None:
            index = int(keyword[7:-1])
            current.msgstr.append(_string(rest))
            if len(current.msgstr) != index + 1:
                raise ValueError(f"{path}:{number}: plural forms out of order")
            target = ("msgstr", index)
        else:
            raise ValueError(f"{path}:{number}: cannot read {raw!r}")
    flush()
    return entries


def po_header(path: Path) -> dict[str, str]:
    """The header fields of the catalogue (``Plural-Forms``, ``Language``, …)."""
    header = next(e for e in po_entries(path) if e.msgid == "" and e.msgctxt is None)
    fields = (line.partition(":") for line in header.msgstr[0].splitlines() if ":" in line)
    return {name.strip(): value.strip() for name, _, value in fields}


def po_messages(path: Path) -> list[Entry]:
    """The live messages of the catalogue: no header, no obsolete entries."""
    return [e for e in po_entries(path) if e.msgid and not e.obsolete]
