"""Answer templates for the version tools: compare_versions (issue 28 item 1)."""

from typing import Any

from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from agentchat.llm.offline.answers.base import answer_writer, items, more, when
from agentchat.superset.diff_text import KIND_LABELS, diff_line


def _other_side(other: dict[str, Any]) -> str:
    """«prod» or «копия №5 (prod, 03.12.2026 14:10 MSK)»."""
    if other.get("backup_id") is not None:
        return _("saved copy #%(id)s (%(env)s, %(when)s)") % {
            "id": other["backup_id"],
            "env": other.get("env_id"),
            "when": when(other.get("created_at")),
        }
    return str(other.get("env_id"))


@answer_writer("compare_versions")
def compare_versions(result: dict[str, Any], language: str) -> str:
    obj = result.get("object") or {}
    kind = str(obj.get("type"))
    values = {
        "kind": KIND_LABELS.get(kind, kind),
        "name": obj.get("name"),
        "env": result.get("env_id"),
        "other": _other_side(result.get("other") or {}),
    }
    if not result.get("found"):
        return capfirst(
            _("%(kind)s “%(name)s” of %(env)s has no version in %(other)s (looked up by uuid, then by slug or table).")
            % values
        )
    counts = result.get("counts") or {}
    differing = sum(int(counts.get(status) or 0) for status in ("changed", "added", "removed"))
    if not differing:
        return capfirst(
            _(
                "%(kind)s “%(name)s” is the same in %(env)s and in %(other)s: title, filters, charts, their types, "
                "metrics and datasets (ids and dates are not compared)."
            )
            % values
        )
    lines = [
        capfirst(
            ngettext(
                "%(kind)s “%(name)s”: %(count)d object differs between %(other)s and %(env)s (%(other)s → %(env)s):",
                "%(kind)s “%(name)s”: %(count)d objects differ between %(other)s and %(env)s (%(other)s → %(env)s):",
                differing,
            )
            % {**values, "count": differing}
        )
    ]
    rows, total = items(result.get("differences"))
    shown = [text for row in rows if (text := diff_line(row, before=str(values["other"]), after=str(values["env"])))]
    lines += [f"- {text}" for text in shown]
    hidden = sum(int(row.get("more") or 0) for row in rows)
    return "\n".join(lines) + more(len(rows), total + hidden)
