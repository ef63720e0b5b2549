"""Answer templates for the Superset read tools and the meta tools."""

from typing import Any

from agentchat.llm.offline.answers.base import answer_writer, items, more, t, when
from agentchat.llm.offline.answers.git import git_line
from agentchat.llm.offline.answers.llm_review import validation_line
from agentchat.runtime.titles import tool_title


@answer_writer("get_health_summary")
def health_summary(result: dict[str, Any], language: str) -> str:
    d = result.get("dashboard", {})
    charts, n_charts = items(result.get("charts"))
    datasets, n_datasets = items(result.get("datasets"))
    state = t(language, "опубликован", "published") if d.get("published") else t(language, "черновик", "draft")
    lines = [
        t(
            language,
            f"Дашборд «{d.get('title')}» (id {d.get('id')}, окружение {result.get('env_id')}) — {state}.",
            f"Dashboard “{d.get('title')}” (id {d.get('id')}, environment {result.get('env_id')}) is {state}.",
        ),
        t(language, f"Графики ({n_charts}):", f"Charts ({n_charts}):"),
    ]
    lines += [f"- {c.get('name')} ({c.get('viz_type')})" for c in charts]
    rest = more(len(charts), n_charts, language)
    if rest:
        lines.append(rest.strip())
    names = ", ".join(str(ds.get("name")) for ds in datasets) or "—"
    lines.append(t(language, f"Датасеты ({n_datasets}): {names}", f"Datasets ({n_datasets}): {names}"))
    owners = ", ".join(d.get("owners") or []) or "—"
    lines.append(t(language, f"Владельцы: {owners}", f"Owners: {owners}"))
    who = f" ({d.get('changed_by')})" if d.get("changed_by") else ""
    lines.append(
        t(
            language,
            f"Последнее изменение: {when(d.get('changed_on'))}{who}",
            f"Last changed: {when(d.get('changed_on'), 'en')}{who}",
        )
    )
    if "git" in result:
        lines.append(f"Git: {git_line(result.get('git') or {}, language)}.")
    if "validation" in result:
        label = t(language, "Последняя проверка", "Latest validation")
        lines.append(f"{label}: {validation_line(result.get('validation'), language)}")
    return "\n".join(lines)


@answer_writer("search_dashboards")
def search_dashboards(result: dict[str, Any], language: str) -> str:
    rows, total = items(result.get("dashboards"))
    count = result.get("count", total)
    if not rows:
        return t(
            language,
            f"В окружении {result.get('env_id')} подходящих дашбордов не найдено.",
            f"No matching dashboards found in {result.get('env_id')}.",
        )
    head = t(
        language,
        f"Найдено дашбордов в {result.get('env_id')}: {count}.",
        f"Dashboards found in {result.get('env_id')}: {count}.",
    )
    lines = [head]
    for r in rows:
        state = t(language, "опубликован", "published") if r.get("published") else t(language, "черновик", "draft")
        lines.append(f"- «{r.get('title')}» (id {r.get('id')}, {state})")
    return "\n".join(lines) + more(len(rows), count, language)


@answer_writer("list_environments")
def list_environments(result: dict[str, Any], language: str) -> str:
    rows, _ = items(result.get("environments"))
    lines = [t(language, "Окружения:", "Environments:")]
    lines += [f"- {e.get('env_id')} — {e.get('name')} ({e.get('tier')})" for e in rows]
    return "\n".join(lines)


@answer_writer("show_capabilities")
def show_capabilities(result: dict[str, Any], language: str) -> str:
    lines = [t(language, "Вот что я могу сделать здесь:", "Here is what I can do here:")]
    for group in (result.get("categories") or {}).values():
        lines.append(f"{group.get('title')}:")
        tools, _ = items(group.get("tools"))
        tools = [tool for tool in tools if tool.get("name") != "show_capabilities"]
        for tool in tools:
            title = tool_title(str(tool.get("name")), language)
            lines.append(f"- {title[:1].upper()}{title[1:]}: {tool.get('description')}")
    if not result.get("env_id"):
        lines.append(
            t(
                language,
                "Окружение не выбрано: инструменты, которым нужно окружение, недоступны — выберите его вверху.",
                "No environment selected: tools that need one are unavailable — pick it at the top.",
            )
        )
    return "\n".join(lines)
