"""Superset dataset read tools: search_datasets and get_dataset_details (Superset REST API /api/v1/dataset/).

What describes a dataset (source, dependents, review status, its copies elsewhere) is in ``dataset_facts``, shared
with ``superset_explore_database``, the dataset check and the dataset page.
"""

from typing import Any

from pydantic import ConfigDict, Field

from agentchat.context.ids import ObjectId
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.tools.dataset_checks import dataset_check
from agentchat.tools.dataset_facts import dataset_dependents, dataset_source, dataset_url, review_status
from agentchat.tools.superset import ENV_ID_FIELD, _person


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

    Review status is Superset's certification (see ``review_status``); the same dataset in every other active
    environment, the review status and the problems found are the dataset check (``dataset_checks``).

    Returns:
        ``{"env_id", "dataset": {"id", "name", "uuid", "description", "owners", "changed_on", "changed_by", "url"},
        "source": dataset_source(), "columns": [{"name", "type", "is_dttm", "verbose_name", "expression"}],
        "metrics": [{"name", "expression", "verbose_name"}], "dependents": dataset_dependents(),
        "environments": dataset_mapping(), "review": review_status(), "checked", "problems", "notes"}``.
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
            "uuid": d.get("uuid"),
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
        **await dataset_check(ctx, client, env_id=args.env_id, detail=d),
    }
