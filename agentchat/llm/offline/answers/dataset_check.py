"""The dataset check in words (seed Story 1 AC 2, issue 29 item 6): the problems found, or «проблем не найдено»
with what was checked, then the notes (``tools.dataset_checks``). Runs under the writer's language."""

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

# What each check of ``tools.dataset_checks.CHECKS`` looked at, for «проверено: …».
CHECKED = {
    "table": gettext_lazy("the source table and its columns"),
    "metrics": gettext_lazy("the columns of the metrics"),
    "time_column": gettext_lazy("the time column"),
    "owners": gettext_lazy("the owners"),
    "environments": gettext_lazy("the same dataset in the other environments"),
}


def _names(values: Any) -> str:
    return ", ".join(str(v) for v in values or []) or "—"


def finding_text(finding: dict[str, Any]) -> str:
    """One problem or note of the check as a clause (the active language)."""
    code, names = finding.get("code"), _names(finding.get("columns"))
    texts = {
        "table_missing": lambda: (
            _("the table %(table)s is missing in its database (or has no columns)") % {"table": finding.get("table")}
        ),
        "columns_missing_in_table": lambda: (
            _("columns of the dataset that its table no longer has: %(columns)s") % {"columns": names}
        ),
        "metric_unknown_columns": lambda: (
            _("the metric %(metric)s uses columns the dataset lacks: %(columns)s")
            % {"metric": finding.get("metric"), "columns": names}
        ),
        "time_column_missing": lambda: (
            _("the default time column %(column)s is not one of its columns") % {"column": finding.get("column")}
        ),
        "no_owners": lambda: _("nobody owns the dataset"),
        "columns_differ": lambda: (
            _("in %(env)s (id %(id)s) its columns differ: missing there %(missing)s; only there %(extra)s")
            % {
                "env": finding.get("env_id"),
                "id": finding.get("id"),
                "missing": _names(finding.get("missing")),
                "extra": _names(finding.get("extra")),
            }
        ),
        "columns_not_in_dataset": lambda: (
            _("the table has columns the dataset lacks (sync its columns): %(columns)s") % {"columns": names}
        ),
        "missing_in": lambda: _("it is not in %(env)s") % {"env": finding.get("env_id")},
        "other_uuid": lambda: (
            _("in %(env)s it is dataset %(id)s, matched by name: its uuid differs")
            % {"env": finding.get("env_id"), "id": finding.get("id")}
        ),
        "environment_unchecked": lambda: (
            _("%(env)s could not be checked: %(reason)s")
            % {"env": finding.get("env_id"), "reason": finding.get("reason")}
        ),
        "table_unchecked": lambda: _("its table could not be read: %(reason)s") % {"reason": finding.get("reason")},
    }
    return texts[code]() if code in texts else str(code)


def check_lines(result: dict[str, Any]) -> list[str]:
    """The verdict line and its list: the problems found, or «Проблем не найдено. Проверено: …», then the notes;
    nothing for a result without a check (``checked`` absent)."""
    if "checked" not in result:
        return []
    problems, notes = result.get("problems") or [], result.get("notes") or []
    if problems:
        lines = [
            ngettext("Problems found (%(count)d):", "Problems found (%(count)d):", len(problems))
            % {"count": len(problems)}
        ]
        lines += [f"- {finding_text(p)}" for p in problems]
    else:
        checked = ", ".join(str(CHECKED[c]) for c in result.get("checked") or [] if c in CHECKED)
        lines = [_("No problems found. Checked: %(checked)s.") % {"checked": checked}]
    if notes:
        lines.append(_("Notes:"))
        lines += [f"- {finding_text(n)}" for n in notes]
    return lines
