"""Superset dataset read tools: search_datasets and get_dataset_details (Superset REST API /api/v1/dataset/).

Helpers that describe a dataset (source, dependents, review status) are shared with
``superset_explore_database`` and the dataset page.
"""

import asyncio
import json
from typing import Any

from asgiref.sync import sync_to_async
from pydantic import ConfigDict, Field

from agentchat.context.ids import ObjectId
from agentchat.errors import ToolError
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.tools.superset import ENV_ID_FIELD, _person
from policies import services as policy
from policies.models import Environment
from policies.services import CredentialsMissing

MAPPING_TIMEOUT_SHARE = 3  # a peer environment's look-up gets at most 1/3 of the call's deadline


class SearchDatasetsArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    query: str | None = Field(None, max_length=200, description="Part of the dataset (table) name to look for.")
    database: str | None = Field(None, max_length=200, description="Database name (exact or a unique fragment).")
    schema_name: str | None = Field(None, alias="schema", max_length=200, description="Schema name (exact).")
    owner: str | None = Field(None, max_length=100, description="Owner's name or username (a unique fragment).")
    certified: bool | None = Field(None, description="Certified (true) or not (false).")
    limit: int = Field(25, ge=1, le=100, description="Most datasets returned.")

    model_config = ConfigDict(populate_by_name=True)


class DatasetArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    dataset_id: ObjectId = Field(description="Numeric Superset id of the dataset.")


def json_object(value: Any) -> dict[str, Any]:
    """Return ``value`` (a dict or a JSON text, as Superset stores ``extra``) as a dict; ``{}`` when not one."""
    if isinstance(value, dict):
        return value
    try:
        parsed = json.loads(value or "{}")
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}


def review_status(dataset: dict[str, Any]) -> dict[str, Any]:
    """Return the review status of a dataset as Superset records it.

    "Review status" here means Superset's dataset certification — the «Certified» badge that Superset shows,
    stored as ``extra.certification.certified_by`` / ``extra.certification.details`` — plus the warning text
    (``extra.warning_markdown``) and whether the dataset is managed externally (``is_managed_externally``:
    defined outside Superset, e.g. imported from version control, so UI edits are locked).

    Returns:
        ``{"status": "certified"|"not_certified", "certified_by", "certification_details", "warning",
        "managed_externally", "external_url"}``.
    """
    extra = json_object(dataset.get("extra"))
    certification = extra.get("certification") or {}
    certified_by = certification.get("certified_by") if isinstance(certification, dict) else None
    return {
        "status": "certified" if certified_by else "not_certified",
        "certified_by": certified_by,
        "certification_details": certification.get("details") if certified_by else None,
        "warning": extra.get("warning_markdown"),
        "managed_externally": bool(dataset.get("is_managed_externally")),
        "external_url": dataset.get("external_url"),
    }


def dataset_url(base_url: str, dataset_id: int) -> str:
    """Return the Superset explore URL of a dataset."""
    return f"{base_url}/explore/?datasource_type=table&datasource_id={dataset_id}"


def dataset_source(dataset: dict[str, Any]) -> dict[str, Any]:
    """Return where a dataset's rows come from.

    Returns:
        ``{"kind": "physical"|"virtual", "database_id", "database", "backend", "catalog", "schema", "table",
        "sql"}``; ``table`` is None and ``sql`` set for a virtual dataset.
    """
    database = dataset.get("database") or {}
    virtual = bool(dataset.get("sql"))
    return {
        "kind": "virtual" if virtual else "physical",
        "database_id": database.get("id"),
        "database": database.get("database_name"),
        "backend": database.get("backend"),
        "catalog": dataset.get("catalog"),
        "schema": dataset.get("schema"),
        "table": None if virtual else dataset.get("table_name"),
        "sql": dataset.get("sql") or None,
    }


async def dataset_dependents(client: SupersetClient, dataset_id: int) -> dict[str, Any]:
    """Return the charts and dashboards built on a dataset (GET /api/v1/dataset/<id>/related_objects).

    Returns:
        ``{"charts": [{"id", "name", "viz_type", "url"}], "dashboards": [{"id", "title", "slug", "url"}]}``.
    """
    body = await client.get_json(f"/api/v1/dataset/{dataset_id}/related_objects")
    charts = (body.get("charts") or {}).get("result") or []
    dashboards = (body.get("dashboards") or {}).get("result") or []
    return {
        "charts": [
            {
                "id": c.get("id"),
                "name": c.get("slice_name"),
                "viz_type": c.get("viz_type"),
                "url": f"{client.base_url}/explore/?slice_id={c.get('id')}",
            }
            for c in charts
        ],
        "dashboards": [
            {
                "id": d.get("id"),
                "title": d.get("title") or d.get("dashboard_title"),
                "slug": d.get("slug"),
                "url": f"{client.base_url}/superset/dashboard/{d.get('slug') or d.get('id')}/",
            }
            for d in dashboards
        ],
    }


def _dataset_row(row: dict[str, Any], base_url: str) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row.get("table_name"),
        "kind": row.get("kind") or ("virtual" if row.get("sql") else "physical"),
        "database": (row.get("database") or {}).get("database_name"),
        "schema": row.get("schema"),
        "owners": [_person(o) for o in row.get("owners") or []],
        "changed_on": row.get("changed_on_utc") or row.get("changed_on"),
        "certified": review_status(row)["status"] == "certified",
        "url": dataset_url(base_url, row["id"]),
    }


async def _related_id(client: SupersetClient, field: str, text: str) -> tuple[int | None, list[str]]:
    """Resolve a name to the id Superset's dataset filters need (GET /api/v1/dataset/related/<field>).

    Returns:
        ``(id, [])`` for an exact (case-insensitive) or single match, else ``(None, candidate names)``.
    """
    body = await client.get_json(f"/api/v1/dataset/related/{field}", q={"filter": text, "page_size": 20})
    rows = body.get("result") or []
    needle = text.casefold()
    exact = [r for r in rows if needle in {str(r.get("text", "")).casefold(), str(r.get("value", ""))}]
    chosen = exact if len(exact) == 1 else rows if len(rows) == 1 else []
    if chosen:
        return int(chosen[0]["value"]), []
    return None, [str(r.get("text")) for r in rows]


@assistant_tool(
    name="search_datasets",
    category="read",
    env_specific=True,
    args=SearchDatasetsArgs,
    description_ru=(
        "Ищет датасеты в окружении Superset по части имени таблицы, базе данных, схеме, владельцу и сертификации."
    ),
    description_en=(
        "Finds datasets of an environment by table name fragment, database, schema, owner or certification."
    ),
    examples_ru=[
        "Найди датасеты про регионы",
        "Какие датасеты есть в базе Energy?",
        "Покажи датасеты, которыми владеет admin",
        "Какие датасеты в схеме main сертифицированы?",
    ],
    examples_en=[
        "Find datasets about regions",
        "Which datasets are in the Energy database?",
        "Show the datasets admin owns",
        "Which datasets in schema main are certified?",
    ],
)
async def search_datasets(ctx: ToolContext, args: SearchDatasetsArgs) -> dict[str, Any]:
    """Search datasets (GET /api/v1/dataset/ with Rison filters; names resolved via /related/<field>).

    Returns:
        ``{"env_id", "query", "count", "datasets": [{"id", "name", "kind", "database", "schema", "owners",
        "changed_on", "certified", "url"}]}``; ``query`` is the name fragment searched for (None: all), ``count``
        Superset's total for the filters. When the database or owner
        name matches nothing or several, no search runs and ``unresolved`` says ``{field: [candidates]}``.
    """
    client = await ctx.superset(args.env_id)
    filters: list[dict[str, Any]] = []
    if args.query:
        filters.append({"col": "table_name", "opr": "ct", "value": args.query})
    if args.schema_name:
        filters.append({"col": "schema", "opr": "eq", "value": args.schema_name})
    if args.certified is not None:
        filters.append({"col": "id", "opr": "dataset_is_certified", "value": args.certified})
    unresolved: dict[str, list[str]] = {}
    for field, text, col, opr in (
        ("database", args.database, "database", "rel_o_m"),
        ("owners", args.owner, "owners", "rel_m_m"),
    ):
        if text:
            found, candidates = await _related_id(client, field, text)
            if found is None:
                unresolved[field] = candidates
            else:
                filters.append({"col": col, "opr": opr, "value": found})
    if unresolved:
        return {"env_id": args.env_id, "count": 0, "datasets": [], "unresolved": unresolved}
    q = {"filters": filters, "page_size": args.limit, "order_column": "changed_on_delta_humanized"}
    body = await client.get_json("/api/v1/dataset/", q={**q, "order_direction": "desc"})
    rows = [_dataset_row(r, client.base_url) for r in body.get("result", [])]
    return {"env_id": args.env_id, "query": args.query, "count": body.get("count", len(rows)), "datasets": rows}


async def _peer_match(
    ctx: ToolContext, environment: Environment, source: dict[str, Any], table_name: str
) -> dict[str, Any]:
    """Look up the dataset named ``table_name`` on the same-named database in another environment."""
    entry = {"env_id": environment.env_id, "tier": environment.tier}
    try:
        async with asyncio.timeout(ctx.timeout_s / MAPPING_TIMEOUT_SHARE):
            client = await ctx.superset(environment.env_id)
            q = {"filters": [{"col": "table_name", "opr": "eq", "value": table_name}], "page_size": 100}
            rows = (await client.get_json("/api/v1/dataset/", q=q)).get("result", [])
    except (ToolError, CredentialsMissing, TimeoutError) as exc:
        reason = exc.text(ctx.language) if isinstance(exc, ToolError) else type(exc).__name__
        return {**entry, "status": "unavailable", "reason": reason}
    rows = [r for r in rows if (r.get("database") or {}).get("database_name") == source["database"]]
    rows.sort(key=lambda r: r.get("schema") != source["schema"])  # the same schema first
    if not rows:
        return {**entry, "status": "missing"}
    match = rows[0]
    return {
        **entry,
        "status": "found",
        "id": match["id"],
        "schema": match.get("schema"),
        "url": dataset_url(client.base_url, match["id"]),
    }


async def dataset_mapping(
    ctx: ToolContext, *, env_id: str, source: dict[str, Any], table_name: str
) -> list[dict[str, Any]]:
    """Return the same dataset in every other active environment, matched by table name + database name.

    Returns:
        ``[{"env_id", "tier", "status": "found"|"missing"|"unavailable", "id"?, "schema"?, "url"?,
        "reason"?}]``, one per other active environment; one unreachable environment never fails the call.
    """
    environments = await sync_to_async(policy.environments_active)()
    others = [e for e in environments if e.env_id != env_id]
    return list(await gather_requests(*(_peer_match(ctx, e, source, table_name) for e in others)))


@assistant_tool(
    name="get_dataset_details",
    category="read",
    env_specific=True,
    args=DatasetArgs,
    description_ru=(
        "Подробности датасета: колонки, метрики, исходная таблица или SQL, зависимые графики и дашборды, "
        "тот же датасет в других окружениях и статус проверки (сертификация)."
    ),
    description_en=(
        "Reads one dataset: columns, metrics, source table or SQL, dependent charts and dashboards, copies in "
        "other environments, certification. Use it to describe a dataset or list its columns."
    ),
    examples_ru=[
        "Расскажи про этот датасет",
        "Какие графики и дашборды используют этот датасет?",
        "Есть ли этот датасет в prod?",
        "Какие колонки и метрики у датасета?",
        "Датасет сертифицирован?",
    ],
    examples_en=[
        "Tell me about this dataset",
        "Which charts and dashboards use this dataset?",
        "Does this dataset exist in prod?",
        "What columns and metrics does the dataset have?",
        "Is this dataset certified?",
    ],
)
async def get_dataset_details(ctx: ToolContext, args: DatasetArgs) -> dict[str, Any]:
    """Describe one dataset (GET /api/v1/dataset/<id> and /related_objects, peers via /api/v1/dataset/).

    Review status is Superset's certification (see ``review_status``). The mapping matches the dataset's
    table name and database name in every other active environment.

    Returns:
        ``{"env_id", "dataset": {"id", "name", "description", "owners", "changed_on", "changed_by", "url"},
        "source": dataset_source(), "columns": [{"name", "type", "is_dttm", "verbose_name", "expression"}],
        "metrics": [{"name", "expression", "verbose_name"}], "dependents": dataset_dependents(),
        "environments": dataset_mapping(), "review": review_status()}``.
    """
    client = await ctx.superset(args.env_id)
    detail, dependents = await gather_requests(
        client.get_json(f"/api/v1/dataset/{args.dataset_id}"), dataset_dependents(client, args.dataset_id)
    )
    d = detail["result"]
    source = dataset_source(d)
    changed_by = d.get("changed_by") or {}
    return {
        "env_id": args.env_id,
        "dataset": {
            "id": d["id"],
            "name": d.get("table_name"),
            "description": d.get("description"),
            "owners": [_person(o) for o in d.get("owners") or []],
            "changed_on": d.get("changed_on"),
            "changed_by": _person(changed_by) if changed_by else None,
            "url": dataset_url(client.base_url, d["id"]),
        },
        "source": source,
        "columns": [
            {
                "name": c.get("column_name"),
                "type": c.get("type"),
                "is_dttm": bool(c.get("is_dttm")),
                "verbose_name": c.get("verbose_name"),
                "expression": c.get("expression") or None,
            }
            for c in d.get("columns") or []
        ],
        "metrics": [
            {"name": m.get("metric_name"), "expression": m.get("expression"), "verbose_name": m.get("verbose_name")}
            for m in d.get("metrics") or []
        ],
        "dependents": dependents,
        "environments": await dataset_mapping(ctx, env_id=args.env_id, source=source, table_name=d["table_name"]),
        "review": review_status(d),
    }
