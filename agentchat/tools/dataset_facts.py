"""What describes a dataset, shared by the dataset tools, their check and the dataset page: its review status
(Superset's certification), source, dependents, and the same dataset in the other environments (issue 29 item 6:
by uuid, as Superset's import matches, else by database and table name).
"""

import asyncio
import json
from typing import Any

from asgiref.sync import sync_to_async

from agentchat.errors import ToolError
from agentchat.runtime.context import ToolContext
from agentchat.superset.client import SupersetClient, gather_requests
from policies import services as policy
from policies.models import Environment
from policies.services import CredentialsMissing

MAPPING_TIMEOUT_SHARE = 3  # a peer environment's look-up gets at most 1/3 of the call's deadline


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


PEER_COLUMNS = ["id", "uuid", "table_name", "schema", "database.database_name"]


async def _peer_match(
    ctx: ToolContext, environment: Environment, source: dict[str, Any], table_name: str, uuid: str | None
) -> dict[str, Any]:
    """Look up the same dataset in another environment: by ``uuid``, as Superset's import matches (issue 29 item 6),
    else the one named ``table_name`` on the same-named database (``match`` says which)."""
    entry = {"env_id": environment.env_id, "tier": environment.tier}
    try:
        async with asyncio.timeout(ctx.timeout_s / MAPPING_TIMEOUT_SHARE):
            client = await ctx.superset(environment.env_id)
            by_uuid: list[dict[str, Any]] = []
            if uuid:
                q = {"filters": [{"col": "uuid", "opr": "eq", "value": uuid}], "columns": PEER_COLUMNS}
                by_uuid = (await client.get_json("/api/v1/dataset/", q=q)).get("result", [])
            q = {"filters": [{"col": "table_name", "opr": "eq", "value": table_name}], "page_size": 100}
            rows = by_uuid or (await client.get_json("/api/v1/dataset/", q={**q, "columns": PEER_COLUMNS})).get(
                "result", []
            )
    except (ToolError, CredentialsMissing, TimeoutError) as exc:
        reason = exc.text(ctx.language) if isinstance(exc, ToolError) else type(exc).__name__
        return {**entry, "status": "unavailable", "reason": reason}
    if not by_uuid:
        rows = [r for r in rows if (r.get("database") or {}).get("database_name") == source["database"]]
        rows.sort(key=lambda r: r.get("schema") != source["schema"])  # the same schema first
    if not rows:
        return {**entry, "status": "missing"}
    match = rows[0]
    return {
        **entry,
        "status": "found",
        "match": "uuid" if by_uuid else "name",
        "id": match["id"],
        "schema": match.get("schema"),
        "url": dataset_url(client.base_url, match["id"]),
    }


async def dataset_mapping(
    ctx: ToolContext, *, env_id: str, source: dict[str, Any], table_name: str, uuid: str | None = None
) -> list[dict[str, Any]]:
    """Return the same dataset in every other active environment: by ``uuid`` (as Superset's import matches), else
    by table name + database name.

    Returns:
        ``[{"env_id", "tier", "status": "found"|"missing"|"unavailable", "match"?: "uuid"|"name", "id"?,
        "schema"?, "url"?, "reason"?}]``, one per other active environment; one unreachable environment never fails
        the call.
    """
    environments = await sync_to_async(policy.environments_active)()
    others = [e for e in environments if e.env_id != env_id]
    return list(await gather_requests(*(_peer_match(ctx, e, source, table_name, uuid) for e in others)))
