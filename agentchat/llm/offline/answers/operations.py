"""Answer templates for the operations tools: deploy, migration preview and run, backups, task status."""

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy

from agentchat.llm.offline.answers.base import answer_writer, items, more, when
from agentchat.llm.offline.answers.markup import object_link, quoted_name, superset_link
from agentchat.models import task_kind_label
from agentchat.runtime.titles import tool_title
from agentchat.superset.diff_text import quoted_names
from agentchat.superset.migration_plan import TYPES, object_count

TYPE_ONE = {
    "dashboard": pgettext_lazy("object type", "dashboard"),
    "chart": pgettext_lazy("object type", "chart"),
    "dataset": pgettext_lazy("object type", "dataset"),
    "database": pgettext_lazy("object type", "database"),
}
PLANNED = {
    "create": pgettext_lazy("planned action of an object", "create"),
    "overwrite": pgettext_lazy("planned action of an object", "overwrite"),
    "conflict": pgettext_lazy("planned action of an object", "replace (same slug)"),
    "keep": pgettext_lazy("planned action of an object", "keep as is"),
}
# What the deploy did, as the heading of the objects it did it to («Создано: 3 графика, 1 датасет.»).
DONE = {
    "create": pgettext_lazy("deploy outcome", "Created"),
    "overwrite": pgettext_lazy("deploy outcome", "Overwritten"),
    "conflict": pgettext_lazy("deploy outcome", "Replaced (same slug)"),
    "keep": pgettext_lazy("deploy outcome", "Unchanged"),
}
STATES = {
    "queued": pgettext_lazy("task state", "queued"),
    "running": pgettext_lazy("task state", "running"),
    "succeeded": pgettext_lazy("task state", "succeeded"),
    "failed": pgettext_lazy("task state", "failed"),
}


def _label(labels: dict[str, Any], key: Any) -> str:
    return str(labels[key]) if key in labels else str(key)


def _counts(counts: dict[str, Any] | None) -> list[str]:
    """One line per outcome: «Создано: 1 график, 2 датасета.»; kinds outside ``TYPES`` are left out."""
    counts = counts or {}
    lines = []
    for action, heading in DONE.items():
        objects = [object_count(kind, n) for kind in TYPES if (n := (counts.get(kind) or {}).get(action))]
        if objects:
            lines.append(f"{heading}: {', '.join(objects)}.")
    return lines


def _size(n: int) -> str:
    for unit, scale in ((pgettext("size unit", "MB"), 1 << 20), (pgettext("size unit", "KB"), 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    unit = pgettext("size unit", "B")
    return f"{n} {unit}"


@answer_writer("deploy_dashboard")
def deploy_dashboard(result: dict[str, Any], language: str) -> str:
    dashboards, _total = items(result.get("dashboards"))
    src, dst = result.get("source_env_id"), result.get("target_env_id")
    lines = []
    for d in dashboards:
        charts, n_charts = items(d.get("charts"))
        lines.append(
            ngettext(
                "Dashboard %(title)s was deployed from %(src)s to %(dst)s (id %(id)s in %(dst)s, %(superset)s) and "
                "verified: %(count)d chart attached.",
                "Dashboard %(title)s was deployed from %(src)s to %(dst)s (id %(id)s in %(dst)s, %(superset)s) and "
                "verified: %(count)d charts attached.",
                n_charts,
            )
            % {
                "title": object_link("dashboard", d.get("id"), dst, d.get("title")),
                "superset": superset_link(d.get("url")),
                "src": src,
                "dst": dst,
                "id": d.get("id"),
                "count": n_charts,
            }
        )
        lines += [f"- {quoted_name(name)}" for name in charts]
        lines.append("")
    lines += _counts(result.get("counts"))
    replaced = [o for o in items(result.get("objects"))[0] if o.get("action") == "conflict"]
    lines += [
        _("Replaced the dashboard with the same slug: %(name)s.") % {"name": quoted_name(o.get("name"))}
        for o in replaced
    ]
    lines += _detached_lines(result)
    copy = result.get("copy")
    if isinstance(copy, dict) and copy.get("backup_id") and copy.get("dashboards"):
        lines.append(
            _("The version before the deploy is kept as copy #%(id)s (a rollback restores it).")
            % {"id": copy["backup_id"]}
        )
    return "\n".join(lines).strip()


def _detached_lines(result: dict[str, Any]) -> list[str]:
    """What became of the target charts the deploy took off their dashboards (issue 28 item 2): deleted as the
    card's option asked, or left on no dashboard (named, with the way to delete them)."""
    lines = []
    removed, n_removed = items(result.get("removed"))
    if n_removed:
        names = quoted_names(c.get("name") for c in removed)
        lines.append(
            ngettext(
                "Deleted %(count)d chart the deploy left on no dashboard: %(names)s.",
                "Deleted %(count)d charts the deploy left on no dashboard: %(names)s.",
                n_removed,
            )
            % {"count": n_removed, "names": names}
        )
    refused, n_refused = items(result.get("not_removed"))
    if n_refused:
        names = "; ".join(f"{quoted_names([c.get('name')])}: {c.get('reason')}" for c in refused)
        lines.append(
            ngettext(
                "Not deleted, Superset refused (a chart another person owns stays): %(names)s.",
                "Not deleted, Superset refused (charts other people own stay): %(names)s.",
                n_refused,
            )
            % {"names": names}
        )
    left, n_left = items(result.get("detached"))
    if n_left:
        names = quoted_names(c.get("name") for c in left)
        lines.append(
            ngettext(
                "%(count)d chart of %(env)s is now on no dashboard: %(names)s. Delete it in Superset if it is not "
                "needed.",
                "%(count)d charts of %(env)s are now on no dashboard: %(names)s. Delete them in Superset if they are "
                "not needed.",
                n_left,
            )
            % {"count": n_left, "env": result.get("target_env_id"), "names": names}
        )
    return lines


@answer_writer("preview_migration")
def preview_migration(result: dict[str, Any], language: str) -> str:
    objects, total = items(result.get("objects"))
    lines = [str(result.get("summary") or "")]
    plan = result.get("migration")
    if isinstance(plan, dict):  # a saved plan (the migration page): name it first
        lines.insert(0, _plan_line(plan, result))
    for o in objects:
        kind = _label(TYPE_ONE, o.get("type"))
        lines.append(f"- {kind[:1].upper()}{kind[1:]} {quoted_name(o.get('name'))}: {_label(PLANNED, o.get('action'))}")
    lines += ["", _("Nothing was changed: this is a preview only.")]
    return "\n".join(lines) + more(len(objects), total)


def _plan_line(plan: dict[str, Any], result: dict[str, Any]) -> str:
    return _("Migration **#%(id)s** %(name)s: %(src)s → %(dst)s, dashboards: %(names)s.") % {
        "id": plan.get("id"),
        "name": object_link("migration", plan.get("id"), None, plan.get("name")),
        "src": result.get("source_env_id"),
        "dst": result.get("target_env_id"),
        "names": ", ".join(quoted_name(name) for name in items(result.get("dashboards"))[0]) or "—",
    }


@answer_writer("execute_migration")
def execute_migration(result: dict[str, Any], language: str) -> str:
    names, n = items(result.get("dashboards"))
    plan = result.get("migration")
    page = (
        "\n\n"
        + _("Progress and the outcome of each dashboard: migration %(name)s.")
        % {"name": object_link("migration", plan.get("id"), None, plan.get("name"))}
        if isinstance(plan, dict)
        else ""
    )
    return (
        ngettext(
            "Migration started: task #%(task)s — %(count)d dashboard (%(names)s) from %(src)s to %(dst)s. Progress "
            "shows in the chat; you can ask “status of task %(task)s”.",
            "Migration started: task #%(task)s — %(count)d dashboards (%(names)s) from %(src)s to %(dst)s. Progress "
            "shows in the chat; you can ask “status of task %(task)s”.",
            n,
        )
        % {
            "task": result.get("task_id"),
            "count": n,
            "names": ", ".join(quoted_name(name) for name in names),
            "src": result.get("source_env_id"),
            "dst": result.get("target_env_id"),
        }
        + page
    )


@answer_writer("run_backup")
def run_backup(result: dict[str, Any], language: str) -> str:
    return _(
        "Backup of %(env)s started: task #%(task)s. Progress shows in the chat; list_backups shows finished backups."
    ) % {"env": result.get("env_id"), "task": result.get("task_id")}


def _backup_line(backup: dict[str, Any]) -> str:
    count = int(backup.get("dashboard_count") or 0)
    line = ngettext(
        "- #%(id)s %(when)s: %(count)d dashboard, %(size)s, by %(who)s",
        "- #%(id)s %(when)s: %(count)d dashboards, %(size)s, by %(who)s",
        count,
    ) % {
        "id": backup.get("id"),
        "when": when(backup.get("created_at")),
        "count": count,
        "size": _size(int(backup.get("size_bytes") or 0)),
        "who": backup.get("created_by") or "—",
    }
    line += _change_of(backup.get("change") or {})
    return line + ("" if backup.get("file_present", True) else _(" — file missing"))


def _change_of(change: dict[str, Any]) -> str:
    """« — копия перед развёртыванием дашборда ss-dev → …: «Отчёт»» for a copy made before a change (issue 28)."""
    if not change.get("tool"):
        return ""
    return _(" — the copy made before %(title)s %(src)s → here: %(names)s") % {
        "title": tool_title(str(change["tool"])),
        "src": change.get("source_env_id") or "↩",
        "names": quoted_names(change.get("dashboards") or []) or "—",
    }


@answer_writer("list_backups")
def list_backups(result: dict[str, Any], language: str) -> str:
    rows, total = items(result.get("backups"))
    env_id = result.get("env_id")
    if not rows:
        return _("%(env)s has no backups yet.") % {"env": env_id}
    lines = [_("Backups of %(env)s (newest first):") % {"env": env_id}]
    lines += [_backup_line(b) for b in rows]
    return "\n".join(lines) + more(len(rows), total)


def _task_result(kind: str, result: dict[str, Any]) -> list[str]:
    if kind == "backup":
        count = int(result.get("dashboard_count") or 0)
        return [
            ngettext(
                "Backup: %(count)d dashboard, %(size)s, file %(path)s",
                "Backup: %(count)d dashboards, %(size)s, file %(path)s",
                count,
            )
            % {
                "count": count,
                "size": _size(int(result.get("size_bytes") or 0)),
                "path": result.get("path") or result.get("file"),
            }
        ]
    if kind == "migration":
        deployed, _deployed_total = items(result.get("deployed"))
        failed, _failed_total = items(result.get("failed"))
        lines = [f"✓ «{d.get('title')}» → {result.get('target_env_id')}" for d in deployed]
        lines += [f"✗ «{f.get('title')}»: {f.get('error')}" for f in failed]
        return lines
    return []


@answer_writer("get_task_status")
def get_task_status(result: dict[str, Any], language: str) -> str:
    if not result.get("found"):
        return str(result.get("message"))
    raw_state = result.get("state")
    head = (
        _("Your latest task #%(task)s (%(kind)s, started %(when)s): %(state)s, %(progress)s %%.")
        if result.get("latest")
        else _("Task #%(task)s (%(kind)s): %(state)s, %(progress)s %%.")
    )
    lines = [
        head
        % {
            "task": result.get("task_id"),
            "kind": task_kind_label(result.get("kind")),
            "state": _label(STATES, raw_state),
            "progress": result.get("progress"),
            "when": when(result.get("created_at"), language),
        }
    ]
    if result.get("message") and result.get("state") != "failed":
        lines.append(str(result["message"]))
    if result.get("error"):
        lines.append(_("Error: %(error)s") % {"error": result["error"]})
    if isinstance(result.get("result"), dict):
        lines += _task_result(str(result.get("kind")), result["result"])
    return "\n".join(lines)
