"""Assistant text → safe HTML (DESIGN §6 ``message.html``): Markdown by markdown-it-py, then an nh3 allow-list.

A model answers in Markdown (lists, **bold**, tables, fenced SQL); the page shows it as HTML rendered here, on the
server, so the browser only ever inserts HTML this module produced:

- markdown-it-py (CommonMark + GFM tables and strikethrough) with ``html`` off: raw HTML in the model's text
  (``<script>``, ``<img onerror>``) is escaped and shown as text, never parsed;
- nh3 (the Ammonia sanitiser) keeps only the tags and attributes of ``TAGS``/``ATTRIBUTES``; a link keeps its
  ``href`` only for ``http``/``https`` (``javascript:``, ``data:`` and the rest are dropped) and always gets
  ``rel="noopener noreferrer"`` (a relative link, e.g. ``/dashboards/7/``, stays on this site);
- format and control characters (bidi overrides such as U+202E, zero-width ones) are shown as ``⟨U+202E⟩``, never
  interpreted, so a Superset title cannot reorder or hide what the answer says (issue 13, names shown visibly);
- a list ends where the text stops writing list items (``lists_closed``): a line that starts at the margin right
  after a list item begins a new paragraph instead of continuing the item (CommonMark's "lazy continuation", which
  drew «Датасеты: …», «Владельцы: …» inside the last chart's bullet; issue 30 item 1).
"""

import functools

import nh3
import regex
from markdown_it import MarkdownIt

TAGS = frozenset(
    {
        "p", "br", "hr", "strong", "em", "del", "s", "code", "pre", "blockquote",
        "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6",
        "table", "thead", "tbody", "tr", "th", "td", "a",
    }
)  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "th": {"style"}, "td": {"style"}, "ol": {"start"}, "code": {"class"}}
URL_SCHEMES = frozenset({"http", "https"})
STYLE_PROPERTIES = frozenset({"text-align"})  # column alignment of Markdown tables (``| ---: |``)
LINK_REL = "noopener noreferrer"
# Cf format (bidi controls, zero-width), Cc control other than tab and line breaks, Co private use, Cs surrogates.
_INVISIBLE = regex.compile(r"[\p{Cf}\p{Co}\p{Cs}]|[^\P{Cc}\t\n\r]")


def visible_format_characters(text: str) -> str:
    """Return ``text`` with every format/control character written as ``⟨U+XXXX⟩`` (tab and line breaks kept).

    The seam for the identity issue's helper (issue 13 part A: Superset names shown as they are, visibly): when
    that helper lands, this function delegates to it so cards, pages and answers share one spelling.

    Args:
        text: any text (a model's answer, a Superset title).

    Returns:
        The same text in which e.g. U+202E (right-to-left override) is the seven characters ``⟨U+202E⟩``.
    """
    return _INVISIBLE.sub(lambda m: f"⟨U+{ord(m.group()):04X}⟩", text)


_LIST_ITEM = regex.compile(r"^(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_FENCE = regex.compile(r"^ {0,3}(`{3,}|~{3,})")


def lists_closed(text: str) -> str:
    """Return ``text`` with a blank line put between a list and a line that follows it at the margin.

    CommonMark continues a list item's paragraph with any following line that is not a new block ("lazy
    continuation"), so ``"- a\n- b\nOwners: x"`` draws «Owners: x» inside item «b». Written that way, the line
    is meant as the next paragraph: this puts the blank line in. Lines indented under an item (its own
    continuation, a nested list) and fenced code blocks are left as they are.

    Args:
        text: Markdown text.

    Returns:
        The same text, with ``"\n"`` added before each such line (never inside a fenced code block).
    """
    out: list[str] = []
    in_list = False
    fence: str | None = None
    for line in text.split("\n"):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            out.append(line)
            continue
        if opening:
            fence = opening.group(1)
        if not line.strip():
            in_list = False
        elif _LIST_ITEM.match(line):
            in_list = True
        elif in_list and not line[:1].isspace():
            out.append("")
            in_list = False
        out.append(line)
    return "\n".join(out)


@functools.cache
def _parser() -> MarkdownIt:
    # Raw HTML off; ``breaks``: a single line break is a line break (chat answers, the offline templates);
    # ``table`` and ``strikethrough`` are GFM's. Links the parser
    # itself refuses (javascript:, vbscript:, file:, data: other than images) stay text; nh3 checks the rest.
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False, "breaks": True}).enable(
        ["table", "strikethrough"]
    )


def markdown_html(text: str) -> str:
    """Render a model's Markdown answer as sanitised HTML (see the module docstring for the rules).

    Args:
        text: the assistant's text (Markdown; may contain raw HTML, which is escaped).

    Returns:
        An HTML fragment holding only ``TAGS``; links ``http(s)`` only with ``rel="noopener noreferrer"``;
        format characters visible. Empty text gives ``""``.
    """
    if not text:
        return ""
    html = _parser().render(lists_closed(visible_format_characters(text)))
    return nh3.clean(
        html,
        tags=set(TAGS),
        attributes={tag: set(names) for tag, names in ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        link_rel=LINK_REL,
        filter_style_properties=set(STYLE_PROPERTIES),
        strip_comments=True,
    )
