"""A ``superset.diff`` comparison in words: one line per changed field, as cards and answers show it (issue 28).

``diff_line`` turns ``diff_summary`` lines into «“Отчёт”: заголовок “old” → “new”» in the active language; the
deploy and migration cards (``tools.migration_impact``), the compare_versions tool and its offline answer share
it, so a card and an answer name a change the same way.
"""

from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy

# The fields superset.diff compares, as people read them (««Отчёт»: заголовок «…» → «…»»).
FIELD_LABELS = {
    "dashboard_title": pgettext_lazy("changed field", "title"),
    "slug": pgettext_lazy("changed field", "slug"),
    "published": pgettext_lazy("changed field", "published"),
    "owners": pgettext_lazy("changed field", "owners"),
    "cross_filters_enabled": pgettext_lazy("changed field", "cross-filtering"),
    "native_filters": pgettext_lazy("changed field", "filters"),
    "viz_type": pgettext_lazy("changed field", "chart type"),
    "dataset": pgettext_lazy("changed field", "dataset"),
    "metrics": pgettext_lazy("changed field", "metrics"),
    "groupby": pgettext_lazy("changed field", "group by"),
    "adhoc_filters": pgettext_lazy("changed field", "chart filters"),
    "time_range": pgettext_lazy("changed field", "time range"),
    "cache_timeout": pgettext_lazy("changed field", "cache timeout"),
    "charts_added": pgettext_lazy("changed field", "charts added"),
    "charts_removed": pgettext_lazy("changed field", "charts removed"),
    "charts_moved": pgettext_lazy("changed field", "charts moved"),
    "sql": pgettext_lazy("changed field", "SQL"),
    "columns": pgettext_lazy("changed field", "columns"),
}
KIND_LABELS = {
    "dashboard": pgettext_lazy("compared object", "dashboard"),
    "chart": pgettext_lazy("compared object", "chart"),
    "dataset": pgettext_lazy("compared object", "dataset"),
}


def quoted_names(names: Iterable[Any]) -> str:
    """«“A”, “B”» in the active language's quotes («A», «B» in Russian)."""
    return ", ".join(_("“%(title)s”") % {"title": name} for name in names)


def _value(value: Any) -> str:
    if str(value).lower() in ("true", "false"):
        return _("yes") if str(value).lower() == "true" else _("no")
    return str(value) if value not in (None, "") else "—"


def diff_line(line: dict[str, Any], *, before: str = "", after: str = "") -> str | None:
    """One ``superset.diff.diff_summary`` line in words, in the active language.

    Args:
        line: the line.
        before / after: what the two sides are called («prod», «копия №5»); empty: «the old / new version».

    Returns:
        «“Отчёт”: title “old” → “new”», «“Отчёт”: charts added: A, B», «chart “Итого”: only in ss-dev» for an
        added / removed object; None for a field this module has no label for.
    """
    values = {"object": line["object"], "kind": KIND_LABELS.get(line["kind"], line["kind"])}
    if line["status"] in ("added", "removed"):
        side = after if line["status"] == "added" else before
        if not side:
            side = _("the new version") if line["status"] == "added" else _("the old version")
        return _("%(kind)s “%(object)s”: only in %(side)s") % {**values, "side": side}
    label = FIELD_LABELS.get(line["field"])
    if label is None:
        return None
    field = _("%(field)s “%(item)s”") % {"field": label, "item": line["item"]} if line.get("item") else str(label)
    if line["field"].startswith("charts_"):
        return _("“%(object)s”: %(field)s: %(names)s") % {
            **values,
            "field": field,
            "names": line["after"] or line["before"],
        }
    return _("“%(object)s”: %(field)s “%(before)s” → “%(after)s”") % {
        **values,
        "field": field,
        "before": _value(line["before"]),
        "after": _value(line["after"]),
    }


def changed_lines(summary: list[dict[str, Any]], kinds: tuple[str, ...]) -> list[str]:
    """``diff_line`` of the changed fields of the objects of ``kinds`` in ``summary`` (objects only one side has,
    and fields without a label, left out), in the active language."""
    lines = (diff_line(line) for line in summary if line["kind"] in kinds and line["status"] == "changed")
    return [text for text in lines if text is not None]
