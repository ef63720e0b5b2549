"""superset_explore_database: databases, schemas, tables of an environment, or one dataset's table and
dependencies (Superset REST API /api/v1/database/…). Also the database look-up shared by the SQL and dataset tools.
"""

from typing import Any

from django.utils.translation import gettext_lazy
from pydantic import ConfigDict, Field

from agentchat.context.ids import ObjectId
from agentchat.errors import InvalidArguments, NotApplicable
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.tools.dataset_checks import dataset_check
from agentchat.tools.dataset_facts import dataset_dependents, dataset_source, dataset_url
from agentchat.tools.superset import ENV_ID_FIELD, _person

MAX_DATABASES_WITH_SCHEMAS = 20  # the overview lists schemas of at most this many databases


class ExploreDatabaseArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    database_id: ObjectId | None = Field(None, description="Numeric Superset id of the database.")
    database_name: str | None = Field(None, max_length=250, description="Database name (instead of its id).")
    schema_name: str | None = Field(None, alias="schema", max_length=250, description="Schema whose tables to list.")
    dataset_id: ObjectId | None = Field(None, description="A dataset to describe and check.")
    limit: int = Field(100, ge=1, le=500, description="Most tables listed.")

    model_config = ConfigDict(populate_by_name=True)


class DatabaseNotFound(NotApplicable):
    """No database the person can see has the name asked for (Superset lists only those its permissions show)."""

    message = gettext_lazy(
        "There is no database “%(name)s” in %(env)s, or Superset does not show it to your account. Databases you "
        "can use there: %(names)s."
    )


async def database_resolve(
    client: SupersetClient, *, database_id: int | None, database_name: str | None
) -> dict[str, Any]:
    """Return ``{"id", "name", "backend", "expose_in_sqllab", "allow_dml"}`` of a database by id or exact name.

    Raises:
        InvalidArguments: neither given. DatabaseNotFound: no database the person sees has that name (the
            message names those they see).
        UpstreamError: Superset has no database with that id (404).
    """
    if database_id is not None:
        row = (await client.get_json(f"/api/v1/database/{database_id}"))["result"]
        row.setdefault("id", database_id)
    elif database_name:
        q = {"filters": [{"col": "database_name", "opr": "eq", "value": database_name}], "page_size": 2}
        rows = (await client.get_json("/api/v1/database/", q=q)).get("result") or []
        if not rows:
            listed = (await client.get_json("/api/v1/database/", q={"page_size": 100})).get("result") or []
            names = ", ".join(sorted(str(r.get("database_name")) for r in listed)) or "—"
            raise DatabaseNotFound(name=database_name, env=client.env_id, names=names)
        row = rows[0]
    else:
        raise InvalidArguments("database_id or database_name is required")
    return {
        "id": row["id"],
        "name": row.get("database_name"),
        "backend": row.get("backend"),
        "expose_in_sqllab": row.get("expose_in_sqllab"),
        "allow_dml": row.get("allow_dml"),
    }


async def database_schemas(client: SupersetClient, database_id: int) -> list[str]:
    """Return the schema names of a database (GET /api/v1/database/<id>/schemas/)."""
    return list((await client.get_json(f"/api/v1/database/{database_id}/schemas/")).get("result") or [])


async def _tables(client: SupersetClient, database: dict[str, Any], schema: str, limit: int) -> dict[str, Any]:
    q = {"schema_name": schema, "force": False}
    datasets_q = {
        "filters": [
            {"col": "database", "opr": "rel_o_m", "value": database["id"]},
            {"col": "schema", "opr": "eq", "value": schema},
        ],
        "page_size": 100,
        "columns": ["id", "table_name", "sql"],
    }
    tables, datasets = await gather_requests(
        client.get_json(f"/api/v1/database/{database['id']}/tables/", q=q),
        client.get_json("/api/v1/dataset/", q=datasets_q),
    )
    physical = {d["table_name"]: d["id"] for d in datasets.get("result") or [] if not d.get("sql")}
    rows = tables.get("result") or []
    return {
        "mode": "tables",
        "database": database,
        "schema": schema,
        "count": tables.get("count", len(rows)),
        "tables": [
            {"name": t.get("value"), "type": t.get("type"), "dataset_id": physical.get(t.get("value"))}
            for t in rows[:limit]
        ],
    }


async def _overview(client: SupersetClient) -> dict[str, Any]:
    q = {"page_size": 100, "order_column": "database_name", "order_direction": "asc"}
    rows = (await client.get_json("/api/v1/database/", q=q)).get("result") or []
    shown = rows[:MAX_DATABASES_WITH_SCHEMAS]
    schemas = await gather_requests(*(database_schemas(client, r["id"]) for r in shown))
    return {
        "mode": "databases",
        "count": len(rows),
        "databases": [
            {
                "id": r["id"],
                "name": r.get("database_name"),
                "backend": r.get("backend"),
                "expose_in_sqllab": r.get("expose_in_sqllab"),
                "allow_dml": r.get("allow_dml"),
                "schemas": s,
            }
            for r, s in zip(shown, schemas, strict=True)
        ],
    }


async def _dataset(ctx: ToolContext, client: SupersetClient, env_id: str, dataset_id: int) -> dict[str, Any]:
    detail, dependents = await gather_requests(
        client.get_json(f"/api/v1/dataset/{dataset_id}"), dataset_dependents(client, dataset_id)
    )
    d = detail["result"]
    return {
        "mode": "dataset",
        "dataset": {
            "id": d["id"],
            "name": d.get("table_name"),
            "uuid": d.get("uuid"),
            "owners": [_person(o) for o in d.get("owners") or []],
            "changed_on": d.get("changed_on"),
            "changed_by": _person(d["changed_by"]) if d.get("changed_by") else None,
            "url": dataset_url(client.base_url, d["id"]),
        },
        "source": dataset_source(d),
        "columns": [
            {"name": c.get("column_name"), "type": c.get("type"), "label": c.get("verbose_name")}
            for c in d.get("columns") or []
        ],
        "metrics": [
            {"name": m.get("metric_name"), "expression": m.get("expression"), "label": m.get("verbose_name")}
            for m in d.get("metrics") or []
        ],
        "dependents": dependents,
        **await dataset_check(ctx, client, env_id=env_id, detail=d),
    }


@assistant_tool(
    name="superset_explore_database",
    category="read",
    env_specific=True,
    args=ExploreDatabaseArgs,
    description_ru=(
        "Обзор баз данных окружения Superset: базы, их схемы и таблицы (с отметкой, есть ли датасет); для "
        "датасета — его исходная таблица, колонки, зависимые графики и дашборды, тот же датасет в других "
        "окружениях, статус проверки и найденные проблемы."
    ),
    description_en=(
        "Describes and checks a dataset (dataset_id): columns, source, dependents, copies in other environments, "
        "review status, problems. Else lists databases, schemas, tables."
    ),
    examples_ru=[
        "Какие базы данных подключены к Superset?",
        "Какие таблицы есть в схеме main базы Energy?",
        "Из какой таблицы берёт данные этот датасет?",
        "Покажи схемы базы Energy",
    ],
    examples_en=[
        "Which databases are connected to Superset?",
        "What tables are in schema main of the Energy database?",
        "Which table does this dataset read from?",
        "Show the schemas of the Energy database",
    ],
)
async def superset_explore_database(ctx: ToolContext, args: ExploreDatabaseArgs) -> dict[str, Any]:
    """Explore what the environment's databases hold, at the level the arguments name.

    - ``dataset_id``: ``{"mode": "dataset", "dataset", "source", "columns": [{"name", "type", "label"}], "metrics":
      [{"name", "expression", "label"}], "dependents"}`` (``label``: Superset's verbose_name or None) and the
      dataset check of seed Story 1 AC 2 (``dataset_checks.dataset_check``:
      ``environments``, ``review``, ``checked``, ``problems``, ``notes``);
    - database + ``schema``: ``{"mode": "tables", "database", "schema", "count", "tables": [{"name", "type",
      "dataset_id"}]}`` (GET /api/v1/database/<id>/tables/; ``dataset_id`` of a physical dataset or None);
    - database only: ``{"mode": "schemas", "database", "schemas"}`` (GET /api/v1/database/<id>/schemas/), or
      the tables of its only schema as above;
    - nothing: ``{"mode": "databases", "count", "databases": [{"id", "name", "backend", "expose_in_sqllab",
      "allow_dml", "schemas"}]}``.

    Every answer also carries ``env_id``.

    Raises:
        InvalidArguments: a schema without a database, or an unknown database name.
    """
    client = await ctx.superset(args.env_id)
    if args.dataset_id is not None:
        result = await _dataset(ctx, client, args.env_id, args.dataset_id)
    elif args.database_id is None and not args.database_name:
        if args.schema_name:
            raise InvalidArguments("schema needs database_id or database_name")
        result = await _overview(client)
    else:
        database = await database_resolve(client, database_id=args.database_id, database_name=args.database_name)
        schemas = [args.schema_name] if args.schema_name else await database_schemas(client, database["id"])
        if len(schemas) == 1:
            # One schema (or the one asked for): its tables, which «какие таблицы есть в базе Energy?» asked for
            # (a fresh check was shown «Схемы базы Energy: main» and no table).
            result = await _tables(client, database, str(schemas[0]), args.limit)
        else:
            result = {"mode": "schemas", "database": database, "schemas": schemas}
    return {"env_id": args.env_id, **result}
