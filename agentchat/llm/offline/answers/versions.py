"""Answer templates for the version tools: compare_versions and deploy_history (issue 28 items 1, 5)."""

from typing import Any

from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from agentchat.llm.offline.answers.base import answer_writer, items, more, when
from agentchat.superset.diff_text import KIND_LABELS, diff_line, quoted_names


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
        "object_type": KIND_LABELS.get(kind, kind),
        "name": obj.get("name"),
        "env": result.get("env_id"),
        "other": _other_side(result.get("other") or {}),
    }
    if not result.get("found"):
        return capfirst(
            _(
                "%(object_type)s “%(name)s” of %(env)s: no version in %(other)s (looked up by uuid, then by slug or "
                "table)."
            )
            % values
        )
    counts = result.get("counts") or {}
    differing = sum(int(counts.get(status) or 0) for status in ("changed", "added", "removed"))
    lines = [_other_object(result, values), _compared(result, values, differing), _charts_anew(result, values)]
    return "\n".join(filter(None, lines))


def _other_object(result: dict[str, Any], values: dict[str, Any]) -> str:
    """The first line when the other side is another object found by its slug or table (its uuid differs:
    Superset's import matches by uuid), with its id there: «есть ли такой дашборд в ss-dev?» read «no differences»
    and only then «another dashboard» (a fresh check)."""
    other = result.get("other") or {}
    found = {**values, "id": other.get("id")}
    if other.get("matched_by") == "slug":
        return (
            _(
                "In %(other)s the dashboard with the same slug is #%(id)s, another object (its uuid differs); compared "
                "with it:"
            )
            % found
        )
    if other.get("matched_by") == "table":
        return (
            _(
                "In %(other)s the dataset on the same table is #%(id)s, another object (its uuid differs); "
                "compared with it:"
            )
            % found
        )
    if other.get("matched_by") == "uuid" and other.get("id") is not None:  # «есть ли он в ss-dev?»: yes, as #N
        return _("In %(other)s it is #%(id)s.") % found
    return ""


def _charts_anew(result: dict[str, Any], values: dict[str, Any]) -> str:
    """What a deploy would make anew when the other side holds the charts under other uuids."""
    anew = int(result.get("charts_anew") or 0)
    if not anew or not (result.get("other") or {}).get("matched_by"):
        return ""
    return ngettext(
        "A deploy to %(other)s would create %(count)d chart anew: %(other)s has it under another uuid.",
        "A deploy to %(other)s would create %(count)d charts anew: %(other)s has them under other uuids.",
        anew,
    ) % {**values, "count": anew}


def _compared(result: dict[str, Any], values: dict[str, Any], differing: int) -> str:
    """The comparison's own lines: no differences (what was compared), or the differing objects."""
    kind = str((result.get("object") or {}).get("type"))
    if not differing and kind == "dataset":  # what superset.diff compares of a dataset
        return capfirst(
            _(
                "%(object_type)s “%(name)s”: no differences between %(env)s and %(other)s in the SQL, columns "
                "and metrics (ids and dates are not compared)."
            )
            % values
        )
    if not differing:
        return capfirst(
            _(
                "%(object_type)s “%(name)s”: no differences between %(env)s and %(other)s in the title, filters, "
                "charts, their types, metrics and datasets (ids and dates are not compared)."
            )
            % values
        )
    lines = [
        capfirst(
            ngettext(
                "%(object_type)s “%(name)s”: %(count)d object differs between %(other)s and %(env)s (%(other)s → "
                "%(env)s):",
                "%(object_type)s “%(name)s”: %(count)d objects differ between %(other)s and %(env)s (%(other)s → "
                "%(env)s):",
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


def _deploy_line(deploy: dict[str, Any]) -> str:
    """«03.12.2026 14:10 MSK — Иван Петров: «Отчёт» ss-dev → prod, выполнено, копия №5»."""
    titles = ", ".join(_("“%(title)s”") % {"title": t} for t in deploy.get("dashboards") or [] if t)
    if not titles:
        ids = ", ".join(str(i) for i in deploy.get("source_dashboard_ids") or [])
        titles = _("migration #%(id)s") % {"id": deploy["migration_id"]} if deploy.get("migration_id") else ids
    if deploy.get("ok"):
        migration = deploy.get("tool") == "execute_migration"
        result = pgettext("deploy result", "queued as a task") if migration else pgettext("deploy result", "done")
        if deploy.get("tool") == "rollback_deploy":
            result = pgettext("deploy result", "rolled back")
    elif deploy.get("refused"):  # an attempt our policy refused: a small model read «failed: denied» as a deploy
        result = pgettext("deploy result", "refused by our policy, nothing was deployed")
    else:
        result = _("failed: %(message)s") % {"message": deploy.get("message") or deploy.get("outcome")}
    line = _("%(when)s — %(who)s: %(what)s %(src)s → %(dst)s, %(result)s") % {
        "when": when(deploy.get("at")),
        "who": deploy.get("who") or "—",
        "what": titles or "—",
        "src": deploy.get("source_env_id") or ("↩" if deploy.get("tool") == "rollback_deploy" else "?"),
        "dst": deploy.get("target_env_id") or "?",
        "result": result,
    }
    if deploy.get("backup_id"):
        line += _(", copy #%(id)s saved before") % {"id": deploy["backup_id"]}
    return line


@answer_writer("deploy_history")
def deploy_history(result: dict[str, Any], language: str) -> str:
    rows, total = items(result.get("deploys"))
    title, dashboard_id = result.get("dashboard_title"), result.get("dashboard_id")
    dashboard = _("“%(title)s” (#%(id)s)") % {"title": title, "id": dashboard_id} if title else f"#{dashboard_id}"
    scope = {"env": result.get("target_env_id"), "dashboard": dashboard}
    if dashboard_id and result.get("target_env_id"):
        head = _("Deploys of dashboard %(dashboard)s to %(env)s (newest first):") % scope
        none = _("Dashboard %(dashboard)s has not been deployed to %(env)s through the agent.") % scope
    elif dashboard_id:
        head = _("Deploys of dashboard %(dashboard)s (newest first):") % scope
        none = _("Dashboard %(dashboard)s has not been deployed through the agent.") % scope
    elif result.get("target_env_id"):
        head = _("Deploys to %(env)s (newest first):") % scope
        none = _("Nothing has been deployed to %(env)s through the agent.") % scope
    else:
        head = _("Deploys (newest first):")
        none = _("Nothing has been deployed through the agent yet.")
    # What the history covers, said with it: the agent's own audit rows (issue 29 item 1: a count asked for a
    # period is answered for what the agent knows, not taken for every deploy there was).
    scope_line = _(
        "I do not see deploys or migrations made in Superset directly: only those made through the agent are listed."
    )
    if not rows:
        return f"{none}\n{scope_line}"
    lines = "\n".join([head, *(f"- {_deploy_line(d)}" for d in rows)]) + more(len(rows), total)
    return f"{lines}\n{scope_line}"


@answer_writer("rollback_deploy")
def rollback_deploy(result: dict[str, Any], language: str) -> str:
    restored = result.get("restored") or {}
    dashboards, n_dash = items(restored.get("dashboards"))
    n_charts = int(restored.get("charts") or 0)
    values = {"env": result.get("env_id"), "id": result.get("backup_id")}
    lines = [
        _("Rolled back in %(env)s to copy #%(id)s.") % values
        + " "
        + _("Restored: %(dashboards)s, %(charts)s.")
        % {
            "dashboards": ngettext("%(count)d dashboard", "%(count)d dashboards", n_dash) % {"count": n_dash},
            "charts": ngettext("%(count)d chart", "%(count)d charts", n_charts) % {"count": n_charts},
        }
    ]
    lines += [f"- {quoted_names([title])}" for title in dashboards]
    removed, n_removed = items(result.get("removed"))
    if n_removed:
        names = quoted_names(o.get("name") for o in removed)
        lines.append(_("Deleted what that change had created: %(names)s.") % {"names": names})
    kept, n_kept = items(result.get("kept"))
    if n_kept:
        names = quoted_names(o.get("name") for o in kept)
        lines.append(_("Kept, as they are used elsewhere now: %(names)s.") % {"names": names})
    if result.get("verified"):
        lines.append(_("Checked: the objects now equal the saved copy (ids and dates aside)."))
    else:
        differences, _n = items(result.get("differences"))
        lines.append(_("The objects differ from the saved copy after the restore — check them in Superset:"))
        lines += [f"- {line}" for line in differences]
    copy = result.get("copy")
    if isinstance(copy, dict) and copy.get("backup_id"):
        lines.append(_("The version before the rollback is kept as copy #%(id)s.") % {"id": copy["backup_id"]})
    return "\n".join(lines)
