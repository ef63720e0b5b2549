"""Answer templates for the dataset, database and permission tools (ru/en through the catalogue)."""

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy, pgettext, pgettext_lazy

from agentchat.llm.offline.answers.base import SearchWords, answer_writer, items, more, when
from agentchat.llm.offline.answers.dataset_check import check_lines
from agentchat.llm.offline.answers.markup import md_code, md_link, md_text, object_link, superset_link

_KIND = {"physical": pgettext_lazy("dataset kind", "physical"), "virtual": pgettext_lazy("dataset kind", "virtual")}
_OBJECT_KINDS = {
    "dataset": pgettext_lazy("permission audit object", "dataset"),
    "database": pgettext_lazy("permission audit object", "database"),
    "dashboard": pgettext_lazy("permission audit object", "dashboard"),
}
_ACCESS = {"full": gettext_lazy("full data access"), "partial": gettext_lazy("partial access")}


def _kind(kind: str | None) -> str:
    return str(_KIND[kind]) if kind in _KIND else kind or "?"


def _names(value: Any, key: str, links: bool = False) -> str:
    """The names of a (possibly summarised) list, each linked to its URL when ``links``; «(+N)» for the rest."""
    rows, total = items(value)
    text = ", ".join(md_link(r.get(key), r.get("url") if links else None) for r in rows) or "—"
    return text + (f" (+{total - len(rows)})" if total > len(rows) else "")


def _unresolved(unresolved: dict[str, list[str]]) -> str:
    lines = [_("Could not resolve a filter:")]
    for field, candidates in unresolved.items():
        label = pgettext("search filter", "database") if field == "database" else pgettext("search filter", "owner")
        options = ", ".join(candidates) or _("nothing matches")
        lines.append(f"- {label}: {options}")
    return "\n".join(lines)


DATASET_SEARCH = SearchWords(
    none=gettext_lazy("No matching datasets in %(env)s."),
    none_for_query=gettext_lazy(
        "No dataset you can see in %(env)s has “%(query)s” in its name (Superset lists only those your account "
        "may open)."
    ),
    found=ngettext_lazy("Found %(count)d dataset in %(env)s.", "Found %(count)d datasets in %(env)s.", "count"),
    found_for_query=ngettext_lazy(
        "Found %(count)d dataset in %(env)s whose name contains “%(query)s”.",
        "Found %(count)d datasets in %(env)s whose name contains “%(query)s”.",
        "count",
    ),
)


@answer_writer("search_datasets")
def search_datasets(result: dict[str, Any], language: str) -> str:
    env_id = result.get("env_id")
    if result.get("unresolved"):
        return _unresolved(result["unresolved"])
    rows, shown_total = items(result.get("datasets"))
    count = result.get("count", shown_total)
    head = DATASET_SEARCH.head(found=bool(rows), count=count, env=env_id, query=result.get("query"))
    if not rows:
        return head
    lines = [head]
    for r in rows:
        badge = _(", certified") if r.get("certified") else ""
        where = ".".join(str(p) for p in (r.get("database"), r.get("schema")) if p)
        name = object_link("dataset", r.get("id"), env_id, r.get("name"))
        lines.append(
            f"- {name} (id {r.get('id')}, {md_text(where)}, {_kind(r.get('kind'))}{badge}, "
            f"{superset_link(r.get('url'))})"
        )
    return "\n".join(lines) + more(len(rows), count)


def _review_line(review: dict[str, Any]) -> str:
    if review.get("status") == "certified":
        details = f" — {review['certification_details']}" if review.get("certification_details") else ""
        text = _("Review status: certified by %(who)s%(details)s.") % {
            "who": review.get("certified_by"),
            "details": details,
        }
    else:
        text = _("Review status: not certified.")
    if review.get("managed_externally"):
        text += " " + _("Managed outside Superset.")
    return text


def _mapping_line(entry: dict[str, Any]) -> str:
    env_id, status = entry.get("env_id"), entry.get("status")
    if status == "found":
        return _("- %(env)s: present (id %(id)s)") % {"env": env_id, "id": entry.get("id")}
    if status == "missing":
        return _("- %(env)s: missing") % {"env": env_id}
    return _("- %(env)s: unavailable (%(reason)s)") % {"env": env_id, "reason": entry.get("reason")}


def _columns_table(value: Any) -> list[str]:
    """The columns as a Markdown table: name, type (Superset's), and «время» for a temporal one."""
    rows, total = items(value)
    if not rows:
        return [_("No columns.")]
    lines = ["| " + _("Column") + " | " + _("Type") + " |", "| --- | --- |"]
    for c in rows:
        kind = md_text(c.get("type") or "?")
        if c.get("is_dttm"):
            kind += " · " + _("time")
        label = md_text(c.get("name"))
        if c.get("verbose_name"):
            label += f" ({md_text(c['verbose_name'])})"
        lines.append(f"| {label} | {kind} |")
    return lines + ([more(len(rows), total).strip()] if total > len(rows) else [])


def _metrics_table(value: Any) -> list[str]:
    """The metrics as a Markdown table: name and SQL expression."""
    rows, total = items(value)
    if not rows:
        return [_("No metrics.")]
    lines = ["| " + _("Metric") + " | " + _("Expression") + " |", "| --- | --- |"]
    lines += [f"| {md_text(m.get('name'))} | {md_code(m.get('expression'), in_table=True)} |" for m in rows]
    return lines + ([more(len(rows), total).strip()] if total > len(rows) else [])


def _structure(result: dict[str, Any]) -> list[str]:
    """«Колонки (N):» + table and «Метрики (N):» + table, blank lines between the blocks."""
    n_columns, n_metrics = items(result.get("columns"))[1], items(result.get("metrics"))[1]
    return [
        "",
        _("Columns (%(count)d):") % {"count": n_columns},
        "",
        *_columns_table(result.get("columns")),
        "",
        _("Metrics (%(count)d):") % {"count": n_metrics},
        "",
        *_metrics_table(result.get("metrics")),
        "",
    ]


@answer_writer("get_dataset_details")
def dataset_details(result: dict[str, Any], language: str) -> str:
    d, source = result.get("dataset") or {}, result.get("source") or {}
    where = ".".join(str(p) for p in (source.get("database"), source.get("schema"), source.get("table")) if p)
    origin = where if source.get("kind") == "physical" else f"{where} SQL: {source.get('sql')}"
    ref = f"id {d.get('id')}, {result.get('env_id')}"
    name = object_link("dataset", d.get("id"), result.get("env_id"), d.get("name"))
    ref += ", " + superset_link(d.get("url")) if d.get("url") else ""
    lines = [
        _("Dataset %(name)s (%(ref)s), %(kind)s: %(origin)s.")
        % {"name": name, "ref": ref, "kind": _kind(source.get("kind")), "origin": md_text(origin)},
        *_structure(result),
        *dependents_lines(result),
    ]
    return "\n".join(lines + _check_part(result))


def dependents_lines(result: dict[str, Any]) -> list[str]:
    """«Графики (N): …» and «Дашборды (N): …» of a dataset's read (``dependents`` of get_dataset_details or of
    superset_explore_database's dataset mode), linked to Superset."""
    dependents = result.get("dependents") or {}
    n_charts, n_dashboards = items(dependents.get("charts"))[1], items(dependents.get("dashboards"))[1]
    return [
        _("Charts (%(count)d): ") % {"count": n_charts} + _names(dependents.get("charts"), "name", links=True),
        _("Dashboards (%(count)d): ") % {"count": n_dashboards}
        + _names(dependents.get("dashboards"), "title", links=True),
    ]


def _changed_part(dataset: dict[str, Any]) -> list[str]:
    """Its owners and last change, when the result has them (the dataset page's read, issue 29)."""
    if "owners" not in dataset:
        return []
    who = f" ({dataset['changed_by']})" if dataset.get("changed_by") else ""
    return [
        _("Owners: %(owners)s") % {"owners": ", ".join(dataset.get("owners") or []) or "—"},
        _("Last changed: %(when)s%(who)s") % {"when": when(dataset.get("changed_on")), "who": who},
    ]


def _check_part(result: dict[str, Any]) -> list[str]:
    """The same dataset in the other environments, its review status and the check's verdict (issue 29 item 6)."""
    lines = []
    environments, _total = items(result.get("environments"))
    if environments:
        lines.append(_("In other environments:"))
        lines += [_mapping_line(e) for e in environments]
    if result.get("review"):
        lines.append(_review_line(result["review"]))
    return lines + check_lines(result)


@answer_writer("superset_create_dataset")
def create_dataset(result: dict[str, Any], language: str) -> str:
    d = result.get("dataset") or {}
    label = ".".join(str(p) for p in (d.get("database"), d.get("schema"), d.get("name")) if p)
    if not result.get("created"):
        return _("Dataset %(label)s already exists in %(env)s (id %(id)s); nothing was created.") % {
            "label": object_link("dataset", d.get("id"), result.get("env_id"), label),
            "env": result.get("env_id"),
            "id": d.get("id"),
        }
    return _("Created dataset %(label)s (%(kind)s) in %(env)s, id %(id)s.") % {
        "kind": _kind(d.get("kind")),
        "label": object_link("dataset", d.get("id"), result.get("env_id"), label),
        "env": result.get("env_id"),
        "id": d.get("id"),
    }


def _databases(result: dict[str, Any]) -> str:
    rows, _total = items(result.get("databases"))
    count = int(result.get("count") or len(rows))
    lines = [
        ngettext("%(count)d database in %(env)s:", "%(count)d databases in %(env)s:", count)
        % {"env": result.get("env_id"), "count": count}
    ]
    for r in rows:
        schemas = ", ".join(items(r.get("schemas"))[0]) or "—"
        label = _("schemas")
        lines.append(f"- {r.get('name')} (id {r.get('id')}, {r.get('backend')}): {label} {schemas}")
    return "\n".join(lines)


def _tables(result: dict[str, Any]) -> str:
    db = result.get("database") or {}
    rows, _total = items(result.get("tables"))
    count = result.get("count", len(rows))
    lines = [
        ngettext(
            "%(count)d table in %(database)s.%(schema)s:", "%(count)d tables in %(database)s.%(schema)s:", int(count)
        )
        % {"database": md_text(db.get("name")), "schema": md_text(result.get("schema")), "count": int(count)}
    ]
    for r in rows:
        note = _("dataset id %(id)s") % {"id": r["dataset_id"]} if r.get("dataset_id") else _("no dataset")
        lines.append(f"- {r.get('name')} ({note})")
    return "\n".join(lines) + more(len(rows), count)


@answer_writer("superset_explore_database")
def explore_database(result: dict[str, Any], language: str) -> str:
    mode = result.get("mode")
    if mode == "databases":
        return _databases(result)
    if mode == "schemas":
        db = result.get("database") or {}
        schemas = ", ".join(items(result.get("schemas"))[0]) or "—"
        return _("Schemas of %(database)s: %(schemas)s") % {"database": db.get("name"), "schemas": schemas}
    if mode == "tables":
        return _tables(result)
    d, source = result.get("dataset") or {}, result.get("source") or {}
    where = ".".join(str(p) for p in (source.get("database"), source.get("schema"), source.get("table")) if p)
    name = object_link("dataset", d.get("id"), result.get("env_id"), d.get("name"))
    lines = [
        _("Dataset %(name)s reads %(where)s") % {"name": name, "where": md_text(where)}
        + (f" (SQL: {md_code(source.get('sql'))})" if source.get("sql") else "")
        + ".",
        *_structure(result),
        *dependents_lines(result),
        *_changed_part(d),
        *_check_part(result),
    ]
    return "\n".join(lines)


def _role_line(role: dict[str, Any]) -> str:
    parts = [str(_ACCESS[role["data_access"]])] if role.get("data_access") in _ACCESS else []
    if role.get("can_write"):
        parts.append(_("can edit"))
    elif role.get("can_read"):
        parts.append(_("can read"))
    users = ", ".join(items(role.get("users"))[0])
    who = _("; users: %(users)s") % {"users": users} if users else ""
    return f"- {role.get('role')}: {', '.join(parts) or '—'}{who}"


@answer_writer("superset_audit_permissions")
def audit_permissions(result: dict[str, Any], language: str) -> str:
    obj = result.get("object") or {}
    kind = obj.get("type")
    kind = str(_OBJECT_KINDS[kind]) if kind in _OBJECT_KINDS else pgettext("permission audit object", "object")
    lines = [
        _("Permissions: %(object_type)s “%(name)s” (%(env)s).")
        % {"object_type": kind, "name": md_text(obj.get("name")), "env": result.get("env_id")}
    ]
    if obj.get("owners") is not None:
        lines.append(_("Owners: ") + (", ".join(items(obj.get("owners"))[0]) or "—"))
    if obj.get("dashboard_roles"):
        lines.append(_("Dashboard roles: ") + ", ".join(items(obj["dashboard_roles"])[0]))
    roles, _total = items(result.get("roles"))
    if not roles:
        lines.append(_("No role has permissions on this object."))
    lines += [_role_line(r) for r in roles]
    return "\n".join(lines)
