"""LLM review tools against the local Superset, run by a real db_worker (DESIGN §8, issue 5)."""

import json

import pytest

from agentchat.llm.offline.answers import answer_from_result
from agentchat.models import ValidationRun
from tests.support.llm_answer_server import chat_server
from tests.support.superset_api import superset
from tests.support.superset_scratch import ENERGY_DATASET, REGIONS_DATASET, scratch, unique
from tests.support.tool_runs import call_tool, tool_impact, wait_task
from tests.support.wording import plural, ptext, text

pytestmark = pytest.mark.django_db(transaction=True)

BAR_PARAMS = {
    "metrics": [
        {
            "expressionType": "SIMPLE",
            "column": {"column_name": "consumption_mwh"},
            "aggregate": "SUM",
            "label": "SUM(consumption_mwh)",
        }
    ],
    "x_axis": "date",
    "groupby": ["region"],
    "time_grain_sqla": "P1M",
}


def native_filter(filter_id: str, name: str, dataset_id: int) -> dict:
    return {
        "id": filter_id,
        "name": name,
        "filterType": "filter_select",
        "targets": [{"datasetId": dataset_id, "column": {"name": "region"}}],
        "scope": {"rootPath": ["ROOT_ID"], "excluded": []},
        "controlValues": {},
        "defaultDataMask": {"filterState": {}},
        "cascadeParentIds": [],
    }


@pytest.fixture
def review_dashboard(superset_stack):
    """A dashboard made to have known problems; everything is deleted afterwards.

    - chart ``a``: no description (energy dataset), same name as ``b``;
    - chart ``b``: described, duplicate name;
    - chart ``c``: «New chart» — a default, English name on a Russian dashboard;
    - chart ``d``: no description, a name mixing languages, on a virtual dataset without owners;
    - filter «Регион (не используется)» on the regions dataset, which no chart uses; filter «Регион» is used.
    """
    n = unique()
    with scratch() as made:
        dataset = made.virtual_dataset("ss-dev", f"review_regions_{n}", "SELECT * FROM regions", owners=[])
        filters = [
            native_filter("NATIVE_FILTER-unused", "Регион (не используется)", REGIONS_DATASET),
            native_filter("NATIVE_FILTER-used", "Регион", ENERGY_DATASET),
        ]
        metadata = {"native_filter_configuration": filters}
        dashboard = made.dashboard("ss-dev", f"Проверка качества {n}", json_metadata=metadata, tagged=False)["id"]
        names = {"a": f"Потребление по регионам {n}", "d": f"Население by region {n}"}

        def chart(name: str, dataset_id: int = ENERGY_DATASET, **kwargs) -> int:  # exact names: rules read them
            return made.chart("ss-dev", name, [dashboard], dataset_id=dataset_id, tagged=False, **kwargs)["id"]

        ids = {
            "a": chart(names["a"], viz_type="echarts_timeseries_bar", params=BAR_PARAMS),
            "b": chart(names["a"], description="Уже есть описание."),
            "c": chart("New chart", description="Временный график."),
            "d": chart(names["d"], dataset_id=dataset),
        }
        yield {
            "dashboard": dashboard,
            "dataset": dataset,
            "dataset_name": f"review_regions_{n}",
            "charts": ids,
            "names": names,
        }


def by_rule(findings: list[dict], rule: str) -> set:
    return {f["object_id"] for f in findings if f["rule"] == rule}


def chart_description(chart_id: int) -> str | None:
    with superset("ss-dev") as client:
        response = client.get(f"/api/v1/chart/{chart_id}")
        response.raise_for_status()
        return response.json()["result"]["description"]


def test_validation_run_stores_findings_that_match_the_dashboard(users, review_dashboard, task_worker):
    charts = review_dashboard["charts"]
    args = {"env_id": "ss-dev", "dashboard_id": review_dashboard["dashboard"]}
    impact = tool_impact("run_llm_validation", args, users["engineer"])
    [report] = impact["objects"]
    assert report["name"].startswith("Проверка качества")  # the dashboard's title from Superset, not its id
    assert impact["summary"] == text(
        "ru",
        "A review report of dashboard “%(title)s” will be stored; nothing in Superset changes.",
        title=report["name"],
    )
    outcome = call_tool("run_llm_validation", args, users["engineer"])
    assert outcome.ok, outcome.error_message
    assert outcome.result["status"] == "queued"
    assert outcome.result["engine"] == "rules"
    started = text(
        "ru",
        "The validation of dashboard “%(title)s” (%(env)s) started in the background %(engine)s: task "
        "%(task)s, report %(run)s. get_task_status shows its progress. The result will appear in the dashboard's "
        "health summary.",
        title=outcome.result["title"],
        env="ss-dev",
        engine=text("ru", "rule-based (offline mode)"),
        task=outcome.result["task_id"],
        run=outcome.result["run_id"],
    )
    assert answer_from_result("run_llm_validation", outcome.result, "ru") == started

    job = wait_task(outcome.result["task_id"])
    assert job["state"] == "succeeded", job["error"]
    run = ValidationRun.objects.get(pk=outcome.result["run_id"])
    assert run.status == ValidationRun.Status.SUCCEEDED
    assert run.kind == ValidationRun.Kind.VALIDATION
    assert run.engine == "rules"
    assert run.created_by == users["engineer"]
    assert run.task_id == outcome.result["task_id"]
    assert job["result"]["findings"] == len(run.findings)

    assert by_rule(run.findings, "chart_without_description") == {charts["a"], charts["d"]}
    assert by_rule(run.findings, "dataset_without_owners") == {review_dashboard["dataset"]}
    assert by_rule(run.findings, "unused_native_filter") == {"NATIVE_FILTER-unused"}
    assert by_rule(run.findings, "duplicate_chart_name") == {charts["a"], charts["b"]}
    assert by_rule(run.findings, "default_name") == {charts["c"]}
    assert by_rule(run.findings, "mixed_language_name") == {charts["d"]}
    assert by_rule(run.findings, "inconsistent_language") == {review_dashboard["dashboard"]}
    counted = plural(
        "ru",
        "%(count)d finding in “%(title)s”: %(parts)s.",
        "%(count)d findings in “%(title)s”: %(parts)s.",
        len(run.findings),
        title=run.dashboard_title,
        parts="PARTS",
    )
    assert run.summary.startswith(counted.split("PARTS")[0])
    assert run.dashboard_title.startswith("Проверка качества")


def test_documentation_writes_descriptions_readable_from_superset(users, review_dashboard, task_worker):
    charts = review_dashboard["charts"]
    args = {"env_id": "ss-dev", "dashboard_id": review_dashboard["dashboard"]}
    impact = tool_impact("run_llm_documentation", args, users["engineer"])
    assert impact["counts"] == {"modify": 2}
    assert {o["name"] for o in impact["objects"]} == {review_dashboard["names"]["a"], review_dashboard["names"]["d"]}

    outcome = call_tool("run_llm_documentation", args, users["engineer"])
    job = wait_task(outcome.result["task_id"])
    assert job["state"] == "succeeded", job["error"]
    assert job["result"]["written"] == 2
    assert job["result"]["language"] == "ru"  # most names on the dashboard are Russian

    bar, table, monthly = (
        ptext("ru", "chart type", "Bar chart"),
        ptext("ru", "chart type", "Table"),
        ptext("ru", "time grain", "monthly"),
    )
    body = text("ru", "%(metrics)s by %(dimensions)s", metrics="SUM(consumption_mwh)", dimensions="date, region")
    source = text("ru", "Source: dataset “%(dataset)s”.", dataset="energy_consumption")
    assert chart_description(charts["a"]) == f"{bar}: {body}, {monthly}. {source}"
    own_source = text("ru", "Source: dataset “%(dataset)s”.", dataset=review_dashboard["dataset_name"])
    assert chart_description(charts["d"]) == f"{table}. {own_source}"
    assert chart_description(charts["b"]) == "Уже есть описание."
    assert chart_description(charts["c"]) == "Временный график."
    run = ValidationRun.objects.get(pk=outcome.result["run_id"])
    assert run.kind == ValidationRun.Kind.DOCUMENTATION
    assert {f["object_id"]: f["description"] for f in run.findings} == {
        charts["a"]: chart_description(charts["a"]),
        charts["d"]: chart_description(charts["d"]),
    }


def test_health_summary_shows_git_status_and_latest_validation(
    users, review_dashboard, task_worker, settings, tmp_path
):
    settings.GIT_REPOS_DIR = tmp_path / "git"
    args = {"env_id": "ss-dev", "dashboard_id": review_dashboard["dashboard"]}
    before = call_tool("get_health_summary", args, users["engineer"]).result
    assert before["git"]["tracked"] is False
    assert before["validation"] is None
    assert set(before) >= {"dashboard", "charts", "datasets"}

    commit = call_tool("commit_changes", args, users["engineer"]).result
    started = call_tool("run_llm_validation", args, users["engineer"]).result
    assert wait_task(started["task_id"])["state"] == "succeeded"
    run = ValidationRun.objects.get(pk=started["run_id"])

    summary = call_tool("get_health_summary", args, users["engineer"]).result
    assert summary["git"]["committed"] is True
    assert summary["git"]["last_commit"]["sha"] == commit["sha"]
    assert summary["validation"]["run_id"] == run.pk
    assert summary["validation"]["status"] == "succeeded"
    assert summary["validation"]["summary"] == run.summary
    assert summary["validation"]["findings_total"] == len(run.findings)
    answer = answer_from_result("get_health_summary", summary, "ru")
    when = text(
        "ru",
        " (commit %(sha)s of %(time)s, %(author)s)",
        sha=commit["sha"][:10],
        time=summary["git"]["last_commit"]["time"],
        author=summary["git"]["last_commit"]["author"],
    )
    committed = text("ru", "the current export is committed on %(branch)s%(when)s", branch="main", when=when)
    assert f"Git: {committed}." in answer
    assert run.summary in answer

    with superset("ss-dev") as client:
        client.put(f"/api/v1/dashboard/{review_dashboard['dashboard']}", json={"css": "/* x */"}).raise_for_status()
    dirty = call_tool("get_health_summary", args, users["engineer"], language="en").result
    assert dirty["git"]["committed"] is False
    assert len(dirty["git"]["changes"]["modified"]) == 1
    assert "there are uncommitted changes against main: 1 modified" in answer_from_result(
        "get_health_summary", dirty, "en"
    )


@pytest.mark.superset  # asks ss-dev for the dashboard
def test_unknown_dashboard_is_refused_before_anything_is_queued(users):
    outcome = call_tool("run_llm_validation", {"env_id": "ss-dev", "dashboard_id": 999999}, users["engineer"])
    assert outcome.error_code == "upstream_error"
    assert not ValidationRun.objects.exists()


@pytest.fixture
def llm_for_worker(review_dashboard, monkeypatch):
    """The configured LLM for the db_worker process: a loopback server that describes chart ``a`` only."""
    answer = {"charts": [{"id": review_dashboard["charts"]["a"], "description": "Помесячное потребление по регионам."}]}
    with chat_server(json.dumps(answer)) as (url, requests):
        monkeypatch.setenv("LLM_PROVIDER", "openai")
        monkeypatch.setenv("LLM_BASE_URL", url)
        monkeypatch.setenv("LLM_MODEL", "writer")
        yield requests


def test_documentation_by_the_configured_llm_is_written_to_superset(
    users, review_dashboard, llm_for_worker, task_worker
):
    charts = review_dashboard["charts"]
    outcome = call_tool(
        "run_llm_documentation", {"env_id": "ss-dev", "dashboard_id": review_dashboard["dashboard"]}, users["engineer"]
    )
    job = wait_task(outcome.result["task_id"])
    assert job["state"] == "succeeded", job["error"]
    assert job["result"]["engine"] == "llm"
    assert len(llm_for_worker) == 1
    assert chart_description(charts["a"]) == "Помесячное потребление по регионам."
    table = ptext("ru", "chart type", "Table")
    assert chart_description(charts["d"]).startswith(f"{table}.")  # left out by the LLM: template
