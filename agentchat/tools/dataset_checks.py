"""The dataset check of seed Story 1 AC 2 (issue 29 item 6): «есть ли проблемы с этим датасетом?» answered with its
dependencies, the same dataset in the other environments, its review status, and the problems found — or none,
with what was checked.

What is checked, each on what Superset returns (GET /api/v1/...):

- ``table``: a physical dataset's table, read from its database now (``database/<id>/table_metadata/``): missing,
  or the dataset's columns no longer in it (``columns_missing_in_table``), or columns of the table the dataset
  does not have (a note: the columns were not synced);
- ``metrics``: each metric's SQL expression (parsed with sqlglot) names only columns the dataset has;
- ``time_column``: the default time column (``main_dttm_col``) is one of its columns;
- ``owners``: someone owns it;
- ``environments``: the same dataset in every other active environment (``datasets.dataset_mapping``: by uuid, as
  Superset's import matches, else by database + table name: a note that the uuid differs), and whether its columns
  there are the same ones (``columns_differ``); one missing there is a note, not a problem.
"""

import asyncio
from typing import Any

import sqlglot
from sqlglot import exp

from agentchat.errors import ToolError
from agentchat.runtime.context import ToolContext
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.superset.sql_safety import dialect_for
from agentchat.tools.dataset_facts import MAPPING_TIMEOUT_SHARE, dataset_mapping, dataset_source, review_status

CHECKS = ("table", "metrics", "time_column", "owners", "environments")


async def dataset_check(ctx: ToolContext, client: SupersetClient, *, env_id: str, detail: dict[str, Any]) -> dict:
    """Check one dataset (``detail``: Superset's ``GET /api/v1/dataset/<id>`` result) as the module docstring says.

    Returns:
        ``{"environments": dataset_mapping(), "review": review_status(), "checked": CHECKS, "problems": [...],
        "notes": [...]}``; each problem or note is ``{"code", …}`` with the names it concerns (``columns``,
        ``metric``, ``column``, ``env_id``, ``id``, ``reason``), in the order of ``CHECKS``; ``problems`` empty
        means none was found.
    """
    source = dataset_source(detail)
    columns = {str(c.get("column_name")) for c in detail.get("columns") or []}
    physical = {str(c.get("column_name")) for c in detail.get("columns") or [] if not c.get("expression")}
    table, environments = await gather_requests(
        _table_findings(client, source, physical),
        dataset_mapping(
            ctx, env_id=env_id, source=source, table_name=str(detail.get("table_name")), uuid=detail.get("uuid")
        ),
    )
    problems, notes = list(table[0]), list(table[1])
    problems += _metric_findings(detail, columns, source.get("backend"))
    dttm = detail.get("main_dttm_col")
    if dttm and dttm not in columns:
        problems.append({"code": "time_column_missing", "column": dttm})
    if not detail.get("owners"):
        problems.append({"code": "no_owners"})
    drift, env_notes = await _environment_findings(ctx, environments, columns)
    return {
        "environments": environments,
        "review": review_status(detail),
        "checked": list(CHECKS),
        "problems": problems + drift,
        "notes": notes + env_notes,
    }


async def _table_findings(
    client: SupersetClient, source: dict[str, Any], physical: set[str]
) -> tuple[list[dict], list[dict]]:
    """``(problems, notes)`` of a physical dataset's table; a virtual dataset's SQL is not read here."""
    if source.get("kind") != "physical" or not source.get("database_id"):
        return [], []
    q = {"name": source.get("table"), **({"schema": source["schema"]} if source.get("schema") else {})}
    try:
        body = await client.get_json(f"/api/v1/database/{source['database_id']}/table_metadata/", params=q)
    except ToolError as exc:
        return [], [{"code": "table_unchecked", "reason": exc.text()}]
    in_table = {str(c.get("name")) for c in body.get("columns") or []}
    if not in_table:
        return [{"code": "table_missing", "table": source.get("table")}], []
    gone, new = sorted(physical - in_table), sorted(in_table - physical)
    problems = [{"code": "columns_missing_in_table", "columns": gone}] if gone else []
    notes = [{"code": "columns_not_in_dataset", "columns": new}] if new else []
    return problems, notes


def _metric_findings(detail: dict[str, Any], columns: set[str], backend: str | None) -> list[dict]:
    """Metrics whose expression names a column the dataset lacks (an expression sqlglot cannot parse is skipped:
    Superset's own dialect may allow it)."""
    known = {c.casefold() for c in columns}
    found = []
    for metric in detail.get("metrics") or []:
        try:
            tree = sqlglot.parse_one(str(metric.get("expression") or ""), read=dialect_for(backend))
        except sqlglot.errors.ParseError:
            continue
        unknown = sorted({c.name for c in tree.find_all(exp.Column) if c.name and c.name.casefold() not in known})
        if unknown:
            found.append({"code": "metric_unknown_columns", "metric": metric.get("metric_name"), "columns": unknown})
    return found


async def _environment_findings(
    ctx: ToolContext, environments: list[dict[str, Any]], columns: set[str]
) -> tuple[list[dict], list[dict]]:
    """``(problems, notes)`` of the same dataset in the other environments: other columns there are a problem (a
    deploy's charts would break); missing there, unreachable, or another uuid, a note."""
    found = [e for e in environments if e.get("status") == "found"]
    peers = await gather_requests(*(_peer_columns(ctx, e) for e in found))
    problems, notes = [], []
    for entry in environments:
        if entry.get("status") == "missing":
            notes.append({"code": "missing_in", "env_id": entry["env_id"]})
        elif entry.get("status") == "unavailable":
            notes.append({"code": "environment_unchecked", "env_id": entry["env_id"], "reason": entry.get("reason")})
        elif entry.get("match") == "name":
            notes.append({"code": "other_uuid", "env_id": entry["env_id"], "id": entry.get("id")})
    for entry, peer in zip(found, peers, strict=True):
        if peer is not None and peer != columns:
            problems.append(
                {
                    "code": "columns_differ",
                    "env_id": entry["env_id"],
                    "id": entry.get("id"),
                    "missing": sorted(columns - peer),
                    "extra": sorted(peer - columns),
                }
            )
    return problems, notes


async def _peer_columns(ctx: ToolContext, entry: dict[str, Any]) -> set[str] | None:
    """The column names of the dataset found in another environment, or None when it cannot be read now."""
    try:
        async with asyncio.timeout(ctx.timeout_s / MAPPING_TIMEOUT_SHARE):
            client = await ctx.superset(entry["env_id"])
            body = await client.get_json(f"/api/v1/dataset/{entry['id']}")
    except (ToolError, TimeoutError):
        return None
    return {str(c.get("column_name")) for c in (body.get("result") or {}).get("columns") or []}
