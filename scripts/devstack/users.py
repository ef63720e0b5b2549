"""The people of each local instance: Superset users with real Superset roles (DESIGN §15, issue 13).

- ``analyst``: Gamma + sql_lab + ``agentchat_energy_reader`` (datasource access to ``energy_consumption`` only) +
  ``agentchat_api_keys``;
- ``engineer``: Alpha + sql_lab + ``agentchat_api_keys``;
- ``admin``: Admin;
- ``agentchat_service`` (``config.SERVICE_USERNAME``): Admin, the stack's own account: the seed logs in as it and
  service-mode environments act as it. Its password is ``SUPERSET_ADMIN_PASSWORD`` (default ``admin``).

The three demo people get the demo password (``$DEMO_PASSWORD`` or ``demo``), the one agentchat's demo users
have, so signing in to agentchat as any of them gets their own Superset identities. An instance set up before the
service account existed had ``admin`` with ``SUPERSET_ADMIN_PASSWORD``: the seed creates the service account first,
then gives ``admin`` the demo password (a password is changed only when Superset refuses the wanted one).
``agentchat_api_keys`` holds FAB's ``ApiKey`` permissions (list, create, get, revoke: ``POST
/api/v1/security/api_keys/``), which Gamma and Alpha lack; it exists once ``FAB_API_KEY_ENABLED`` is on.

Everything goes through FAB's security REST API (``FAB_ADD_SECURITY_API``), finding each object by name first, so
a second run changes nothing: ``/api/v1/security/roles/``, ``/permissions/``, ``/resources/``,
``/permissions-resources/``, ``/roles/<id>/permissions``, ``/users/``, ``/login``.
"""

from __future__ import annotations

import os
from typing import Any

from scripts.devstack.client import SupersetClient, rison
from scripts.devstack.config import ADMIN_USERNAME, SERVICE_USERNAME, admin_password
from scripts.devstack.demo import DATABASE_NAME
from scripts.devstack.report import StackError

ENERGY_ROLE = "agentchat_energy_reader"
API_KEY_ROLE = "agentchat_api_keys"
# The table the analyst may read in SQL Lab and through its dataset; every other table is refused by Superset.
ANALYST_TABLE = "energy_consumption"
API_KEY_PERMISSIONS = ("can_list", "can_create", "can_get", "can_revoke")
# username: (first name, last name, Superset roles)
DEMO_USERS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "analyst": ("Demo", "Analyst", ("Gamma", "sql_lab", ENERGY_ROLE, API_KEY_ROLE)),
    "engineer": ("Demo", "Engineer", ("Alpha", "sql_lab", API_KEY_ROLE)),
    ADMIN_USERNAME: ("Demo", "Admin", ("Admin",)),
}
SERVICE_USER = ("agentchat", "service", ("Admin",))


def demo_password() -> str:
    """Return the demo users' password: ``$DEMO_PASSWORD`` or ``demo`` (the same as agentchat's ``seed_demo``)."""
    return os.environ.get("DEMO_PASSWORD") or "demo"


class UserSeeder:
    """Creates or reuses the demo roles and users of one instance (through ``client``, logged in as admin)."""

    def __init__(self, client: SupersetClient, note: Any) -> None:
        """Seed through ``client``; ``note(action, what, id)`` records what was created, updated or reused."""
        self.client = client
        self.note = note

    def _list(self, resource: str, **equals: Any) -> list[dict[str, Any]]:
        filters = [{"col": col, "opr": "eq", "value": value} for col, value in equals.items()]
        query = rison({"filters": filters, "page_size": 100})
        result: list[dict[str, Any]] = self.client.get(f"/api/v1/security/{resource}/", params={"q": query})["result"]
        return result

    def role(self, name: str) -> int:
        """Return the id of role ``name``, creating it when missing."""
        found = self._list("roles", name=name)
        if found:
            return int(found[0]["id"])
        role_id = int(self.client.post("/api/v1/security/roles/", {"name": name})["id"])
        self.note("created", f"role {name}", role_id)
        return role_id

    def _permission_resource(self, permission: str, resource_name: str) -> int | None:
        """Return the id of the (permission, resource) pair, or None when Superset has not registered it."""
        permissions = self._list("permissions", name=permission)
        resources = self._list("resources", name=resource_name)
        if not permissions or not resources:
            return None
        filters = [
            {"col": "permission", "opr": "rel_o_m", "value": permissions[0]["id"]},
            {"col": "view_menu", "opr": "rel_o_m", "value": resources[0]["id"]},
        ]
        found = self.client.get("/api/v1/security/permissions-resources/", params={"q": rison({"filters": filters})})[
            "result"
        ]
        return int(found[0]["id"]) if found else None

    def grant(self, role_name: str, pairs: list[tuple[str, str]]) -> None:
        """Make role ``role_name`` hold exactly the (permission, resource) ``pairs``.

        Raises:
            StackError: a pair is not registered in Superset (e.g. the dataset or FAB_API_KEY_ENABLED is missing).
        """
        role_id = self.role(role_name)
        wanted = []
        for permission, resource in pairs:
            pair_id = self._permission_resource(permission, resource)
            if pair_id is None:
                raise StackError(f"[{self.client.inst.name}] Superset has no permission {permission} on {resource}")
            wanted.append(pair_id)
        have = self.client.get(f"/api/v1/security/roles/{role_id}/permissions/")["result"]
        if sorted(int(item["id"]) for item in have) == sorted(wanted):
            self.note("reused", f"role {role_name} permissions", role_id)
            return
        self.client.post(f"/api/v1/security/roles/{role_id}/permissions", {"permission_view_menu_ids": wanted})
        self.note("updated", f"role {role_name} permissions", role_id)

    def _password_works(self, username: str, password: str) -> bool:
        """True when Superset accepts ``username`` / ``password`` (``POST /api/v1/security/login``)."""
        body = {"username": username, "password": password, "provider": "db"}
        return self.client.http.post("/api/v1/security/login", json=body).status_code == 200

    def user(self, username: str, first: str, last: str, roles: tuple[str, ...], password: str) -> int:
        """Ensure ``username`` exists, active, with exactly ``roles`` and ``password`` (set only when Superset
        refuses it, e.g. an older instance's ``admin``)."""
        role_ids = sorted(self.role(name) for name in roles)
        found = self._list("users", username=username)
        if not found:
            body = {
                "username": username,
                "first_name": first,
                "last_name": last,
                "email": f"{username}@example.com",
                "active": True,
                "roles": role_ids,
                "password": password,
            }
            user_id = int(self.client.post("/api/v1/security/users/", body)["id"])
            self.note("created", f"user {username}", user_id)
            return user_id
        user = found[0]
        changes: dict[str, Any] = {}
        if sorted(int(role["id"]) for role in user.get("roles", [])) != role_ids or not user.get("active"):
            changes.update(roles=role_ids, active=True)
        if not self._password_works(username, password):
            changes["password"] = password
        if not changes:
            self.note("reused", f"user {username}", user["id"])
            return int(user["id"])
        self.client.put(f"/api/v1/security/users/{user['id']}", changes)
        self.note("updated", f"user {username} ({', '.join(sorted(changes))})", user["id"])
        return int(user["id"])


def dataset_resource_name(client: SupersetClient, table: str) -> str:
    """Return the Superset permission resource of the Energy dataset of ``table``: ``[Energy].[table](id:N)``.

    Raises:
        StackError: the dataset does not exist.
    """
    rows = [
        row for row in client.find("dataset", table_name=table) if row["database"]["database_name"] == DATABASE_NAME
    ]
    if not rows:
        raise StackError(f"[{client.inst.name}] no dataset {table} on {DATABASE_NAME}")
    return f"[{DATABASE_NAME}].[{table}](id:{rows[0]['id']})"


def seed_users(client: SupersetClient, note: Any) -> dict[str, int]:
    """Ensure the demo roles, the service account and the users of ``DEMO_USERS`` in the instance of ``client``.

    Returns:
        ``{username: Superset user id}``.

    Raises:
        StackError: an API call failed or a permission is not registered.
    """
    seeder = UserSeeder(client, note)
    seeder.grant(ENERGY_ROLE, [("datasource_access", dataset_resource_name(client, ANALYST_TABLE))])
    seeder.grant(API_KEY_ROLE, [(permission, "ApiKey") for permission in API_KEY_PERMISSIONS])
    # The service account first: the seed logs in as it from now on, before ``admin`` may get the demo password.
    made = {SERVICE_USERNAME: seeder.user(SERVICE_USERNAME, *SERVICE_USER, password=admin_password())}
    for username, spec in DEMO_USERS.items():
        made[username] = seeder.user(username, *spec, password=demo_password())
    return made
