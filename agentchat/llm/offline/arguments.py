"""Arguments of a tool call, filled from the page context and the question (offline planner, DESIGN §11).

Filling is driven by the tool's JSON schema (what the LLM is sent), parameter by parameter, so a tool added
later with the usual parameter names (``env_id``, ``dashboard_id``, ``target_env_id``, ``sql``…) is filled too.
A required parameter that neither the page nor the question gives is reported as missing; the planner then
asks for it instead of guessing.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentchat.llm.offline.mentions import Mentions


@dataclass(frozen=True)
class Page:
    """The page context as the planner reads it from the system prompt."""

    object_type: str | None = None
    object_id: int | None = None
    env_id: str | None = None
    object_name: str | None = None

    @classmethod
    def from_context(cls, context: dict[str, Any] | None) -> "Page":
        context = context or {}
        raw_id = context.get("objectId")
        return cls(
            object_type=context.get("objectType"),
            object_id=int(raw_id) if isinstance(raw_id, str) and raw_id.isdigit() else None,
            env_id=context.get("envId"),
            object_name=context.get("objectName"),
        )


def _page_object(page: Page, kind: str) -> int | None:
    return page.object_id if page.object_type == kind else None


def _names_page(m: Mentions, page: Page) -> bool:
    """True when the name the question gives is the page's own object's («сравни energy_consumption в dev и prod»
    on its page: the page's dataset, not one to search for; a fresh check)."""
    return bool(page.object_name and m.search_text and m.search_text.casefold() == page.object_name.casefold())


def _object_id(kind: str) -> Callable[[Mentions, Page], Any]:
    """An id named in the question next to its object word, else the page's object of that kind — unless the
    question names an object by its title or slug and does not point at the page («задеплой дашборд energy-report
    в prod» on another dashboard's page): no id then, so the planner searches for the named one first (issue 16
    review: the page's dashboard was put on the prod card)."""

    def fill(m: Mentions, page: Page) -> Any:
        named = m.first_id(kind)
        if named is not None:
            return named
        page_id = _page_object(page, kind)
        if page_id is not None and m.names_kind == kind and not m.refers_to_page and not _names_page(m, page):
            return None
        if page_id is not None:
            return page_id
        if m.names_kind == kind:
            return None  # "the dashboard Region 3 overview": a number in the title is no id, the title is searched
        others = [k for k in m.ids if k not in ("any", kind)]
        if m.ids.get("any") and not others and not page.object_type:
            return m.ids["any"][0]  # «Summarise dashboard 2» without a word next to the number is rare
        return None

    return fill


def _dashboard_ids(m: Mentions, page: Page) -> list[int] | None:
    ids = list(m.ids.get("dashboard") or [])
    others = [*(m.ids.get("task") or []), *(m.ids.get("migration") or [])]  # «миграция 1» is no dashboard
    ids += [n for n in m.ids.get("any") or [] if n not in ids and n not in others]
    page_id = _page_object(page, "dashboard")
    if page_id is not None and (m.refers_to_page or not ids) and page_id not in ids:
        ids.insert(0, page_id)
    return ids or None


def _migration_id(m: Mentions, page: Page) -> int | None:
    """The migration the question names («запусти миграцию 1»), else a migration page's saved plan: it wins over
    dashboards the question names (``runtime.plans.plan_arguments``; ones outside it are refused in words)."""
    named = m.first_id("migration")
    return named if named is not None else _page_object(page, "migration")


def _env(m: Mentions, page: Page) -> str | None:
    if len(m.envs) == 1:
        return m.envs[0]
    return m.target_env or page.env_id or (m.envs[0] if m.envs else None)


def _source_env(m: Mentions, page: Page) -> str | None:
    return m.source_env or page.env_id


def _target_env(m: Mentions, page: Page) -> str | None:
    source = _source_env(m, page)
    others = [e for e in m.envs if e != source]
    # «energy на деве куда мапится на проде?»: with another named too, the source's «на деве» is no target
    if m.target_env and (m.target_env != source or page.object_type == "migration" and not others):
        # on a migration page the target said is kept even where it is the source: the saved plan refuses it in
        # words («запусти эту миграцию в ss-dev» showed the plan's prod card, tools.plan_contradiction)
        return m.target_env
    return others[0] if others else None


def _audit_object(m: Mentions, page: Page) -> tuple[str, int] | None:
    for kind in ("dashboard", "dataset", "database"):
        if (object_id := m.first_id(kind)) is not None:
            return kind, object_id
    if page.object_type in ("dashboard", "dataset") and page.object_id is not None:
        return page.object_type, page.object_id
    return None


def _task_id(m: Mentions, page: Page) -> Any:
    if m.uuid:
        return m.uuid
    any_ids = [n for n in m.ids.get("any") or [] if n not in (m.ids.get("migration") or [])]
    return m.first_id("task") or (any_ids[0] if any_ids else None)


FILLERS: dict[str, Callable[[Mentions, Page], Any]] = {
    "env_id": _env,
    "source_env_id": _source_env,
    "target_env_id": _target_env,
    "dashboard_id": _object_id("dashboard"),
    "dataset_id": _object_id("dataset"),
    "database_id": lambda m, page: m.first_id("database"),
    "dashboard_ids": _dashboard_ids,
    "migration_id": _migration_id,
    "migration_name": lambda m, page: None if _migration_id(m, page) is not None else m.migration_name,
    "task_id": _task_id,
    "backup_id": lambda m, page: m.first_id("backup"),
    "sql": lambda m, page: m.sql,
    "dialect": lambda m, page: m.dialect,
    "query": lambda m, page: m.search_text,
    "owner": lambda m, page: m.owner,
    "published": lambda m, page: m.published,
    "certified": lambda m, page: m.certified,
    "database": lambda m, page: m.database,
    "database_name": lambda m, page: m.database,
    "schema": lambda m, page: m.schema,
    "table_name": lambda m, page: m.table,
    "base": lambda m, page: m.base_branch,
    "branch": lambda m, page: m.branch,
    # the quoted text after «с сообщением» / "message", else the first quoted that names no branch
    "message": lambda m, page: m.message or next((q for q in m.quoted if q != m.branch), None),
    "language": lambda m, page: m.language,
    "row_limit": lambda m, page: m.row_limit,
}


def args_fill(
    *, tool: str, parameters: dict[str, Any], mentions: Mentions, page: Page
) -> tuple[dict[str, Any], list[str]]:
    """Fill the arguments of ``tool`` from the question's ``mentions`` and the ``page``.

    Args:
        tool: the tool name (a few tools read a parameter differently: a branch to *create* is ``name``).
        parameters: the tool's JSON schema (``{"properties", "required"}``), as sent to an LLM.
        mentions: what the question names.
        page: the page context.

    Returns:
        ``(args, missing)``: the arguments found (absent ones left out, so the tool's defaults apply) and the
        required parameters nobody gave.
    """
    properties = parameters.get("properties") or {}
    required = list(parameters.get("required") or [])
    args: dict[str, Any] = {}
    for name in properties:
        value = _special(tool, name, mentions, page)
        if value is None and name in FILLERS:
            value = FILLERS[name](mentions, page)
        if value is not None:
            args[name] = value
    if "dashboard" in properties and "dashboard_id" in args:
        required = [r for r in required if r != "dashboard"]
    if args.get("dataset") and args.get("query") and str(args["query"]).casefold() in str(args["dataset"]).casefold():
        del args["query"]  # the dataset's name (or its stem) is no dashboard title
    missing = [name for name in required if name not in args]
    if tool == "rollback_deploy" and page.object_type == "migration" and not mentions.envs:
        args.pop("env_id", None)  # a plan's page is its source environment; an undo is where it went: the plan's
        # target, filled in by ``runtime.plans.plan_arguments``
    if tool == "deploy_dashboard" and "dashboard_id" not in args and "dashboard" not in args:
        missing.append("dashboard_id")
    if tool == "deploy_dashboard" and mentions.target_env and mentions.target_env == args.get("source_env_id"):
        missing = ["same_environment" if m == "target_env_id" else m for m in missing]  # «в prod» on prod's page
    if tool == "compare_versions" and not {"dashboard_id", "dataset_id"} & set(args):
        # An object named by its name is looked up by its kind first («чем отличается Отчёт … в ss-dev и в prod»).
        named = "dataset_id" if mentions.names_kind == "dataset" else "dashboard_id"
        missing.append(named if mentions.search_text else "compared_object")
    if tool == "deploy_history" and "dashboard_id" not in args:
        # no dashboard: the source environment filters nothing, and an environment said is where the deploys went
        # («кто и когда выполнял развёртывания в продуктивную среду» on prod's page: turns_day13 m1349)
        args.pop("source_env_id", None)
        said = mentions.target_env or (mentions.envs[0] if len(mentions.envs) == 1 else None)
        args.update({"target_env_id": said} if said else {})
    if tool == "compare_versions" and not {"other_env_id", "backup_id"} & set(args):
        missing.append("other_env_id")
    if tool == "superset_create_dataset" and not {"database_id", "database_name", "dataset_id"} & set(args):
        missing.append("database_name")  # no database named and no page's dataset to take it from (issue 29)
    plan = {"migration_id", "migration_name"} & set(args)
    if plan and not mentions.source_env:
        # a saved plan has its own source: the page's picked environment is not put beside it («запускай миграцию»
        # on the plan's page with prod picked had been refused as a migration «из prod»)
        args.pop("source_env_id", None)
    if {"migration_id", "dashboard_ids"} <= set(properties) and not plan:  # no plan: its parts
        missing += [name for name in ("dashboard_ids", "target_env_id") if name not in args]
    return args, missing


def _special(tool: str, name: str, m: Mentions, page: Page) -> Any:
    if tool == "create_branch" and name == "name":
        # «открой ветку под задачу 123»: the work item names the branch (issue 29 item 4), shown on the card.
        return m.branch or (f"feature/{m.task_reference}" if m.task_reference else None)
    if tool == "search_dashboards" and name == "dataset":
        return m.used_dataset  # the dashboards built on it (issue 29 item 2)
    if tool == "get_task_status" and name == "kind":
        return None if _task_id(m, page) is not None else m.task_kind
    if tool == "create_branch" and name == "base":
        return m.base_branch if m.base_branch != m.branch else None
    if tool == "superset_audit_permissions" and name in ("object_type", "object_id"):
        found = _audit_object(m, page)
        return None if found is None else found[0 if name == "object_type" else 1]
    if tool == "superset_create_dataset" and name == "table_name" and m.sql and not m.table:
        return m.quoted[0] if m.quoted else m.dataset_name
    if tool == "superset_create_dataset" and name == "dataset_id":
        # The dataset named is the new one; the page's, if any, says in which database (issue 29 item 5).
        return None if m.database else _page_object(page, "dataset")
    if tool == "compare_versions" and name in ("env_id", "other_env_id"):
        # The object is the page's (or the environment it is said to be in); the other side is the other one
        # named, unless a saved copy is («чем этот дашборд отличается от версии в prod?» on ss-dev: ss-dev, prod).
        source = m.source_env or page.env_id or (m.envs[0] if m.envs else None)
        if name == "env_id":
            return source
        return None if m.first_id("backup") is not None else next((e for e in m.envs if e != source), None)
    if tool in ("superset_execute_sql", "superset_explore_database") and name == "dataset_id":
        # A dataset named by its id is that one, not the page's («покажи датасет 2» on dataset 1's page).
        named = m.first_id("dataset")
        return None if m.database is not None else named if named is not None else _page_object(page, "dataset")
    if (
        tool == "superset_explore_database"
        and name == "env_id"
        and m.database is None
        and page.object_type == "dataset"
    ):
        # The page's dataset lives in the page's environment; another one named is where its copy is looked for
        # («этот датасет есть в prod?»: the check's mapping answers it, issue 29 item 6).
        return page.env_id
    return None
