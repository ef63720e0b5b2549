"""Short-lived objects in the local Superset pair for tests: made here, deleted afterwards (seeded ones never).

One ``SupersetScratch`` per test (or bench run) makes dashboards, charts, virtual datasets and databases in
``ss-dev`` or ``prod`` and records each one; ``cleanup()`` deletes what it recorded (charts first, so no
dashboard or dataset is still in use) and then every dashboard and chart in either instance whose name carries
its ``tag`` — the copies a deploy or migration under test made in ``prod``. Names get the tag appended unless a
test needs them exact (``tagged=False``: review rules read names). Uses the independent httpx view of
``tests.support.superset_api``, never the app's client.

Dashboards, charts and virtual datasets are made by the stack's service account and owned by it and by the demo
``engineer`` (``OWNERS``): the tests act as the demo people in Superset (``tests.support.people``), and Superset shows
an Alpha user a draft dashboard, or lets them change an object, only when they own it — as in a team whose engineer
works on their own dashboards.
"""

import json
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import prison

from tests.support.superset_api import SERVICE_USERNAME, superset

ENVIRONMENTS = ("ss-dev", "prod")
ENERGY_DATASET = 1  # seeded energy_consumption in ss-dev
REGIONS_DATASET = 2  # seeded regions in ss-dev
# Deleted in this order: a chart holds its dashboards and dataset, a dataset its database.
_KINDS = ("chart", "dashboard", "dataset", "database")
OWNERS = (SERVICE_USERNAME, "engineer")  # of every dashboard, chart and virtual dataset made here
_OWNER_IDS: dict[str, list[int]] = {}  # env_id: Superset user ids of OWNERS (the same for the whole run)


def owner_ids(env_id: str) -> list[int]:
    """The Superset user ids of ``OWNERS`` in ``env_id`` (looked up once per process)."""
    if env_id not in _OWNER_IDS:
        q = prison.dumps({"filters": [{"col": "username", "opr": "in", "value": list(OWNERS)}], "page_size": 10})
        with superset(env_id) as client:
            rows = client.get("/api/v1/security/users/", params={"q": q}).json()["result"]
        _OWNER_IDS[env_id] = sorted(int(row["id"]) for row in rows)
    return _OWNER_IDS[env_id]


def _uuid_of(client: httpx.Client, kind: str, object_id: int) -> str | None:
    """The uuid of ``/api/v1/<kind>/<id>`` (its detail view), or None when it is gone."""
    response = client.get(f"/api/v1/{kind}/{object_id}")
    return str(response.json()["result"].get("uuid")) if response.status_code == 200 else None


def unique() -> str:
    """A digits-only suffix (letters would change the language of names under review)."""
    return str(uuid.uuid4().int % 10**9)


def objects_delete(env_id: str, kind: str, ids: list[int]) -> None:
    """Delete the ``kind`` objects ``ids`` of ``env_id`` (``chart``/``dashboard``/``dataset``/``database``);
    one already gone is no error (a test may have deleted it)."""
    if not ids:
        return
    with superset(env_id) as client:
        for object_id in ids:
            client.delete(f"/api/v1/{kind}/{object_id}")


def charts_delete(ids: list[int], env_id: str = "ss-dev") -> None:
    """Delete the charts ``ids`` (clean-up of charts a tool under test created)."""
    objects_delete(env_id, "chart", ids)


class SupersetScratch:
    """Objects one test made in the local Superset pair; ``cleanup()`` deletes them.

    Attributes:
        tag: ten random digits appended to tagged names and slugs (digits keep a name's language).
        made: ``(env_id, kind, id, uuid)`` of every object made here, in creation order.
    """

    def __init__(self):
        self.tag = f"{uuid.uuid4().int % 10**10:010d}"
        self.made: list[tuple[str, str, int, str]] = []

    def _name(self, name: str, tagged: bool) -> str:
        return f"{name} {self.tag}" if tagged else name

    def _create(self, env_id: str, kind: str, body: dict[str, Any]) -> int:
        """POST ``body`` to ``/api/v1/<kind>/`` of ``env_id``, record the new object (with its uuid) and return its
        id."""
        with superset(env_id) as client:
            response = client.post(f"/api/v1/{kind}/", json=body)
            response.raise_for_status()
            object_id = response.json()["id"]
            self.made.append((env_id, kind, object_id, _uuid_of(client, kind, object_id)))
        return object_id

    def dashboard(
        self,
        env_id: str,
        title: str,
        slug: str | None = None,
        *,
        json_metadata: dict | None = None,
        tagged: bool = True,
    ) -> dict:
        """Create a draft dashboard ``title`` and return Superset's detail row (``id``, ``dashboard_title``, …).

        Tagged, the title and the slug (``slug`` or ``scratch``) get the tag; untagged, the title is exact and
        the dashboard has no slug unless ``slug`` is given.
        """
        body: dict[str, Any] = {
            "dashboard_title": self._name(title, tagged),
            "published": False,
            "owners": owner_ids(env_id),
        }
        if tagged or slug:
            body["slug"] = f"{slug or 'scratch'}-{self.tag}" if tagged else slug
        if json_metadata is not None:
            body["json_metadata"] = json.dumps(json_metadata)
        return self.dashboard_get(env_id, self._create(env_id, "dashboard", body))

    def chart(
        self,
        env_id: str,
        name: str,
        dashboard_ids: list[int],
        table: str = "energy_consumption",
        *,
        dataset_id: int | None = None,
        viz_type: str = "table",
        params: dict | None = None,
        description: str | None = None,
        tagged: bool = True,
    ) -> dict:
        """Create a chart ``name`` on the dashboards ``dashboard_ids``; return ``{"id", "slice_name"}``.

        The dataset is ``dataset_id``, else the first dataset of ``env_id`` on table ``table``; ``params`` are
        the chart's form data besides ``viz_type`` and ``datasource``.
        """
        if dataset_id is None:
            dataset_id = self.dataset_id(env_id, table)
        form = {"viz_type": viz_type, "datasource": f"{dataset_id}__table", **(params or {})}
        body: dict[str, Any] = {
            "slice_name": self._name(name, tagged),
            "viz_type": viz_type,
            "datasource_id": dataset_id,
            "datasource_type": "table",
            "params": json.dumps(form),
            "dashboards": dashboard_ids,
            "owners": owner_ids(env_id),
        }
        if description is not None:
            body["description"] = description
        return {"id": self._create(env_id, "chart", body), "slice_name": body["slice_name"]}

    def virtual_dataset(
        self, env_id: str, name: str, sql: str, *, schema: str | None = None, owners: list[int] | None = None
    ) -> int:
        """Create a virtual dataset ``name`` (exact) over ``sql`` on the Energy database (id 1); return its id.

        ``owners`` replaces the owners (``OWNERS`` unless given; ``[]``: none).
        """
        body: dict[str, Any] = {"database": 1, "table_name": name, "sql": sql, "owners": owner_ids(env_id)}
        if schema is not None:
            body["schema"] = schema
        dataset_id = self._create(env_id, "dataset", body)
        if owners is not None:
            with superset(env_id) as client:
                client.put(f"/api/v1/dataset/{dataset_id}", json={"owners": owners}).raise_for_status()
        return dataset_id

    def database(self, env_id: str, name: str, sqlalchemy_uri: str) -> int:
        """Register a database ``name`` (exact) at ``sqlalchemy_uri``, exposed in SQL Lab; return its id.

        ``cleanup`` also deletes the datasets made on it meanwhile (by the tools under test).
        """
        body = {"database_name": name, "sqlalchemy_uri": sqlalchemy_uri, "expose_in_sqllab": True}
        return self._create(env_id, "database", body)

    def rename(self, env_id: str, kind: str, object_id: int, field: str, value: str) -> None:
        """PUT ``{field: value}`` on ``/api/v1/<kind>/<id>``."""
        with superset(env_id) as client:
            client.put(f"/api/v1/{kind}/{object_id}", json={field: value}).raise_for_status()

    @staticmethod
    def dashboard_get(env_id: str, id_or_slug) -> dict:
        """Return Superset's dashboard detail (``GET /api/v1/dashboard/<id or slug>``)."""
        with superset(env_id) as client:
            response = client.get(f"/api/v1/dashboard/{id_or_slug}")
            response.raise_for_status()
            return response.json()["result"]

    @staticmethod
    def dataset_id(env_id: str, table: str) -> int:
        """The id of the first dataset of ``env_id`` on table ``table`` (ids differ between the instances)."""
        q = prison.dumps({"filters": [{"col": "table_name", "opr": "eq", "value": table}]})
        with superset(env_id) as client:
            return client.get("/api/v1/dataset/", params={"q": q}).json()["result"][0]["id"]

    def tagged(self, env_id: str, kind: str) -> list[dict]:
        """Return the tagged dashboards or charts (``kind``) of ``env_id`` with id, uuid and name."""
        columns = {"dashboard": ["id", "uuid", "slug", "dashboard_title"], "chart": ["id", "uuid", "slice_name"]}
        name = "dashboard_title" if kind == "dashboard" else "slice_name"
        q = {"columns": columns[kind], "filters": [{"col": name, "opr": "ct", "value": self.tag}], "page_size": 100}
        with superset(env_id) as client:
            return client.get(f"/api/v1/{kind}/", params={"q": prison.dumps(q)}).json()["result"]

    def _datasets_on(self, env_id: str, database_id: int) -> list[int]:
        q = f"(filters:!((col:database,opr:rel_o_m,value:{database_id})),page_size:100)"
        with superset(env_id) as client:
            return [row["id"] for row in client.get("/api/v1/dataset/", params={"q": q}).json()["result"]]

    def _still_ours(self, env_id: str, kind: str) -> list[int]:
        """The ids of the ``kind`` objects made here in ``env_id`` that still carry the uuid they were made with,
        newest first. One a tool under test deleted is left out: the local pair's SQLite metadata reuses a
        deleted top id, so by then the id may be another test's object (a concurrent xdist worker's)."""
        made = [(i, u) for e, k, i, u in reversed(self.made) if (e, k) == (env_id, kind)]
        if not made:
            return []
        with superset(env_id) as client:
            return [i for i, u in made if _uuid_of(client, kind, i) == u]

    def cleanup(self) -> None:
        """Delete what was made here, then every tagged dashboard and chart left in ss-dev and prod."""
        for kind in _KINDS:
            for env_id in ENVIRONMENTS:
                ids = self._still_ours(env_id, kind)
                if kind == "database":
                    objects_delete(env_id, "dataset", [d for i in ids for d in self._datasets_on(env_id, i)])
                objects_delete(env_id, kind, ids)
        self.made.clear()
        for env_id in ENVIRONMENTS:
            for kind in ("dashboard", "chart"):
                objects_delete(env_id, kind, [row["id"] for row in self.tagged(env_id, kind)])


@contextmanager
def scratch() -> Iterator[SupersetScratch]:
    """Yield a ``SupersetScratch``; everything it made (and everything tagged) is deleted afterwards."""
    made = SupersetScratch()
    try:
        yield made
    finally:
        made.cleanup()
