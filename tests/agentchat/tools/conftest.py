"""Fixtures of the tool tests: run a tool through the executor, scratch objects in the local Superset."""

import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connections

from agentchat.llm.offline.answers import answer_from_result
from agentchat.runtime.executor import ToolOutcome, tool_execute
from agentchat.runtime.registry import tool_spec
from agentchat.runtime.summarise import summarise
from tests import superset_api


async def run_tool(tool: str, user, *, language: str = "ru", ui_context: dict | None = None, **args) -> ToolOutcome:
    """Run ``tool`` with ``args`` exactly as the agent does (validation, deadline, retry policy)."""
    return await tool_execute(
        spec=tool_spec(tool), args=args, user=user, conversation_id=None, ui_context=ui_context, language=language
    )


def answer(tool: str, outcome: ToolOutcome, language: str) -> str:
    """The offline planner's answer to ``outcome`` as the agent would send it (summarised to 4000 chars first)."""
    sent, _ = summarise(outcome.result, 4000)
    return answer_from_result(tool, sent, language)


def api(env_id: str, method: str, path: str, **kwargs) -> Any:
    """Call the local Superset independently of the app (``tests.superset_api``) and return the JSON body."""
    with superset_api.superset(env_id) as client:
        response = client.request(method, path, **kwargs)
        response.raise_for_status()
        return response.json() if response.content else None


def datasets_named(env_id: str, table_name: str) -> list[dict[str, Any]]:
    """Datasets of ``env_id`` whose table name is exactly ``table_name`` (independent look-up)."""
    q = f"(filters:!((col:table_name,opr:eq,value:'{table_name}')),page_size:100)"
    return api(env_id, "GET", "/api/v1/dataset/", params={"q": q})["result"]


def delete_dataset(env_id: str, dataset_id: int) -> None:
    with superset_api.superset(env_id) as client:
        client.delete(f"/api/v1/dataset/{dataset_id}")


@pytest.fixture(autouse=True)
async def _close_worker_connections():
    """The executor reads policies from asgiref's worker thread; close its connection so the test DB can drop."""
    yield
    await sync_to_async(connections.close_all)()


@pytest.fixture
def engineer(users):
    return users["engineer"]


@pytest.fixture
def scratch_database(superset_stack, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A SQLite file with one uniquely named table, registered in ss-dev as a uniquely named database.

    Yields ``{"id", "name", "table", "path"}``; afterwards its datasets and the database are deleted.
    """
    suffix = uuid.uuid4().hex[:8]
    path = tmp_path / f"scratch_{suffix}.db"
    table = f"meters_{suffix}"
    with sqlite3.connect(path) as connection:
        connection.execute(f"CREATE TABLE {table} (meter_id INTEGER, reading REAL)")
        connection.executemany(f"INSERT INTO {table} VALUES (?, ?)", [(i, i * 1.5) for i in range(1, 8)])
    name = f"agentchat_test_{suffix}"
    body = api(
        "ss-dev",
        "POST",
        "/api/v1/database/",
        json={"database_name": name, "sqlalchemy_uri": f"sqlite:///{path}", "expose_in_sqllab": True},
    )
    database = {"id": body["id"], "name": name, "table": table, "path": path}
    yield database
    q = f"(filters:!((col:database,opr:rel_o_m,value:{database['id']})),page_size:100)"
    for row in api("ss-dev", "GET", "/api/v1/dataset/", params={"q": q})["result"]:
        delete_dataset("ss-dev", row["id"])
    api("ss-dev", "DELETE", f"/api/v1/database/{database['id']}")


@pytest.fixture
def virtual_dataset(superset_stack) -> Iterator[dict[str, Any]]:
    """A uniquely named virtual dataset on the Energy database in ss-dev only; deleted afterwards."""
    name = f"agentchat_virtual_{uuid.uuid4().hex[:8]}"
    payload = {"database": 1, "schema": "main", "table_name": name, "sql": "SELECT region, population FROM regions"}
    body = api("ss-dev", "POST", "/api/v1/dataset/", json=payload)
    yield {"id": body["id"], "name": name}
    delete_dataset("ss-dev", body["id"])
