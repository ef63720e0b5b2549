"""The CSV download of a chat's SQL result (issue 30 item 4): the query of that call, run again through the tool
executor as the user (their Superset identity and permissions, the same read-only checks; ``tools.sql.SQL_EXPORT``
with the larger ``CSV_MAX_ROWS`` cap), written as CSV — the whole result, not the rows the chat drew."""

import csv
import io
import re
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.utils import translation
from django.utils.translation import gettext

from agentchat.conversations.selectors import tool_call_args
from agentchat.runtime.executor import tool_execute
from agentchat.superset.result_table import row_values
from agentchat.tools.sql import CSV_MAX_ROWS, SQL_EXPORT
from agentchat.web.views import AuthenticatedHttpRequest
from policies import services as policy

TOOL = "superset_execute_sql"


def result_csv(result: dict[str, Any]) -> str:
    """``result``'s rows as CSV text: a header of column names, then one line per row (numbers as the database
    sent them, NULL as an empty field), and a last line saying so when the ``CSV_MAX_ROWS`` cap cut it."""
    names = [str(c.get("name")) if isinstance(c, dict) else str(c) for c in result.get("columns") or []]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(names)
    for row in result.get("rows") or []:
        writer.writerow(["" if v is None else v for v in row_values(row, names)])
    if result.get("truncated"):
        writer.writerow([gettext("… cut at %(limit)d rows") % {"limit": result.get("row_limit") or CSV_MAX_ROWS}])
    return out.getvalue()


@login_required
async def sql_result_csv(request: AuthenticatedHttpRequest, conversation_id: int, call_id: str) -> HttpResponse:
    """``/agent/results/<conversation>/<call>.csv``: 404 unless the call is a SQL call of the user's own
    conversation; 403 when the user's roles no longer allow the tool; 502 with the failure's text when Superset
    refuses or fails (the same sentence the chat says); else the CSV as an attachment (UTF-8 with a BOM, so
    spreadsheet programs read Cyrillic)."""
    user = request.user
    args = await sync_to_async(tool_call_args)(user=user, conversation_id=conversation_id, call_id=call_id, tool=TOOL)
    if args is None:
        raise Http404
    if not await sync_to_async(policy.tool_permitted)(user=user, tool_name=TOOL):
        return HttpResponse(gettext("Your role may not run SQL queries."), status=403, content_type="text/plain")
    language = translation.get_language() or settings.LANGUAGE_CODE
    outcome = await tool_execute(
        spec=SQL_EXPORT,
        args={**args, "row_limit": CSV_MAX_ROWS},
        user=user,
        conversation_id=conversation_id,
        ui_context=None,
        language=language,
    )
    if not outcome.ok or not isinstance(outcome.result, dict):
        return HttpResponse(outcome.error_message or "", status=502, content_type="text/plain; charset=utf-8")
    response = HttpResponse("\ufeff" + result_csv(outcome.result), content_type="text/csv; charset=utf-8")
    name = re.sub(r"[^A-Za-z0-9_-]", "", call_id)[:40] or "call"
    response["Content-Disposition"] = f'attachment; filename="query-{conversation_id}-{name}.csv"'
    return response
