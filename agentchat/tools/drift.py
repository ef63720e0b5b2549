"""The drift line of a deploy card: target dashboards edited in Superset after the agent last deployed them
(issue 28 item 2: «prod изменён после последнего деплоя: 02.12 14:10, Иван Петров — эти правки будут потеряны»).

Superset's ``changed_on_utc`` / ``changed_by`` of each overwritten dashboard (``transfer.objects_where``)
against the time of our last successful deploy of it there (``tools.history.last_deployed``, our audit). A
dashboard the agent never deployed has no line: nothing says which edits are ours.
"""

import datetime as dt
from typing import Any

from asgiref.sync import sync_to_async
from django.utils.translation import gettext as _

from agentchat.errors import ToolError
from agentchat.language import in_language
from agentchat.llm.offline.answers.base import when
from agentchat.superset.client import SupersetClient
from agentchat.superset.transfer import objects_where
from agentchat.tools.history import last_deployed

COLUMNS = ["id", "dashboard_title", "changed_on_utc", "changed_by.first_name", "changed_by.last_name"]


def _moment(value: Any) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=dt.UTC)


async def drift_text(target: SupersetClient, dashboard_ids: list[int], languages: list[str]) -> dict[str, list[str]]:
    """Lines «prod изменён после последнего деплоя: «Отчёт» 02.12.2026 14:10 MSK, Иван Петров — эти правки будут
    потеряны» for the target dashboards ``dashboard_ids`` changed after our last deploy of them, in each of
    ``languages`` (Superset is asked once; issue 30: a stored preview is read in the reader's language).

    Returns:
        ``{language: lines}``, one line per such dashboard; none when the agent never deployed them or Superset's
        list cannot be read (the card then says nothing of drift).
    """
    none: dict[str, list[str]] = {language: [] for language in languages}
    deployed = await sync_to_async(last_deployed)(target.env_id, list(dashboard_ids)) if dashboard_ids else {}
    if not deployed:
        return none
    try:
        rows = await objects_where(target, "dashboard", "id", sorted(deployed), columns=COLUMNS)
    except ToolError:
        return none
    changed = []
    for row in rows:
        moment = _moment(row.get("changed_on_utc"))
        if moment is not None and row.get("id") in deployed and moment > deployed[row["id"]]:
            by = row.get("changed_by") or {}
            who = " ".join(p for p in (by.get("first_name"), by.get("last_name")) if p) or "—"
            changed.append({"title": row.get("dashboard_title"), "moment": moment, "who": who})
    lines = {}
    for language in languages:
        with in_language(language):
            lines[language] = [
                _("%(env)s was changed after the last deploy: “%(title)s” %(when)s, %(who)s — those edits will be lost")
                % {"env": target.env_id, "title": c["title"], "when": when(c["moment"]), "who": c["who"]}
                for c in changed
            ]
    return lines
