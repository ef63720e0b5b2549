"""UIContext payloads of the tests (DESIGN §7), built in one place."""

from typing import Any


def ui_context(
    object_type: str | None = "dashboard",
    object_id: Any = 1,
    *,
    env_id: str | None = "ss-dev",
    name: str | None = None,
    route: str | None = "/",
) -> dict[str, Any]:
    """A contextVersion-1 UIContext as a page sends it.

    Args:
        object_type: ``dashboard``/``dataset``/… or None for a page without an object.
        object_id: the object's id (int or str; sent as a string), or None; a falsy id is sent as null.
        env_id: the environment id, or None.
        name: objectName, or None.
        route: the page route (``"/"`` unless given).

    Returns:
        ``{"contextVersion", "objectType", "objectId", "objectName", "envId", "route"}``.
    """
    return {
        "contextVersion": 1,
        "objectType": object_type,
        "objectId": str(object_id) if object_id else None,
        "objectName": name,
        "envId": env_id,
        "route": route,
    }


def dashboard_context(dashboard: dict[str, Any], *, env_id: str | None = "ss-dev", name: str | None = None) -> dict:
    """The context of a Superset dashboard's page (``dashboard`` is its API row: ``id``, ``dashboard_title``);
    ``name`` overrides the title."""
    return ui_context(
        "dashboard",
        dashboard["id"],
        env_id=env_id,
        name=name if name is not None else dashboard["dashboard_title"],
        route=f"/dashboards/{dashboard['id']}",
    )


#: The energy dashboard (#1) of ss-dev, without a name.
DASHBOARD_1 = ui_context("dashboard", 1, route="/dashboards/1")
