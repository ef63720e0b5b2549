"""Uniquely named scratch dashboards and charts in the local Superset pair, removed after the test.

Everything a test makes carries ``tag`` (a random hex string) in its title/slug/name, so ``cleanup`` finds and
deletes it in both instances — including copies that deploys made in ``prod``. Uses the independent httpx view
of ``tests.superset_api``, never the app's client.
"""

import json
import uuid

import prison

from tests.superset_api import superset


class SupersetScratch:
    """Creates tagged objects; ``cleanup()`` deletes every tagged dashboard and chart in ss-dev and prod."""

    def __init__(self):
        self.tag = uuid.uuid4().hex[:10]

    def dashboard(self, env_id: str, title: str, slug: str | None = None) -> dict:
        """Create a draft dashboard ``title`` (tag appended) with ``slug`` (tag appended); return its row."""
        payload = {"dashboard_title": f"{title} {self.tag}", "published": False}
        payload["slug"] = f"{slug or 'scratch'}-{self.tag}"
        with superset(env_id) as client:
            response = client.post("/api/v1/dashboard/", json=payload)
            response.raise_for_status()
            return self.dashboard_get(env_id, response.json()["id"])

    def chart(self, env_id: str, name: str, dashboard_ids: list[int], table: str = "energy_consumption") -> dict:
        """Create a big-number chart ``name`` (tag appended) on dataset ``table``, attached to the dashboards."""
        with superset(env_id) as client:
            datasets = client.get(
                "/api/v1/dataset/",
                params={"q": prison.dumps({"filters": [{"col": "table_name", "opr": "eq", "value": table}]})},
            ).json()["result"]
            response = client.post(
                "/api/v1/chart/",
                json={
                    "slice_name": f"{name} {self.tag}",
                    "viz_type": "big_number_total",
                    "datasource_id": datasets[0]["id"],
                    "datasource_type": "table",
                    "dashboards": dashboard_ids,
                    "params": json.dumps({"metric": "count", "viz_type": "big_number_total"}),
                },
            )
            response.raise_for_status()
            return {"id": response.json()["id"], "slice_name": f"{name} {self.tag}"}

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

    def tagged(self, env_id: str, kind: str) -> list[dict]:
        """Return the tagged dashboards or charts (``kind``) of ``env_id`` with id, uuid and name."""
        columns = {"dashboard": ["id", "uuid", "slug", "dashboard_title"], "chart": ["id", "uuid", "slice_name"]}
        name = "dashboard_title" if kind == "dashboard" else "slice_name"
        q = {"columns": columns[kind], "filters": [{"col": name, "opr": "ct", "value": self.tag}], "page_size": 100}
        with superset(env_id) as client:
            return client.get(f"/api/v1/{kind}/", params={"q": prison.dumps(q)}).json()["result"]

    def cleanup(self) -> None:
        """Delete every tagged dashboard and chart in ss-dev and prod."""
        for env_id in ("ss-dev", "prod"):
            with superset(env_id) as client:
                for kind in ("dashboard", "chart"):
                    for row in self.tagged(env_id, kind):
                        client.delete(f"/api/v1/{kind}/{row['id']}")


def dashboards_all(env_id: str) -> list[dict]:
    """Every dashboard of ``env_id`` as ``{"id", "uuid", "slug", "dashboard_title"}`` (all pages)."""
    rows, page = [], 0
    with superset(env_id) as client:
        while True:
            q = {"columns": ["id", "uuid", "slug", "dashboard_title"], "page": page, "page_size": 100}
            batch = client.get("/api/v1/dashboard/", params={"q": prison.dumps(q)}).json()["result"]
            rows += batch
            if len(batch) < 100:
                return rows
            page += 1


def dashboard_uuid(env_id: str, slug: str) -> str:
    """The uuid of the dashboard with ``slug`` in ``env_id`` (the detail endpoint does not show it)."""
    q = {"columns": ["uuid"], "filters": [{"col": "slug", "opr": "eq", "value": slug}]}
    with superset(env_id) as client:
        return client.get("/api/v1/dashboard/", params={"q": prison.dumps(q)}).json()["result"][0]["uuid"]
