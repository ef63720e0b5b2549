"""Data of the object pages (dashboards, datasets), read from Superset through the tool executor."""

from typing import Any
from urllib.parse import urlencode

from .errors import ApplicationError
from .executor import ToolContext, tool_execute
from .tools.registry import tool_spec
from .tools.superset_client import CallState


class PageDataUnavailable(ApplicationError):
    """Superset could not provide the page's data; ``text()`` explains why."""

    code = "upstream_unavailable"


async def page_tool(user, tool: str, **args) -> Any:
    """Run the read tool ``tool`` for a page and return its result.

    Raises:
        PageDataUnavailable: the call failed (message in Russian, the UI's first language).
    """
    outcome = await tool_execute(
        spec=tool_spec(tool), args=args, user=user, conversation_id=None, ui_context=None, language="ru"
    )
    if not outcome.ok:
        raise PageDataUnavailable(outcome.error_message or outcome.error_code or "")
    return outcome.result


async def dataset_detail(user, *, env_id: str, dataset_id: int) -> dict[str, Any]:
    """Return ``{"id", "name", "schema", "database", "sql", "columns": [..], "metrics": [..]}`` of a dataset.

    Raises:
        PageDataUnavailable: Superset failed or the dataset does not exist.
    """
    ctx = ToolContext(
        user=user,
        conversation_id=None,
        ui_context=None,
        language="ru",
        call=CallState(retry_transient=True),
        timeout_s=30.0,
    )
    try:
        client = await ctx.superset(env_id)
        body = (await client.get_json(f"/api/v1/dataset/{dataset_id}"))["result"]
    except ApplicationError as exc:
        raise PageDataUnavailable(exc.text("ru")) from exc
    finally:
        await ctx.aclose()
    return {
        "id": body["id"],
        "name": body.get("table_name"),
        "schema": body.get("schema"),
        "database": (body.get("database") or {}).get("database_name"),
        "sql": body.get("sql"),
        "columns": [{"name": c.get("column_name"), "type": c.get("type")} for c in body.get("columns") or []],
        "metrics": [
            {"name": m.get("metric_name"), "expression": m.get("expression")} for m in body.get("metrics") or []
        ],
    }


def agent_link(
    *, object_type: str | None, object_id: int | None, object_name: str | None, env_id: str | None, route: str
) -> str:
    """Return the «Спросить агента» URL: ``/agent?objectType=…&objectId=…&objectName=…&envId=…&route=…``."""
    params = {
        "objectType": object_type,
        "objectId": object_id,
        "objectName": object_name,
        "envId": env_id,
        "route": route,
    }
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return "/agent" + (f"?{query}" if query else "")
