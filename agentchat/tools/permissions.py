"""superset_audit_permissions: which Superset roles (and their users) can see or change a dataset, database or
dashboard, read from Superset's security API (/api/v1/security/…, enabled by ``FAB_ADD_SECURITY_API = True``).

Superset names data permissions after the object: ``datasource_access`` on ``[db].[table](id:N)``,
``schema_access`` on ``[db].[schema]`` (``[db].[catalog].[schema]`` with a catalog), ``database_access`` on
``[db].(id:M)``, and the global ``all_datasource_access`` / ``all_database_access``. Model permissions
``can_read`` / ``can_write`` on ``Dataset``, ``Database`` and ``Dashboard`` decide who may open or edit such
objects at all.
"""

from typing import Any, Literal

from pydantic import Field

from agentchat.context.ids import ObjectId
from agentchat.runtime.context import ToolContext
from agentchat.runtime.registry import assistant_tool
from agentchat.runtime.spec import ToolArgs
from agentchat.superset.client import SupersetClient, gather_requests
from agentchat.tools.superset import ENV_ID_FIELD, _person

DATA_PERMISSIONS = {
    "datasource_access",
    "schema_access",
    "database_access",
    "all_datasource_access",
    "all_database_access",
}
MODEL_PERMISSIONS = {"can_read", "can_write"}
MODEL_RESOURCES = {"dataset": "Dataset", "database": "Database", "dashboard": "Dashboard"}
MAX_PAGES = 5  # roles and users are read 100 per page, at most this many pages
# (permission, resource) of one permission-view; Superset may list a view without its resource name.
Grant = tuple[str, str | None]


class AuditPermissionsArgs(ToolArgs):
    env_id: str = ENV_ID_FIELD
    object_type: Literal["dataset", "database", "dashboard"] = Field(description="Kind of Superset object.")
    object_id: ObjectId = Field(description="Numeric Superset id of the object.")


async def _pages(client: SupersetClient, path: str, q: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for page in range(MAX_PAGES):
        body = await client.get_json(path, q={**q, "page": page, "page_size": 100})
        batch = body.get("result") or []
        rows += batch
        if len(batch) < 100 or len(rows) >= body.get("count", 0):
            break
    return rows


def _schema_perm(database: str | None, catalog: str | None, schema: str | None) -> str | None:
    if not schema:
        return None
    return f"[{database}].[{catalog}].[{schema}]" if catalog else f"[{database}].[{schema}]"


async def _object(client: SupersetClient, object_type: str, object_id: int) -> tuple[dict[str, Any], set[str]]:
    """Return (facts about the object, names of the data resources that grant access to it)."""
    globals_ = {"all_datasource_access", "all_database_access"}
    if object_type == "dataset":
        d = (await client.get_json(f"/api/v1/dataset/{object_id}"))["result"]
        db = d.get("database") or {}
        db_name = db.get("database_name")
        names = {
            f"[{db_name}].[{d.get('table_name')}](id:{d['id']})",
            f"[{db_name}].(id:{db.get('id')})",
            _schema_perm(db_name, d.get("catalog"), d.get("schema")),
        }
        facts = {"name": d.get("table_name"), "database": db.get("database_name"), "schema": d.get("schema")}
        return {**facts, "owners": [_person(o) for o in d.get("owners") or []]}, _named(names) | globals_
    if object_type == "database":
        db = (await client.get_json(f"/api/v1/database/{object_id}"))["result"]
        name = db.get("database_name")
        schemas = (await client.get_json(f"/api/v1/database/{object_id}/schemas/")).get("result") or []
        names = {f"[{name}].(id:{object_id})", *(_schema_perm(name, None, s) for s in schemas)}
        # A schema Superset lists without a name has no resource name (and None would break sorting them).
        return {"name": name, "schemas": schemas}, _named(names) | {"all_database_access"}
    detail, datasets = await gather_requests(
        client.get_json(f"/api/v1/dashboard/{object_id}"), client.get_json(f"/api/v1/dashboard/{object_id}/datasets")
    )
    d = detail["result"]
    perms = {ds.get("perm") for ds in datasets.get("result") or [] if ds.get("perm")}
    facts = {
        "name": d.get("dashboard_title"),
        "published": d.get("published"),
        "owners": [_person(o) for o in d.get("owners") or []],
        "dashboard_roles": [r.get("name") for r in d.get("roles") or []],
        "datasets": sorted(perms),
    }
    return facts, perms | globals_


def _named(names: set[str | None]) -> set[str]:
    return {name for name in names if name is not None}


async def _permission_views(client: SupersetClient, resource_names: set[str]) -> dict[int, Grant]:
    """Return ``{permission_view_id: (permission, resource)}`` of the relevant permissions on those resources."""
    q = {"filters": [{"col": "name", "opr": "in", "value": sorted(resource_names)}], "page_size": 100}
    resources = (await client.get_json("/api/v1/security/resources/", q=q)).get("result") or []
    bodies = await gather_requests(
        *(
            client.get_json(
                "/api/v1/security/permissions-resources/",
                q={"filters": [{"col": "view_menu", "opr": "rel_o_m", "value": r["id"]}], "page_size": 100},
            )
            for r in resources
        )
    )
    wanted = DATA_PERMISSIONS | MODEL_PERMISSIONS
    out: dict[int, Grant] = {}
    for body in bodies:
        for pv in body.get("result") or []:
            permission, resource = (pv.get("permission") or {}).get("name"), (pv.get("view_menu") or {}).get("name")
            if isinstance(permission, str) and permission in wanted:
                out[pv["id"]] = (permission, resource)
    return out


def _data_access(object_type: str, grants: list[Grant], dataset_perms: set[str]) -> str:
    """Return ``full``, ``partial`` or ``none``: how much of the object's data the grants open.

    Any data grant opens a whole dataset (schema/database access include its tables); a database is fully
    open only with database-level or global access; a dashboard when every dataset on it is reachable.
    """
    data = [(p, r) for p, r in grants if p in DATA_PERMISSIONS]
    if not data:
        return "none"
    if object_type == "dataset" or any(p.startswith("all_") for p, _ in data):
        return "full"
    if object_type == "database":
        return "full" if any(p == "database_access" for p, _ in data) else "partial"
    covered = {r for p, r in data if p == "datasource_access"}
    return "full" if dataset_perms <= covered else "partial"


def _role_entry(
    role: dict[str, Any], grants: list[Grant], access: str, model: str, users: dict[int, str | None]
) -> dict[str, Any]:
    model_perms = {p for p, r in grants if r == model and p in MODEL_PERMISSIONS}
    return {
        "role": role.get("name"),
        "data_grants": sorted(f"{p} on {r}" for p, r in grants if p in DATA_PERMISSIONS),
        "data_access": access,
        "can_read": "can_read" in model_perms,
        "can_write": "can_write" in model_perms,
        "users": sorted(users.get(u, f"id {u}") for u in role.get("user_ids") or []),
    }


@assistant_tool(
    name="superset_audit_permissions",
    category="read",
    env_specific=True,
    args=AuditPermissionsArgs,
    description_ru=(
        "Аудит прав в Superset: какие роли (и их пользователи) имеют доступ к данным датасета, базы данных или "
        "дашборда и могут их читать или менять; для дашборда — владельцы и роли дашборда."
    ),
    description_en=(
        "Audits who may read or edit a dataset, database or dashboard: roles with data access and their users; "
        "for a dashboard also owners and dashboard roles."
    ),
    examples_ru=[
        "Кто имеет доступ к этому датасету?",
        "Какие роли видят базу Energy?",
        "У каких ролей есть права на этот дашборд?",
        "Кто может редактировать этот датасет?",
    ],
    examples_en=[
        "Who has access to this dataset?",
        "Which roles can see the Energy database?",
        "Which roles have permissions on this dashboard?",
        "Who can edit this dataset?",
    ],
)
async def superset_audit_permissions(ctx: ToolContext, args: AuditPermissionsArgs) -> dict[str, Any]:
    """List the roles whose permissions reach the object (security API: resources, permissions-resources,
    roles/search, users).

    ``data_access`` (``full``/``partial``/``none``, see ``_data_access``) reads the data permissions on the
    object, its schema, database, its datasets (for a dashboard: dataset-level grants only) and the global
    ``all_*`` ones; ``can_read``/``can_write`` are the model permissions on Dataset/Database/Dashboard. Roles
    with none of these are left out. A dashboard with ``dashboard_roles`` (Superset's dashboard RBAC) is
    visible to those roles only.

    Returns:
        ``{"env_id", "object": {"type", "id", "name", …facts (owners, schema, dashboard_roles, datasets)},
        "roles": [{"role", "data_grants": ["<permission> on <resource>"], "data_access", "can_read",
        "can_write", "users"}], "data_access_roles": [names], "write_roles": [names]}``.
    """
    client = await ctx.superset(args.env_id)
    facts, resource_names = await _object(client, args.object_type, args.object_id)
    model = MODEL_RESOURCES[args.object_type]
    views, roles, user_rows = await gather_requests(
        _permission_views(client, resource_names | {model}),
        _pages(client, "/api/v1/security/roles/search/", {}),
        _pages(client, "/api/v1/security/users/", {}),
    )
    users = {u["id"]: u.get("username") for u in user_rows}
    entries = []
    dataset_perms = set(facts.get("datasets") or [])
    for role in roles:
        grants = [views[pid] for pid in role.get("permission_ids") or [] if pid in views]
        if grants:
            access = _data_access(args.object_type, grants, dataset_perms)
            entries.append(_role_entry(role, grants, access, model, users))
    entries.sort(key=lambda e: (["full", "partial", "none"].index(e["data_access"]), e["role"] or ""))
    return {
        "env_id": args.env_id,
        "object": {"type": args.object_type, "id": args.object_id, **facts},
        "roles": entries,
        "data_access_roles": [e["role"] for e in entries if e["data_access"] != "none"],
        "write_roles": [e["role"] for e in entries if e["can_write"]],
    }
