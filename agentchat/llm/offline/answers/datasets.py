"""Answer templates for the dataset, database and permission tools (ru/en)."""

from typing import Any

from agentchat.llm.offline.answers.base import answer_writer, items, more, t

_KIND = {"physical": ("физический", "physical"), "virtual": ("виртуальный", "virtual")}


def _kind(kind: str | None, language: str) -> str:
    ru, en = _KIND.get(kind or "", (kind or "?", kind or "?"))
    return t(language, ru, en)


def _names(value: Any, key: str) -> str:
    rows, total = items(value)
    text = ", ".join(str(r.get(key)) for r in rows) or "—"
    return text + (f" (+{total - len(rows)})" if total > len(rows) else "")


@answer_writer("search_datasets")
def search_datasets(result: dict[str, Any], language: str) -> str:
    env_id = result.get("env_id")
    unresolved = result.get("unresolved") or {}
    if unresolved:
        lines = [t(language, "Не удалось однозначно определить фильтр:", "Could not resolve a filter:")]
        for field, candidates in unresolved.items():
            label = t(language, "база данных" if field == "database" else "владелец", field.rstrip("s"))
            options = ", ".join(candidates) or t(language, "ничего не найдено", "nothing matches")
            lines.append(f"- {label}: {options}")
        return "\n".join(lines)
    rows, shown_total = items(result.get("datasets"))
    count = result.get("count", shown_total)
    if not rows:
        return t(language, f"В {env_id} подходящих датасетов нет.", f"No matching datasets in {env_id}.")
    lines = [t(language, f"Найдено датасетов в {env_id}: {count}.", f"Datasets found in {env_id}: {count}.")]
    for r in rows:
        badge = t(language, ", сертифицирован", ", certified") if r.get("certified") else ""
        where = ".".join(str(p) for p in (r.get("database"), r.get("schema")) if p)
        lines.append(f"- {r.get('name')} (id {r.get('id')}, {where}, {_kind(r.get('kind'), language)}{badge})")
    return "\n".join(lines) + more(len(rows), count, language)


def _review_line(review: dict[str, Any], language: str) -> str:
    if review.get("status") == "certified":
        details = f" — {review['certification_details']}" if review.get("certification_details") else ""
        text = t(
            language,
            f"Статус проверки: сертифицирован ({review.get('certified_by')}){details}.",
            f"Review status: certified by {review.get('certified_by')}{details}.",
        )
    else:
        text = t(language, "Статус проверки: не сертифицирован.", "Review status: not certified.")
    if review.get("managed_externally"):
        text += t(language, " Управляется извне Superset.", " Managed outside Superset.")
    return text


def _mapping_line(entry: dict[str, Any], language: str) -> str:
    env_id, status = entry.get("env_id"), entry.get("status")
    if status == "found":
        return t(language, f"- {env_id}: есть (id {entry.get('id')})", f"- {env_id}: present (id {entry.get('id')})")
    if status == "missing":
        return t(language, f"- {env_id}: отсутствует", f"- {env_id}: missing")
    return t(
        language, f"- {env_id}: недоступно ({entry.get('reason')})", f"- {env_id}: unavailable ({entry.get('reason')})"
    )


@answer_writer("get_dataset_details")
def dataset_details(result: dict[str, Any], language: str) -> str:
    d, source = result.get("dataset") or {}, result.get("source") or {}
    where = ".".join(str(p) for p in (source.get("database"), source.get("schema"), source.get("table")) if p)
    origin = where if source.get("kind") == "physical" else f"{where} SQL: {source.get('sql')}"
    n_columns, n_metrics = items(result.get("columns"))[1], items(result.get("metrics"))[1]
    dependents = result.get("dependents") or {}
    n_charts, n_dashboards = items(dependents.get("charts"))[1], items(dependents.get("dashboards"))[1]
    ref = f"id {d.get('id')}, {result.get('env_id')}"
    kind = _kind(source.get("kind"), language)
    lines = [
        t(
            language,
            f"Датасет «{d.get('name')}» ({ref}), {kind}: {origin}.",
            f"Dataset “{d.get('name')}” ({ref}), {kind}: {origin}.",
        ),
        t(language, f"Колонки ({n_columns}): ", f"Columns ({n_columns}): ") + _names(result.get("columns"), "name"),
        t(language, f"Метрики ({n_metrics}): ", f"Metrics ({n_metrics}): ") + _names(result.get("metrics"), "name"),
        t(language, f"Графики ({n_charts}): ", f"Charts ({n_charts}): ") + _names(dependents.get("charts"), "name"),
        t(language, f"Дашборды ({n_dashboards}): ", f"Dashboards ({n_dashboards}): ")
        + _names(dependents.get("dashboards"), "title"),
    ]
    environments, _ = items(result.get("environments"))
    if environments:
        lines.append(t(language, "В других окружениях:", "In other environments:"))
        lines += [_mapping_line(e, language) for e in environments]
    lines.append(_review_line(result.get("review") or {}, language))
    return "\n".join(lines)


@answer_writer("superset_create_dataset")
def create_dataset(result: dict[str, Any], language: str) -> str:
    d = result.get("dataset") or {}
    label = ".".join(str(p) for p in (d.get("database"), d.get("schema"), d.get("name")) if p)
    if not result.get("created"):
        return t(
            language,
            f"Датасет «{label}» уже есть в {result.get('env_id')} (id {d.get('id')}); ничего не создано.",
            f"Dataset “{label}” already exists in {result.get('env_id')} (id {d.get('id')}); nothing was created.",
        )
    kind, where = _kind(d.get("kind"), language), f"{result.get('env_id')} (id {d.get('id')}): {d.get('url')}"
    return t(language, f"Создан {kind} датасет «{label}» в {where}", f"Created the {kind} dataset “{label}” in {where}")


@answer_writer("superset_explore_database")
def explore_database(result: dict[str, Any], language: str) -> str:
    mode, env_id = result.get("mode"), result.get("env_id")
    if mode == "databases":
        rows, _ = items(result.get("databases"))
        lines = [
            t(
                language,
                f"Базы данных в {env_id} ({result.get('count')}):",
                f"Databases in {env_id} ({result.get('count')}):",
            )
        ]
        for r in rows:
            schemas = ", ".join(items(r.get("schemas"))[0]) or "—"
            lines.append(
                f"- {r.get('name')} (id {r.get('id')}, {r.get('backend')}): {t(language, 'схемы', 'schemas')} {schemas}"
            )
        return "\n".join(lines)
    if mode == "schemas":
        db = result.get("database") or {}
        schemas = ", ".join(items(result.get("schemas"))[0]) or "—"
        return t(language, f"Схемы базы {db.get('name')}: {schemas}", f"Schemas of {db.get('name')}: {schemas}")
    if mode == "tables":
        db = result.get("database") or {}
        rows, _ = items(result.get("tables"))
        count = result.get("count", len(rows))
        lines = [
            t(
                language,
                f"Таблицы в {db.get('name')}.{result.get('schema')} ({count}):",
                f"Tables in {db.get('name')}.{result.get('schema')} ({count}):",
            )
        ]
        for r in rows:
            note = (
                t(language, f"датасет id {r['dataset_id']}", f"dataset id {r['dataset_id']}")
                if r.get("dataset_id")
                else t(language, "без датасета", "no dataset")
            )
            lines.append(f"- {r.get('name')} ({note})")
        return "\n".join(lines) + more(len(rows), count, language)
    d, source = result.get("dataset") or {}, result.get("source") or {}
    dependents = result.get("dependents") or {}
    where = ".".join(str(p) for p in (source.get("database"), source.get("schema"), source.get("table")) if p)
    return "\n".join(
        [
            t(language, f"Датасет «{d.get('name')}» читает {where}", f"Dataset “{d.get('name')}” reads {where}")
            + (f" (SQL: {source.get('sql')})" if source.get("sql") else "")
            + ".",
            t(language, "Колонки: ", "Columns: ") + _names(result.get("columns"), "name"),
            t(language, "Графики: ", "Charts: ") + _names(dependents.get("charts"), "name"),
            t(language, "Дашборды: ", "Dashboards: ") + _names(dependents.get("dashboards"), "title"),
        ]
    )


@answer_writer("superset_audit_permissions")
def audit_permissions(result: dict[str, Any], language: str) -> str:
    obj = result.get("object") or {}
    kinds = {
        "dataset": ("датасет", "dataset"),
        "database": ("база данных", "database"),
        "dashboard": ("дашборд", "dashboard"),
    }
    ru, en = kinds.get(obj.get("type") or "", ("объект", "object"))
    access = {"full": ("полный доступ к данным", "full data access"), "partial": ("частичный доступ", "partial access")}
    lines = [
        t(
            language,
            f"Права: {ru} «{obj.get('name')}» ({result.get('env_id')}).",
            f"Permissions: {en} “{obj.get('name')}” ({result.get('env_id')}).",
        )
    ]
    if obj.get("owners") is not None:
        lines.append(t(language, "Владельцы: ", "Owners: ") + (", ".join(items(obj.get("owners"))[0]) or "—"))
    if obj.get("dashboard_roles"):
        lines.append(t(language, "Роли дашборда: ", "Dashboard roles: ") + ", ".join(items(obj["dashboard_roles"])[0]))
    roles, _ = items(result.get("roles"))
    if not roles:
        lines.append(
            t(language, "Ни одна роль не имеет прав на этот объект.", "No role has permissions on this object.")
        )
    for r in roles:
        parts = [t(language, *access[r["data_access"]])] if r.get("data_access") in access else []
        if r.get("can_write"):
            parts.append(t(language, "может изменять", "can edit"))
        elif r.get("can_read"):
            parts.append(t(language, "может читать", "can read"))
        users = ", ".join(items(r.get("users"))[0])
        who = t(language, f"; пользователи: {users}", f"; users: {users}") if users else ""
        lines.append(f"- {r.get('role')}: {', '.join(parts) or '—'}{who}")
    return "\n".join(lines)
