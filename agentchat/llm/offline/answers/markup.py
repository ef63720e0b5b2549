"""Markdown pieces of the answer templates: names as literal text, links to an object's page here and in Superset
(issue 30 item 1: object names in answers are links, links are ``<a>``, not URLs in the text).

The answer is rendered by ``turn.markdown`` (markdown-it-py + nh3): a name from Superset goes through
``md_text`` so its ``*``, ``_`` or ``[`` stay characters, never markup, and a link through ``md_link``.
"""

import re
from typing import Any
from urllib.parse import quote, urlencode

from django.urls import reverse
from django.utils.translation import gettext as _

from agentchat.superset.viz_types import viz_type_name

_MARKUP = str.maketrans({c: f"\\{c}" for c in "\\`*[]<>|~#"})
# An underscore inside a word (energy_consumption) is no emphasis in CommonMark: only one at a word's edge is escaped,
# so names read as written in the answer's text too.
_EDGE_UNDERSCORE = re.compile(r"(?<![^\W_])_|_(?![^\W_])")
_BACKTICKS = re.compile(r"`+")
_URL_SAFE = ":/?&=#%+,;@!$'*~.-_"


def md_text(value: Any) -> str:
    """``value`` as literal Markdown text: every character Markdown would read as markup is escaped.

    Args:
        value: a name (a dashboard title, a column); None reads ``—``.

    Returns:
        The text with each of ``\\ ` * [ ] < > | ~ #`` and an underscore at a word's edge backslash-escaped, line
        breaks as spaces.
    """
    if value is None or value == "":
        return "—"
    text = str(value).replace("\r", " ").replace("\n", " ").translate(_MARKUP)
    return _EDGE_UNDERSCORE.sub(r"\\_", text)


def md_code(value: Any, *, in_table: bool = False) -> str:
    """``value`` as a Markdown code span (SQL, an expression), whatever backticks it holds.

    Args:
        value: the code; line breaks become spaces.
        in_table: escape ``|`` so that a GFM table cell does not end inside the span.
    """
    text = str(value or "").replace("\r", " ").replace("\n", " ")
    if in_table:
        text = text.replace("|", "\\|")
    fence = "`" * (max((len(m) for m in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}" if text else "—"


def md_link(label: Any, url: str | None) -> str:
    """A Markdown link ``[label](url)``; just the label when there is no URL.

    Args:
        label: the link's text (escaped with ``md_text``).
        url: an ``http(s)`` URL or a path of this site; spaces and parentheses are percent-encoded.
    """
    return md_link_raw(md_text(label), url)


def page_url(kind: str, object_id: Any, env_id: Any = None) -> str | None:
    """The agentchat page of an object: ``/dashboards/7/?env_id=prod``, ``/datasets/3/?env_id=…``,
    ``/migrations/2/``; None for a kind without a page (a chart) or without an id."""
    if object_id in (None, "") or kind not in ("dashboard", "dataset", "migration"):
        return None
    path = reverse(kind, args=[int(object_id)])
    return f"{path}?{urlencode({'env_id': env_id})}" if env_id and kind != "migration" else path


def object_link(kind: str, object_id: Any, env_id: Any, name: Any, superset_url: str | None = None) -> str:
    """«[«Отчёт»](/dashboards/1/?env_id=ss-dev)»: the name quoted and linked to its page here; an object without
    a page here (a chart) is linked to ``superset_url``; no link at all without either."""
    page = page_url(kind, object_id, env_id)
    return md_link_raw(quoted_name(name), page or superset_url)


def superset_link(url: str | None) -> str:
    """«[открыть в Superset](url)» (empty without a URL): the object in Superset itself, beside its page here."""
    return md_link(_("open in Superset"), url) if url else ""


def quoted_name(name: Any) -> str:
    """«Отчёт» (ru) / “Report” (en): a name in the language's quotes, as literal Markdown text."""
    return _("“%(title)s”") % {"title": md_text(name)}


def chart_line(chart: dict[str, Any]) -> str:
    """«- [«Потребление по месяцам»](Superset) — линейный график»: a chart with its human type name."""
    linked = md_link_raw(quoted_name(chart.get("name")), chart.get("url"))
    return f"- {linked} — {viz_type_name(chart.get('viz_type'))}"


def md_link_raw(markdown: str, url: str | None) -> str:
    """A link around text that is already Markdown (escaped by the caller); the text alone without a URL."""
    if not url:
        return markdown
    href = quote(str(url), safe=_URL_SAFE).replace("(", "%28").replace(")", "%29")
    return f"[{markdown}]({href})"


_LINK = re.compile(r"\[((?:\\.|[^\]\\])*)\]\((?:[^()\s]|%28|%29)*\)")
_ESCAPED = re.compile(r"\\([\\`*_\[\]<>|~#])")


def md_plain(text: str) -> str:
    """``text`` with its Markdown links as their labels and its escapes undone: what a model reads of an answer
    (``turn.facts``: a small model reads «Датасеты (1): energy_consumption», not the link's address)."""
    return _ESCAPED.sub(r"\1", _LINK.sub(lambda m: m.group(1), text))
