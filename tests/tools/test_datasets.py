"""Dataset and database tools through the executor against the local Superset pair (ss-dev, prod)."""

import json

import pytest

from tests.support.superset_api import SERVICE_USERNAME, api, datasets_named
from tests.support.tool_runs import answer, run_tool
from tests.support.wording import plural, ptext, text

pytestmark = pytest.mark.django_db


def dataset(env_id: str, dataset_id: int) -> dict:
    return api(env_id, "GET", f"/api/v1/dataset/{dataset_id}")["result"]


async def test_search_datasets_by_fragment_database_schema_and_owner(engineer, superset_stack, virtual_dataset):
    outcome = await run_tool(
        "search_datasets",
        engineer,
        env_id="ss-dev",
        query=virtual_dataset["name"][-8:],
        database="energy",
        schema="main",
        owner=SERVICE_USERNAME,  # the scratch dataset is made as the stack's service account
    )

    assert outcome.ok, outcome.error_message
    assert [d["id"] for d in outcome.result["datasets"]] == [virtual_dataset["id"]]
    row = outcome.result["datasets"][0]
    assert row["name"] == virtual_dataset["name"]
    assert row["database"] == "Energy"
    assert row["kind"] == "virtual"
    assert outcome.result["count"] == 1
    virtual, ref = ptext("ru", "dataset kind", "virtual"), virtual_dataset["id"]
    linked = f"[«{virtual_dataset['name']}»](/datasets/{ref}/?env_id=ss-dev) (id {ref}, Energy.main, {virtual}, "
    assert linked in answer("search_datasets", outcome, "ru")


async def test_search_datasets_reports_an_unknown_database_instead_of_guessing(engineer, superset_stack):
    outcome = await run_tool("search_datasets", engineer, env_id="ss-dev", database="no-such-db-xyz")

    assert outcome.ok, outcome.error_message
    assert outcome.result["datasets"] == []
    assert outcome.result["unresolved"] == {"database": []}


def related_ids(env_id: str, dataset_id: int) -> dict[str, set[int]]:
    body = api(env_id, "GET", f"/api/v1/dataset/{dataset_id}/related_objects")
    return {kind: {row["id"] for row in body[kind]["result"]} for kind in ("charts", "dashboards")}


async def test_dataset_details_show_source_dependents_mapping_and_review(engineer, superset_stack):
    """energy_consumption in ss-dev: its charts/dashboards as Superset relates them, and its id in prod."""
    related_before = related_ids("ss-dev", 1)  # other engineers' tests may add charts meanwhile
    outcome = await run_tool("get_dataset_details", engineer, env_id="ss-dev", dataset_id=1)
    related_after = related_ids("ss-dev", 1)

    assert outcome.ok, outcome.error_message
    result = outcome.result
    truth = dataset("ss-dev", 1)
    assert result["source"]["kind"] == "physical"
    assert result["source"]["table"] == truth["table_name"]
    assert result["source"]["database"] == truth["database"]["database_name"]
    assert [c["name"] for c in result["columns"]] == [c["column_name"] for c in truth["columns"]]
    assert {m["name"] for m in result["metrics"]} == {m["metric_name"] for m in truth["metrics"]}
    for kind in ("charts", "dashboards"):
        shown = {row["id"] for row in result["dependents"][kind]}
        assert related_before[kind] & related_after[kind] <= shown <= related_before[kind] | related_after[kind]
    assert {1, 2} <= {d["id"] for d in result["dependents"]["dashboards"]}  # the seeded dashboards
    in_prod = [d for d in datasets_named("prod", truth["table_name"]) if d["database"]["database_name"] == "Energy"]
    prod = next(e for e in result["environments"] if e["env_id"] == "prod")
    assert prod["status"] == "found"
    assert prod["id"] == in_prod[0]["id"]
    assert prod["url"].startswith("http://127.0.0.1:8089/")
    assert result["review"]["status"] == "not_certified"
    assert text("ru", "- %(env)s: present (id %(id)s)", env="prod", id=prod["id"]) in answer(
        "get_dataset_details", outcome, "ru"
    )
    assert "Review status: not certified." in answer("get_dataset_details", outcome, "en")


async def test_dataset_only_in_dev_is_missing_in_prod_and_certification_is_read(
    engineer, superset_stack, virtual_dataset
):
    extra = {"certification": {"certified_by": "Data team", "details": "Checked against billing"}}
    api("ss-dev", "PUT", f"/api/v1/dataset/{virtual_dataset['id']}", json={"extra": json.dumps(extra)})

    outcome = await run_tool(
        "get_dataset_details", engineer, language="en", env_id="ss-dev", dataset_id=virtual_dataset["id"]
    )

    assert outcome.ok, outcome.error_message
    result = outcome.result
    assert datasets_named("prod", virtual_dataset["name"]) == []
    assert next(e for e in result["environments"] if e["env_id"] == "prod")["status"] == "missing"
    assert result["source"]["kind"] == "virtual"
    assert "regions" in result["source"]["sql"]
    assert result["review"] == {
        "status": "certified",
        "certified_by": "Data team",
        "certification_details": "Checked against billing",
        "warning": None,
        "managed_externally": False,
        "external_url": None,
    }
    text = answer("get_dataset_details", outcome, "en")
    assert "- prod: missing" in text
    assert "certified by Data team — Checked against billing" in text


async def test_explore_lists_databases_schemas_and_tables_with_their_datasets(
    engineer, superset_stack, scratch_database
):
    overview = await run_tool("superset_explore_database", engineer, env_id="ss-dev")
    schemas = await run_tool(
        "superset_explore_database", engineer, env_id="ss-dev", database_name=scratch_database["name"]
    )
    tables = await run_tool("superset_explore_database", engineer, env_id="ss-dev", database_id=1, schema="main")

    assert overview.ok, overview.error_message
    listed = {d["name"]: d for d in overview.result["databases"]}
    assert listed["Energy"]["schemas"] == api("ss-dev", "GET", "/api/v1/database/1/schemas/")["result"]
    assert scratch_database["name"] in listed
    # one schema ("main"): its tables are listed at once («какие таблицы есть в базе …?» was shown the schema only)
    assert api("ss-dev", "GET", f"/api/v1/database/{schemas.result['database']['id']}/schemas/")["result"] == ["main"]
    assert (schemas.result["mode"], schemas.result["schema"]) == ("tables", "main")
    truth = api("ss-dev", "GET", "/api/v1/database/1/tables/", params={"q": "(schema_name:main)"})["result"]
    assert {t["name"] for t in tables.result["tables"]} == {t["value"] for t in truth}
    by_name = {t["name"]: t["dataset_id"] for t in tables.result["tables"]}
    assert by_name["energy_consumption"] == datasets_named("ss-dev", "energy_consumption")[0]["id"]
    note = text("ru", "dataset id %(id)s", id=by_name["energy_consumption"])
    assert f"- energy_consumption ({note})" in answer("superset_explore_database", tables, "ru")


async def test_explore_dataset_shows_its_table_and_dependencies(engineer, superset_stack):
    outcome = await run_tool("superset_explore_database", engineer, env_id="ss-dev", dataset_id=2)

    assert outcome.ok, outcome.error_message
    truth = dataset("ss-dev", 2)
    related = api("ss-dev", "GET", "/api/v1/dataset/2/related_objects")
    assert outcome.result["mode"] == "dataset"
    assert outcome.result["source"]["table"] == truth["table_name"] == "regions"
    assert {d["title"] for d in outcome.result["dependents"]["dashboards"]} == {
        d["title"] for d in related["dashboards"]["result"]
    }


async def test_create_physical_dataset_exists_in_superset_and_impact_says_so(
    engineer, superset_stack, scratch_database
):
    from agentchat.runtime.context import ToolContext
    from agentchat.superset.call import CallState
    from agentchat.tools.dataset_create import CreateDatasetArgs, create_dataset_impact

    args = {"env_id": "ss-dev", "database_name": scratch_database["name"], "table_name": scratch_database["table"]}
    ctx = ToolContext(
        user=engineer,
        conversation_id=None,
        ui_context=None,
        language="ru",
        call=CallState(retry_transient=True),
        timeout_s=30,
    )
    try:
        before = await create_dataset_impact(ctx, CreateDatasetArgs.model_validate(args))
        outcome = await run_tool("superset_create_dataset", engineer, **args)
        after = await create_dataset_impact(ctx, CreateDatasetArgs.model_validate(args))
        again = await run_tool("superset_create_dataset", engineer, **args)
    finally:
        await ctx.aclose()

    assert before["objects"] == [
        {"type": "dataset", "name": f"{scratch_database['name']}.main.{scratch_database['table']}", "action": "create"}
    ]
    assert before["table_found"] is True
    assert outcome.ok, outcome.error_message
    created = [
        d for d in datasets_named("ss-dev", scratch_database["table"]) if d["database"]["id"] == scratch_database["id"]
    ]
    assert [d["id"] for d in created] == [outcome.result["dataset"]["id"]]
    assert created[0]["schema"] == "main"
    assert after["objects"][0]["action"] == "exists"
    assert after["objects"][0]["id"] == outcome.result["dataset"]["id"]
    label = f"{scratch_database['name']}.main.{scratch_database['table']}"
    assert after["summary"] == text(
        "ru",
        "Dataset “%(label)s” already exists in %(env)s (id %(id)s): nothing will change.",
        label=label,
        env="ss-dev",
        id=outcome.result["dataset"]["id"],
    )
    created_id = outcome.result["dataset"]["id"]
    assert answer("superset_create_dataset", outcome, "ru") == text(
        "ru",
        "Created dataset %(label)s (%(kind)s) in %(env)s, id %(id)s.",
        kind=ptext("ru", "dataset kind", "physical"),
        label=f"[«{label}»](/datasets/{created_id}/?env_id=ss-dev)",
        env="ss-dev",
        id=created_id,
    )
    assert again.ok
    assert again.result["created"] is False
    assert "already exists" in answer("superset_create_dataset", again, "en")
    assert again.result["dataset"]["id"] == outcome.result["dataset"]["id"]


async def test_create_virtual_dataset_refuses_unsafe_sql_and_creates_a_safe_one(
    engineer, superset_stack, scratch_database
):
    base = {
        "env_id": "ss-dev",
        "database_id": scratch_database["id"],
        "schema": "main",
        "table_name": f"v_{scratch_database['table']}",
    }

    refused = await run_tool(
        "superset_create_dataset", engineer, sql=f"DELETE FROM {scratch_database['table']}", **base
    )
    created = await run_tool(
        "superset_create_dataset",
        engineer,
        sql=f"SELECT meter_id, reading * 2 AS doubled FROM {scratch_database['table']}",
        **base,
    )

    assert refused.error_code == "invalid_args"
    assert refused.requests == 0
    assert created.ok, created.error_message
    truth = dataset("ss-dev", created.result["dataset"]["id"])
    assert truth["kind"] == "virtual"
    assert "doubled" in truth["sql"]


async def test_create_dataset_on_a_missing_table_fails_with_superset_reason(engineer, superset_stack, scratch_database):
    outcome = await run_tool(
        "superset_create_dataset",
        engineer,
        env_id="ss-dev",
        database_id=scratch_database["id"],
        table_name="no_such_table",
    )

    assert outcome.error_code == "upstream_error"
    missing = "There is no table “%(table)s” in the database in %(env)s."
    assert outcome.error_message == text("ru", missing, table="main.no_such_table", env="ss-dev")
    assert "could not be found" in outcome.error_detail  # Superset's words, folded under the sentence
    assert datasets_named("ss-dev", "no_such_table") == []


async def test_a_search_answer_counts_only_what_matches_its_query(engineer, superset_stack):
    """«найди датасет regions» searches for «region» (issue 16 review): the answer names the query and counts
    only the datasets whose name contains it, not every dataset of the environment."""
    everything = await run_tool("search_datasets", engineer, env_id="ss-dev")
    outcome = await run_tool("search_datasets", engineer, env_id="ss-dev", query="region")

    assert outcome.ok, outcome.error_message
    names = [d["name"] for d in outcome.result["datasets"]]
    assert names
    assert all("region" in n.casefold() for n in names)
    assert outcome.result["count"] == len(names) < everything.result["count"]
    said = answer("search_datasets", outcome, "ru")
    head = plural(
        "ru",
        "Found %(count)d dataset in %(env)s whose name contains “%(query)s”.",
        "Found %(count)d datasets in %(env)s whose name contains “%(query)s”.",
        len(names),
        env="ss-dev",
        query="region",
    )
    assert said.splitlines()[0] == head
    assert "energy_consumption" not in said
