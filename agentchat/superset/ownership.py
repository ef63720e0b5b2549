"""Whether Superset will let this user overwrite or delete objects (issue 28 review).

Superset lets only an object's owners and its ``Admin`` users overwrite it by import or delete it; an import over
another person's chart fails inside Superset with a bare HTTP 500 (``ImportFailedError``: «A chart already exists
and user doesn't have permissions to overwrite it»), which from outside is a write of unknown outcome. So the
writes that overwrite ask first, as the user (``GET /api/v1/me/``, ``/api/v1/me/roles/`` and the objects' owners
from the list endpoints), and refuse before anything is written, naming the objects and their owners: the refusal
is Superset's rule, said in advance (DESIGN §15: the agent has the user's rights, no more).
"""

from typing import Any

from django.utils.translation import gettext_lazy

from agentchat.errors import NotApplicable
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.superset.diff_text import quoted_names
from agentchat.superset.transfer import objects_where

ADMIN_ROLE = "Admin"
NAME_COLUMN = {"dashboard": "dashboard_title", "chart": "slice_name", "dataset": "table_name"}


class NotOwner(NotApplicable):
    """Superset would refuse the write: the user owns none of ``names`` and is no Admin there."""

    message = gettext_lazy(
        "Superset would refuse this in %(env)s: only owners or an Admin may overwrite or delete %(names)s "
        "(owners: %(owners)s). Nothing was changed."
    )


def _person(owner: dict[str, Any]) -> str:
    return " ".join(str(p) for p in (owner.get("first_name"), owner.get("last_name")) if p) or str(owner.get("id"))


async def not_owned(client: SupersetClient, targets: dict[str, list[int]]) -> list[dict[str, Any]]:
    """The objects of ``targets`` (``{kind: [target ids]}``, kinds ``dashboard|chart|dataset``) the client's user
    may not overwrite or delete in Superset: none for an ``Admin``, else those the user does not own.

    Returns:
        ``[{"type", "id", "name", "owners": [names]}]``.
    """
    wanted = {kind: sorted(set(ids)) for kind, ids in targets.items() if ids}
    if not wanted:
        return []
    me, roles = await gather_requests(client.get_json("/api/v1/me/"), client.get_json("/api/v1/me/roles/"))
    if ADMIN_ROLE in ((roles.get("result") or {}).get("roles") or {}):
        return []
    user_id = (me.get("result") or {}).get("id")
    out = []
    for kind, ids in wanted.items():
        columns = ["id", NAME_COLUMN[kind], "owners.id", "owners.first_name", "owners.last_name"]
        for row in await objects_where(client, kind, "id", ids, columns=columns):
            owners = [o for o in row.get("owners") or [] if isinstance(o, dict)]
            if user_id not in {o.get("id") for o in owners}:
                out.append(
                    {"type": kind, "id": row["id"], "name": row.get(NAME_COLUMN[kind]), "owners": map_people(owners)}
                )
    return out


def map_people(owners: list[dict[str, Any]]) -> list[str]:
    """Owners' names as people read them (first and last name)."""
    return [_person(o) for o in owners]


async def owners_required(client: SupersetClient, targets: dict[str, list[int]]) -> None:
    """Refuse in advance a write that Superset would refuse for ownership (see ``not_owned``).

    Raises:
        NotOwner: some object of ``targets`` is not the user's (names and owners in the message).
    """
    refused = await not_owned(client, targets)
    if refused:
        names = quoted_names(o["name"] for o in refused[:5]) + (" …" if len(refused) > 5 else "")
        owners = ", ".join(sorted({p for o in refused for p in o["owners"]})) or "—"
        raise NotOwner(env=client.env_id, names=names, owners=owners)
