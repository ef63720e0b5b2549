"""superset_execute_sql and superset_format_sql through the executor against the local Superset (ss-dev)."""

import pytest
import sqlglot

from tests.superset.test_sql_safety import REFUSED
from tests.support.superset_api import api
from tests.support.tool_runs import answer, run_tool
from tests.support.wording import plural, text

pytestmark = pytest.mark.django_db

CTE_SQL = (
    "WITH totals AS (SELECT region, SUM(consumption_mwh) AS mwh FROM energy_consumption GROUP BY region) "
    "SELECT region, mwh FROM totals ORDER BY mwh DESC"
)


def sqllab(sql: str, limit: int = 1000) -> list[dict]:
    """Rows of ``sql`` on the Energy database, asked of SQL Lab independently of the app."""
    body = api(
        "ss-dev",
        "POST",
        "/api/v1/sqllab/execute/",
        json={"database_id": 1, "sql": sql, "schema": "main", "runAsync": False, "queryLimit": limit},
    )
    return body["data"]


async def test_cte_select_returns_the_rows_superset_returns(engineer, superset_stack):
    outcome = await run_tool("superset_execute_sql", engineer, env_id="ss-dev", dataset_id=1, sql=CTE_SQL)

    assert outcome.ok, outcome.error_message
    expected = sqllab(CTE_SQL)
    assert outcome.result["rows"] == expected
    assert outcome.result["row_count"] == len(expected)
    assert outcome.result["truncated"] is False
    assert outcome.result["database"] == "Energy"
    assert [c["name"] for c in outcome.result["columns"]] == ["region", "mwh"]
    reply = answer("superset_execute_sql", outcome, "ru")
    count = plural("ru", "%(total)d row.", "%(total)d rows.", len(expected), total=len(expected))
    ran = "The query on database %(where)s ran: %(count)s The table is above, under the query's line."
    assert reply == text("ru", ran, where="Energy (ss-dev)", count=count)  # the rows are the page's table only


async def test_row_cap_limits_rows_and_says_there_are_more(engineer, superset_stack):
    total = sqllab("SELECT COUNT(*) AS n FROM energy_consumption")[0]["n"]
    assert total > 5

    outcome = await run_tool(
        "superset_execute_sql",
        engineer,
        env_id="ss-dev",
        database_id=1,
        sql="SELECT * FROM energy_consumption",
        row_limit=5,
    )

    assert outcome.ok, outcome.error_message
    assert outcome.result["row_count"] == 5
    assert len(outcome.result["rows"]) == 5
    assert outcome.result["truncated"] is True
    assert outcome.result["rows"] == sqllab("SELECT * FROM energy_consumption", limit=5)


async def test_query_own_smaller_limit_is_kept(engineer, superset_stack):
    outcome = await run_tool(
        "superset_execute_sql", engineer, env_id="ss-dev", database_id=1, sql="SELECT * FROM regions LIMIT 3"
    )

    assert outcome.ok, outcome.error_message
    assert outcome.result["rows"] == sqllab("SELECT * FROM regions", limit=3)
    assert outcome.result["row_count"] == 3
    assert outcome.result["truncated"] is False


@pytest.mark.parametrize("name", sorted(REFUSED))
async def test_unsafe_sql_is_refused_without_any_request_to_superset(engineer, superset_stack, name):
    """Refusal comes from the parser: no login, no look-up, no SQL Lab call; message in the user's language."""
    outcome = await run_tool("superset_execute_sql", engineer, env_id="ss-dev", dataset_id=1, sql=REFUSED[name])

    assert not outcome.ok
    assert outcome.error_code == "invalid_args"
    refused = text("ru", "Query refused: %(reason)s. Only a single read statement (SELECT) is allowed.", reason="\0")
    assert outcome.error_message.startswith(refused.split("\0")[0])
    assert outcome.requests == 0


async def test_refusal_is_in_english_for_an_english_question(engineer, superset_stack):
    outcome = await run_tool(
        "superset_execute_sql", engineer, language="en", env_id="ss-dev", database_id=1, sql=REFUSED["select_into"]
    )

    assert outcome.error_message.startswith("Query refused:")
    assert "INTO" in outcome.error_message


async def test_refused_dml_leaves_the_data_unchanged(engineer, superset_stack):
    before = sqllab("SELECT COUNT(*) AS n FROM regions")[0]["n"]

    outcome = await run_tool(
        "superset_execute_sql", engineer, env_id="ss-dev", database_id=1, sql="/*c*/ DELETE FROM regions"
    )

    assert not outcome.ok
    assert sqllab("SELECT COUNT(*) AS n FROM regions")[0]["n"] == before


async def test_database_error_is_reported_once_not_as_an_outage(engineer, superset_stack):
    """Superset answers a failing query with HTTP 500 + GENERIC_DB_ENGINE_ERROR: a clear error, no retry."""
    outcome = await run_tool(
        "superset_execute_sql", engineer, env_id="ss-dev", database_id=1, sql="SELECT nope FROM no_such_table"
    )

    assert not outcome.ok
    assert outcome.error_code == "upstream_error"
    missing = "The query names a table that does not exist in %(env)s: “%(table)s”."
    assert outcome.error_message == text("ru", missing, env="ss-dev", table="no_such_table")
    assert "no such table: no_such_table" in outcome.error_detail  # SQLite's words, for the detail
    assert outcome.retries == 0


async def test_unknown_environment_is_a_validation_error(engineer, superset_stack):
    outcome = await run_tool(
        "superset_execute_sql", engineer, env_id="http://evil.example", database_id=1, sql="SELECT 1"
    )

    assert outcome.error_code == "invalid_args"
    assert outcome.requests == 0


async def test_execute_needs_a_database(engineer, superset_stack):
    outcome = await run_tool("superset_execute_sql", engineer, env_id="ss-dev", sql="SELECT 1")

    assert outcome.error_code == "invalid_args"
    assert "database" in outcome.error_message


@pytest.mark.parametrize(
    "sql",
    [
        "select region,sum(cost_rub) as cost from energy_consumption where source='Газ' group by region order by cost",
        "with t as (select * from regions) select federal_district, count(*) from t group by 1",
    ],
)
async def test_format_sql_matches_superset_sql_lab_formatter(engineer, superset_stack, sql):
    """Formatted locally with sqlglot (no environment), the text equals SQL Lab's formatter and runs the same."""
    outcome = await run_tool("superset_format_sql", engineer, sql=sql)

    assert outcome.ok, outcome.error_message
    formatted = outcome.result["sql"]
    assert formatted == api("ss-dev", "POST", "/api/v1/sqllab/format_sql/", json={"sql": sql})["result"]
    assert outcome.result["changed"] is True
    assert sqlglot.parse_one(formatted) == sqlglot.parse_one(sql)
    assert sqllab(formatted) == sqllab(sql)
    assert f"```sql\n{formatted}\n```" in answer("superset_format_sql", outcome, "en")


async def test_format_sql_uses_the_dialect(engineer):
    outcome = await run_tool("superset_format_sql", engineer, sql="select `a` from `t` limit 5", dialect="mysql")

    assert outcome.ok, outcome.error_message
    assert outcome.result["sql"] == "SELECT\n  `a`\nFROM `t`\nLIMIT 5"
    bad = await run_tool("superset_format_sql", engineer, sql="select from where (", dialect="postgresql")
    assert bad.error_code == "invalid_args"
