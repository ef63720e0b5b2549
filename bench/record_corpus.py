"""Record real responses of the local Superset pair into ``bench/data/superset_responses.jsonl`` (SC-004 corpus).

Run: ``.venv/bin/python bench/record_corpus.py`` (needs ``make superset``). It reads list and detail endpoints
of both instances (dashboards, charts with their form_data, datasets with columns and metrics, databases,
security, logs, SQL Lab history and a SQL Lab result), one JSON line per response:
``{"env", "method", "path", "status", "chars", "body"}``. Only reads; nothing in Superset changes.
"""

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentchat.runtime.summarise import to_json  # noqa: E402
from agentchat.superset.client import rison  # noqa: E402
from tests.support.superset_api import URLS, superset  # noqa: E402

OUT = ROOT / "bench" / "data" / "superset_responses.jsonl"
PAGE = rison({"page_size": 100})
LISTS = [
    "/api/v1/dashboard/",
    "/api/v1/chart/",
    "/api/v1/dataset/",
    "/api/v1/database/",
    "/api/v1/saved_query/",
    "/api/v1/query/",
    "/api/v1/log/",
    "/api/v1/security/roles/",
    "/api/v1/security/users/",
    "/api/v1/security/permissions/",
    "/api/v1/security/permissions-resources/",
    "/api/v1/tag/",
    "/api/v1/css_template/",
    "/api/v1/annotation_layer/",
    "/api/v1/rowlevelsecurity/",
]
INFOS = ["/api/v1/dashboard/_info", "/api/v1/chart/_info", "/api/v1/dataset/_info", "/api/v1/database/_info"]
CHART_LIST_WITH_FORM_DATA = rison(
    {
        "page_size": 100,
        "columns": [
            "id",
            "slice_name",
            "viz_type",
            "params",
            "query_context",
            "datasource_id",
            "description",
            "owners.first_name",
            "changed_on_utc",
        ],
    }
)
SQL = [
    "SELECT * FROM energy_consumption LIMIT 500",
    "SELECT region, SUM(consumption_mwh) AS total FROM energy_consumption GROUP BY region",
]


def _ids(body: dict) -> list[int]:
    return [row["id"] for row in body.get("result", []) if isinstance(row, dict) and "id" in row][:20]


def record(env_id: str) -> list[dict]:
    """Return the recorded responses of one environment."""
    rows: list[dict] = []
    with superset(env_id) as client:

        def get(path: str, **params) -> dict | list | None:
            response = client.get(path, params=params or None)
            if response.status_code != 200 or "json" not in response.headers.get("content-type", ""):
                return None
            body = response.json()
            rows.append(
                {"env": env_id, "method": "GET", "path": path, "status": 200, "chars": len(to_json(body)), "body": body}
            )
            return body

        lists = {path: get(path, q=PAGE) for path in LISTS}
        get("/api/v1/chart/", q=CHART_LIST_WITH_FORM_DATA)
        for path in INFOS:
            get(path)
        for dashboard_id in _ids(lists["/api/v1/dashboard/"] or {}):
            for tail in ("", "/charts", "/datasets"):
                get(f"/api/v1/dashboard/{dashboard_id}{tail}")
        for chart_id in _ids(lists["/api/v1/chart/"] or {}):
            get(f"/api/v1/chart/{chart_id}")
            get(f"/api/v1/chart/{chart_id}/data/")
        for dataset_id in _ids(lists["/api/v1/dataset/"] or {}):
            get(f"/api/v1/dataset/{dataset_id}")
            get(f"/api/v1/dataset/{dataset_id}/related_objects")
        for database_id in _ids(lists["/api/v1/database/"] or {}):
            get(f"/api/v1/database/{database_id}")
            get(f"/api/v1/database/{database_id}/schemas/")
            get(f"/api/v1/database/{database_id}/tables/", q=rison({"schema_name": "main"}))
            for sql in SQL:
                response = client.post("/api/v1/sqllab/execute/", json={"database_id": database_id, "sql": sql})
                if response.status_code == 200:
                    body = response.json()
                    rows.append(
                        {
                            "env": env_id,
                            "method": "POST",
                            "path": "/api/v1/sqllab/execute/",
                            "status": 200,
                            "chars": len(to_json(body)),
                            "body": body,
                        }
                    )
    return rows


def main() -> None:
    rows = [row for env_id in URLS for row in record(env_id)]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    total = sum(r["chars"] for r in rows)
    print(f"recorded {len(rows)} responses, {total} characters of JSON -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
