"""Names from Superset shown as they are, visibly (issue 13 item 6; DESIGN §7).

A Superset title is data anyone with edit rights in Superset chose. Bidi controls (U+202E RIGHT-TO-LEFT OVERRIDE
makes «txt.exe» read «exe.txt»), zero-width characters and other format characters must never be interpreted by
the browser where agentchat shows such a name: ``visible`` writes each one as ``⟨U+202E⟩``. It is the one helper
for that; templates use it as the ``visible`` filter (``web/templatetags/agentchat_format``), chat answers through
``turn.rendering``, and the «Спросить агента» link through ``web.pages.agent_link``, so a title with such
characters still makes a valid UIContext (whose rule, ``context.uicontext``, stays as strict as it is).
"""

import unicodedata

from agentchat.context.uicontext import UNSAFE_CATEGORIES

# Bidi controls (all of category Cf today; listed so a Unicode update cannot make one pass): ALM, LRM, RLM,
# LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
LAYOUT = frozenset("\n\t")
_NO_LAYOUT = dict.fromkeys(map(ord, LAYOUT))  # str.translate table deleting the layout characters


def _shown(ch: str, keep_breaks: bool) -> str:
    if ch in BIDI_CONTROLS or (unicodedata.category(ch) in UNSAFE_CATEGORIES and not (keep_breaks and ch in LAYOUT)):
        return f"⟨U+{ord(ch):04X}⟩"
    return ch


def visible(text: str, *, keep_breaks: bool = False) -> str:
    """Return ``text`` with every bidi control and every control, format (Cf: zero-width, bidi), surrogate,
    private-use, unassigned or line/paragraph-separator character written as ``⟨U+XXXX⟩``.

    Args:
        text: a name or text from Superset (or an answer quoting one).
        keep_breaks: keep line feeds and tabs as they are (the layout of a multi-line answer).

    Returns:
        The same text with those characters made visible; everything else unchanged (letters of every script,
        emoji, spaces). The result holds none of ``uicontext.UNSAFE_CATEGORIES`` unless ``keep_breaks``.
    """
    # Fast path (issue 17: this ran per character of every answer): ``str.isprintable`` is False for every
    # character of the categories Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs but the ASCII space — a superset of
    # ``UNSAFE_CATEGORIES`` and of ``BIDI_CONTROLS`` (all Cf) — so printable text has nothing to mark.
    if (text.translate(_NO_LAYOUT) if keep_breaks else text).isprintable():
        return text
    return "".join(_shown(ch, keep_breaks) for ch in text)


def visible_cut(text: str, limit: int) -> str:
    """``visible(text)`` cut to at most ``limit`` characters, never inside a ``⟨U+XXXX⟩`` marker (the
    ``objectName`` of a link: ``uicontext.MAX_OBJECT_NAME_CHARS``)."""
    out: list[str] = []
    size = 0
    for ch in text:
        piece = _shown(ch, False)
        if size + len(piece) > limit:
            break
        out.append(piece)
        size += len(piece)
    return "".join(out)
