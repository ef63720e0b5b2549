"""Answer templates for the Superset read tools and the meta tools."""

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, ngettext_lazy, pgettext

from agentchat.llm.offline.answers.base import SearchWords, answer_writer, items, more, when
from agentchat.llm.offline.answers.git import git_line
from agentchat.llm.offline.answers.llm_review import validation_line
from agentchat.llm.offline.answers.markup import chart_line, md_link, md_text, object_link, page_url, superset_link
from agentchat.runtime.titles import tool_title


def _state(published: Any) -> str:
    return pgettext("dashboard state", "published") if published else pgettext("dashboard state", "draft")


@answer_writer("get_health_summary")
def health_summary(result: dict[str, Any], language: str) -> str:
    d = result.get("dashboard", {})
    env_id = result.get("env_id")
    charts, n_charts = items(result.get("charts"))
    datasets, n_datasets = items(result.get("datasets"))
    lines = [
        _("Dashboard %(title)s (id %(id)s, environment %(env)s, %(superset)s) is %(state)s.")
        % {
            "title": object_link("dashboard", d.get("id"), env_id, d.get("title")),
            "id": d.get("id"),
            "env": env_id,
            "superset": superset_link(d.get("url")),
            "state": _state(d.get("published")),
        },
        "",
        _("Charts (%(count)d):") % {"count": n_charts},
    ]
    lines += [chart_line(c) for c in charts]
    rest = more(len(charts), n_charts)
    if rest:
        lines.append(rest.strip())
    names = ", ".join(md_link(ds.get("name"), page_url("dataset", ds.get("id"), env_id)) for ds in datasets) or "—"
    lines += ["", _("Datasets (%(count)d): %(names)s") % {"count": n_datasets, "names": names}]
    lines.append(_("Owners: %(owners)s") % {"owners": md_text(", ".join(d.get("owners") or []) or None)})
    who = f" ({md_text(d.get('changed_by'))})" if d.get("changed_by") else ""
    lines.append(_("Last changed: %(when)s%(who)s") % {"when": when(d.get("changed_on")), "who": who})
    if "git" in result:
        lines.append(f"Git: {git_line(result.get('git') or {}, language)}.")
    if "validation" in result:
        label = _("Latest validation")
        lines.append(f"{label}: {validation_line(result.get('validation'), language)}")
    return "\n".join(lines)


DASHBOARD_SEARCH = SearchWords(
    none=gettext_lazy("No matching dashboards found in %(env)s."),
    none_for_query=gettext_lazy(
        "No dashboard you can see in %(env)s has “%(query)s” in its title or slug (Superset lists only those your "
        "account may open)."
    ),
    found=ngettext_lazy("Found %(count)d dashboard in %(env)s.", "Found %(count)d dashboards in %(env)s.", "count"),
    found_for_query=ngettext_lazy(
        "Found %(count)d dashboard in %(env)s whose title or slug contains “%(query)s”.",
        "Found %(count)d dashboards in %(env)s whose title or slug contains “%(query)s”.",
        "count",
    ),
)


def _dashboards_using(result: dict[str, Any]) -> str:
    """The dashboards and charts built on a dataset (search by dataset, issue 29 item 2)."""
    env, name = result.get("env_id"), (result.get("dataset") or {}).get("name")
    if not (result.get("dataset") or {}).get("ids"):
        return _("There is no dataset “%(name)s” in %(env)s.") % {"name": name, "env": env}
    rows, total = items(result.get("dashboards"))
    charts, n_charts = items(result.get("charts"))
    lines = [
        ngettext(
            "The dataset “%(name)s” in %(env)s is used by %(count)d dashboard:",
            "The dataset “%(name)s” in %(env)s is used by %(count)d dashboards:",
            total,
        )
        % {"name": name, "env": env, "count": total}
    ]
    lines += [f"- «{r.get('title')}» (id {r.get('id')})" for r in rows]
    lines.append(_("Charts on it (%(count)d): %(names)s") % {"count": n_charts, "names": _chart_names(charts)})
    return "\n".join(lines) + more(len(charts), n_charts)


def _chart_names(charts: list[dict[str, Any]]) -> str:
    return ", ".join(f"«{c.get('name')}» (id {c.get('id')})" for c in charts) or "—"


@answer_writer("search_dashboards")
def search_dashboards(result: dict[str, Any], language: str) -> str:
    if "dataset" in result:
        return _dashboards_using(result)
    rows, total = items(result.get("dashboards"))
    count = result.get("count", total)
    head = DASHBOARD_SEARCH.head(found=bool(rows), count=count, env=result.get("env_id"), query=result.get("query"))
    if rows and result.get("title_words"):  # found by its words' stems: no title contains the query as typed
        head = ngettext(
            "Found %(count)d dashboard in %(env)s whose title or slug has the words of “%(query)s”.",
            "Found %(count)d dashboards in %(env)s whose title or slug has the words of “%(query)s”.",
            count,
        ) % {"count": count, "env": result.get("env_id"), "query": result.get("query")}
    if not rows:
        return head
    lines = [head]
    env_id = result.get("env_id")
    lines += [
        f"- {object_link('dashboard', r.get('id'), env_id, r.get('title'))}"
        f" (id {r.get('id')}, {_state(r.get('published'))}, {superset_link(r.get('url'))})"
        for r in rows
    ]
    return "\n".join(lines) + more(len(rows), count)


@answer_writer("list_environments")
def list_environments(result: dict[str, Any], language: str) -> str:
    rows, _total = items(result.get("environments"))
    lines = [_("Environments:")]
    lines += [f"- {e.get('env_id')} — {e.get('name')} ({e.get('tier')})" for e in rows]
    off = [str(env_id) for env_id in result.get("switched_off") or []]
    if off:
        lines.append(_("Switched off by an administrator (no tool works there): %(envs)s.") % {"envs": ", ".join(off)})
    return "\n".join(lines)


@answer_writer("show_capabilities")
def show_capabilities(result: dict[str, Any], language: str) -> str:
    lines = [_("Here is what I can do here:")]
    for group in (result.get("categories") or {}).values():
        lines.append(f"{group.get('title')}:")
        tools, _total = items(group.get("tools"))
        tools = [tool for tool in tools if tool.get("name") != "show_capabilities"]
        for tool in tools:
            title = tool_title(str(tool.get("name")), language)
            lines.append(f"- {title[:1].upper()}{title[1:]}: {tool.get('description')}")
    if not result.get("env_id"):
        lines.append(_("No environment selected: tools that need one are unavailable — pick it at the top."))
    return "\n".join(lines)
