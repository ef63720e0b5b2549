"""Answer templates of the offline planner: tool result (as the LLM sees it) → text in ru or en (DESIGN §11)."""

from collections.abc import Callable
from typing import Any

Writer = Callable[[dict[str, Any], str], str]


def _t(language: str, ru: str, en: str) -> str:
    return en if language == "en" else ru


def _items(value: Any) -> tuple[list, int]:
    """Return (shown items, real total) of a list that the summariser may have shortened."""
    if isinstance(value, dict) and "items" in value:
        return list(value["items"]), int(value.get("total", len(value["items"])))
    return list(value or []), len(value or [])


def _more(shown: int, total: int, language: str) -> str:
    if total <= shown:
        return ""
    return _t(language, f"\n… и ещё {total - shown}", f"\n… and {total - shown} more")


def health_summary(result: dict[str, Any], language: str) -> str:
    d = result.get("dashboard", {})
    charts, n_charts = _items(result.get("charts"))
    datasets, n_datasets = _items(result.get("datasets"))
    state = _t(language, "опубликован", "published") if d.get("published") else _t(language, "черновик", "draft")
    lines = [
        _t(
            language,
            f"Дашборд «{d.get('title')}» (id {d.get('id')}, окружение {result.get('env_id')}) — {state}.",
            f"Dashboard “{d.get('title')}” (id {d.get('id')}, environment {result.get('env_id')}) is {state}.",
        ),
        _t(language, f"Графики ({n_charts}):", f"Charts ({n_charts}):"),
    ]
    lines += [f"- {c.get('name')} ({c.get('viz_type')})" for c in charts]
    more = _more(len(charts), n_charts, language)
    if more:
        lines.append(more.strip())
    names = ", ".join(str(ds.get("name")) for ds in datasets) or "—"
    lines.append(_t(language, f"Датасеты ({n_datasets}): {names}", f"Datasets ({n_datasets}): {names}"))
    owners = ", ".join(d.get("owners") or []) or "—"
    lines.append(_t(language, f"Владельцы: {owners}", f"Owners: {owners}"))
    who = f" ({d.get('changed_by')})" if d.get("changed_by") else ""
    lines.append(
        _t(language, f"Последнее изменение: {d.get('changed_on')}{who}", f"Last changed: {d.get('changed_on')}{who}")
    )
    for key, ru, en in (("git", "Git", "Git"), ("validation", "Последняя проверка", "Latest validation")):
        if result.get(key):
            lines.append(f"{_t(language, ru, en)}: {result[key].get('summary', result[key])}")
    return "\n".join(lines)


def search_dashboards(result: dict[str, Any], language: str) -> str:
    rows, total = _items(result.get("dashboards"))
    count = result.get("count", total)
    if not rows:
        return _t(
            language,
            f"В окружении {result.get('env_id')} подходящих дашбордов не найдено.",
            f"No matching dashboards found in {result.get('env_id')}.",
        )
    head = _t(
        language,
        f"Найдено дашбордов в {result.get('env_id')}: {count}.",
        f"Dashboards found in {result.get('env_id')}: {count}.",
    )
    lines = [head]
    for r in rows:
        state = _t(language, "опубликован", "published") if r.get("published") else _t(language, "черновик", "draft")
        lines.append(f"- «{r.get('title')}» (id {r.get('id')}, {state})")
    return "\n".join(lines) + _more(len(rows), count, language)


def list_environments(result: dict[str, Any], language: str) -> str:
    rows, _ = _items(result.get("environments"))
    lines = [_t(language, "Окружения:", "Environments:")]
    lines += [f"- {e.get('env_id')} — {e.get('name')} ({e.get('tier')})" for e in rows]
    return "\n".join(lines)


def show_capabilities(result: dict[str, Any], language: str) -> str:
    lines = [_t(language, "Вот что я могу сделать здесь:", "Here is what I can do here:")]
    for group in (result.get("categories") or {}).values():
        lines.append(f"{group.get('title')}:")
        tools, _ = _items(group.get("tools"))
        lines += [f"- {t.get('name')}: {t.get('description')}" for t in tools]
    if not result.get("env_id"):
        lines.append(
            _t(
                language,
                "Окружение не выбрано: инструменты, которым нужно окружение, недоступны — выберите его вверху.",
                "No environment selected: tools that need one are unavailable — pick it at the top.",
            )
        )
    return "\n".join(lines)


WRITERS: dict[str, Writer] = {
    "get_health_summary": health_summary,
    "search_dashboards": search_dashboards,
    "list_environments": list_environments,
    "show_capabilities": show_capabilities,
}


def answer_from_result(tool: str, result: Any, language: str) -> str:
    """Return the answer text for ``tool``'s ``result`` in ``language``; a generic listing for other tools."""
    writer = WRITERS.get(tool)
    if writer is not None and isinstance(result, dict):
        return writer(result, language)
    import json

    body = json.dumps(result, ensure_ascii=False, indent=1)
    return _t(language, f"Результат {tool}:\n{body}", f"Result of {tool}:\n{body}")


def answer_from_error(tool: str, error: dict[str, Any], language: str) -> str:
    """Return the answer for a failed or refused call of ``tool`` (``error`` is the ToolMessage payload)."""
    message = error.get("message") or error.get("error")
    return _t(language, f"Не удалось выполнить {tool}: {message}", f"Could not run {tool}: {message}")
