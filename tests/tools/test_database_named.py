"""A database named that the person cannot see is said in their words, with the databases they can use (issue 29:
«подключи новую базу postgres к ss-dev» ended in «Неверные аргументы инструмента: no database named 'postgres'»)."""

import pytest

from agentchat.errors import NOT_APPLICABLE
from tests.support.superset_api import api
from tests.support.tool_runs import run_tool
from tests.support.wording import text

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("tool", ["superset_explore_database", "superset_execute_sql"])
async def test_an_unknown_database_name_lists_the_databases_one_can_use(engineer, superset_stack, tool):
    args = {"sql": "SELECT 1"} if tool == "superset_execute_sql" else {}
    outcome = await run_tool(tool, engineer, env_id="ss-dev", database_name="postgres", **args)

    assert not outcome.ok
    assert outcome.error_code == NOT_APPLICABLE
    # other tests' scratch databases (``agentchat_test_…``) come and go meanwhile: compared without them
    names = sorted(d["database_name"] for d in api("ss-dev", "GET", "/api/v1/database/")["result"])
    assert "Energy" in names
    said = text(
        "ru",
        "There is no database “%(name)s” in %(env)s, or Superset does not show it to your account. Databases you "
        "can use there: %(names)s.",
        name="postgres",
        env="ss-dev",
        names="§",
    )
    head, tail = said.split("§")
    message = outcome.error_message or ""
    assert message.startswith(head), message
    assert message.endswith(tail), message
    listed = message[len(head) : len(message) - len(tail)].split(", ")
    assert listed == sorted(listed)
    assert [n for n in listed if not n.startswith("agentchat_test_")] == [
        n for n in names if not n.startswith("agentchat_test_")
    ]
