"""Answers that read like a finished product, in Chromium at 1366×900, in Russian and English (issue 30 items 1, 3,
4, 5), against the local Superset pair and the offline planner:

- the main job («расскажи про этот дашборд»): no paragraph or line break inside a list item, chart types by their
  names, the dashboard, its charts and datasets as links (``<a>``), no URL written as text;
- Superset's error: our sentence on the tool line, Superset's own words folded in «Ответ Superset»;
- a SQL result: one table, one count, numbers in the reader's format, the CSV of the whole result, the copy, the
  SQL Lab link;
- an empty chat's example questions, one click each; the history's search.

Screenshots go to ``var/test-results/screenshots`` (``tests.support.screenshots``).
"""

import csv
import io
import re

import pytest
from django.utils import translation
from playwright.sync_api import expect

from agentchat.superset.viz_types import viz_type_name
from tests.support.browser import final_answer, login, open_agent_from
from tests.support.screenshots import keep
from tests.support.superset_api import api, dashboard_by_slug, datasets_named
from tests.support.wording import plural, text

ANSWER = "[data-testid=assistant-message][data-final='1']"
MAIN_JOB = {"ru": "расскажи про этот дашборд", "en": "tell me about this dashboard"}
RUN = {"ru": "выполни", "en": "run"}
SQL = "SELECT region, SUM(consumption_mwh) AS total, COUNT(*) AS n FROM energy_consumption GROUP BY region"


def dataset_id(name: str = "energy_consumption") -> int:
    """The id of the seeded dataset ``name`` in ss-dev."""
    return int(datasets_named("ss-dev", name)[0]["id"])


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_main_job_s_answer_renders_as_written_with_links_and_chart_type_names(page_in, app_server, language):
    energy = dashboard_by_slug("ss-dev", "energy-report")
    charts = api("ss-dev", "GET", f"/api/v1/dashboard/{energy['id']}/charts")["result"]
    page = page_in(language)
    login(page, app_server, "engineer")
    open_agent_from(page, app_server, f"/dashboards/{energy['id']}/?env_id=ss-dev")

    answer = final_answer(page, MAIN_JOB[language])

    assert answer.locator("li p, li br, li ul, li table").count() == 0  # nothing drawn inside a chart's bullet
    with translation.override(language):
        types = {c["slice_name"]: viz_type_name((c.get("form_data") or {}).get("viz_type")) for c in charts}
    items = answer.locator("li").all_inner_texts()
    assert len(items) == len(charts)
    for item in items:
        name = next(n for n in types if n in item)
        assert item.endswith(f"— {types[name]}")
    assert "echarts_" not in answer.inner_text()
    hrefs = answer.locator("a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert f"/dashboards/{energy['id']}/?env_id=ss-dev" in hrefs
    assert any(h.startswith("http://127.0.0.1:8088/superset/dashboard/") for h in hrefs)
    assert any(re.fullmatch(r"/datasets/\d+/\?env_id=ss-dev", h) for h in hrefs)
    assert sum("/explore/?slice_id=" in h for h in hrefs) == len(charts)
    assert not re.search(r"https?://", answer.inner_text())  # every address is a link, none is text
    owners = text(language, "Owners: %(owners)s", owners="").strip()
    expect(answer.locator("p", has_text=owners)).to_have_count(1)  # a paragraph of its own, after the list
    keep(page, f"chat-main-job-{language}")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_superset_s_error_is_a_sentence_with_its_own_words_folded(page_in, app_server, language):
    page = page_in(language)
    login(page, app_server, "engineer")
    open_agent_from(page, app_server, f"/datasets/{dataset_id()}/?env_id=ss-dev")

    answer = final_answer(page, f"{RUN[language]} SELECT nope FROM energy_consumption")

    sentence = text(
        language,
        "The query names a column that the table does not have: “%(column)s” (%(env)s).",
        column="nope",
        env="ss-dev",
    )
    line = page.locator(".tool-failed")
    expect(line).to_contain_text(sentence)
    assert "COLUMN_DOES_NOT_EXIST_ERROR" not in page.get_by_test_id("messages").inner_text()
    detail = line.get_by_test_id("upstream-detail")
    expect(detail.locator("summary")).to_have_text(text(language, "Superset's answer"))
    expect(detail.locator("pre")).to_be_hidden()
    detail.locator("summary").click()
    expect(detail.locator("pre")).to_have_text('We can\'t seem to resolve the column "nope"')
    expect(answer).to_contain_text(sentence)
    keep(page, f"chat-superset-error-{language}")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_sql_result_is_one_table_with_one_count_local_numbers_csv_copy_and_sql_lab(page_in, app_server, language):
    expected = api("ss-dev", "POST", "/api/v1/sqllab/execute/",
                   json={"database_id": 1, "sql": SQL, "schema": "main", "runAsync": False})["data"]  # fmt: skip
    page = page_in(language)
    login(page, app_server, "engineer")
    open_agent_from(page, app_server, f"/datasets/{dataset_id()}/?env_id=ss-dev")

    answer = final_answer(page, f"{RUN[language]} {SQL}")

    messages = page.get_by_test_id("messages")
    expect(messages.locator("table")).to_have_count(1)  # the table under the tool's line; the answer has none
    table = page.get_by_test_id("sql-result")
    count = plural(language, "%(total)d row.", "%(total)d rows.", len(expected), total=len(expected))
    expect(table.get_by_test_id("sql-count")).to_have_text(count)
    expect(answer).to_contain_text(count)  # the same count in the answer
    totals = table.locator("tbody tr td:nth-child(2)").all_inner_texts()
    assert len(totals) == len(expected)
    grouped = r"\d{1,3}(\u00a0\d{3})+,\d+" if language == "ru" else r"\d{1,3}(,\d{3})+\.\d+"
    assert all(re.fullmatch(grouped, cell) for cell in totals), totals  # «83 935 788,9» / "83,935,788.9"
    lab = table.get_by_test_id("sql-lab").get_attribute("href")
    assert lab.startswith("http://127.0.0.1:8088/sqllab/?dbid=1&sql=SELECT+region")
    with page.expect_download() as download:
        table.get_by_test_id("sql-csv").click()
    body = download.value.path().read_text(encoding="utf-8-sig")
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0] == ["region", "total", "n"]
    assert len(rows) == len(expected) + 1
    table.get_by_test_id("sql-copy").click()
    expect(table.get_by_test_id("sql-copy")).to_have_text(text(language, "Copied"))
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.splitlines()[0] == "region\ttotal\tn"
    keep(page, f"sql-table-{language}", element=table)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_an_empty_chat_offers_examples_one_click_each_and_the_history_is_searchable(page_in, app_server, language):
    page = page_in(language)
    login(page, app_server, "analyst")
    open_agent_from(page, app_server, f"/datasets/{dataset_id()}/?env_id=ss-dev")

    examples = page.get_by_test_id("example")
    assert 3 <= examples.count() <= 4
    tools = examples.evaluate_all("buttons => buttons.map(b => b.dataset.tool)")
    assert not {"superset_create_dataset", "deploy_dashboard"} & set(tools)  # nothing the analyst cannot do
    keep(page, f"chat-greeting-{language}")
    first = examples.first.inner_text()
    examples.first.click()

    answer = page.locator(ANSWER).first
    expect(answer).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("greeting")).to_have_count(0)
    expect(page.locator(".msg-user").first).to_have_text(first)
    expect(answer.locator("th").first).to_have_text(text(language, "Column"))  # columns with their types

    page.goto(app_server.url + "/agent")
    page.get_by_test_id("history-search").fill(first[:12])
    item = page.get_by_test_id("history").locator("li", has_text=first[:12]).first
    expect(item).to_be_visible()
    expect(item.get_by_test_id("history-object")).to_contain_text("#")
    page.get_by_test_id("history-search").fill("нет-такого-вопроса-xyz")
    expect(page.get_by_test_id("history").locator("a")).to_have_count(0)
