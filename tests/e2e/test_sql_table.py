"""A SQL answer in a real browser (issue 15 items 3 and 5): from the datasets list to a dataset's page, «Спросить
агента», a SELECT → the result as a table under the tool's line (first 50 rows, «Показано 50 из 80 строк.», numbers
right, NULL visible). The screenshot goes to ``<pytest tmp>/test-results/`` (the path is printed)."""

import re
from pathlib import Path

from django.utils import translation
from django.utils.translation import ngettext
from playwright.sync_api import expect

from tests.support.browser import ask, login
from tests.support.superset_api import api

SQL = "SELECT region, consumption_mwh, NULL AS note FROM energy_consumption ORDER BY date, region, source LIMIT 80"


def test_sql_result_shows_as_a_table_in_chromium(page, app_server, tmp_path):
    rows = api(
        "ss-dev", "POST", "/api/v1/sqllab/execute/",
        json={"database_id": 1, "sql": SQL, "schema": "main", "runAsync": False, "queryLimit": 80},
    )["data"]  # fmt: skip
    assert len(rows) > 50
    shots = Path(tmp_path) / "test-results"
    shots.mkdir()
    login(page, app_server, "engineer")
    page.goto(f"{app_server.url}/datasets/?env_id=ss-dev")
    page.get_by_role("link", name="energy_consumption", exact=True).click()
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent\?objectType=dataset"))

    ask(page, f"выполни {SQL}")

    table = page.get_by_test_id("sql-result").last
    expect(table.locator("thead th")).to_have_text(["region", "consumption_mwh", "note"])
    body = table.locator("tbody tr")
    expect(body).to_have_count(50)
    first = body.first.locator("td")
    expect(first.nth(0)).to_have_text(str(rows[0]["region"]))
    expect(first.nth(1)).to_have_css("text-align", "right")
    expect(first.nth(2)).to_have_text("NULL")
    with translation.override("ru"):  # one count: how many are drawn of how many (issue 30 item 4)
        shown = ngettext("Shown %(shown)d of %(total)d row.", "Shown %(shown)d of %(total)d rows.", len(rows))
    expect(table.get_by_test_id("sql-count")).to_have_text(shown % {"shown": 50, "total": len(rows)})
    table.scroll_into_view_if_needed()
    page.screenshot(path=shots / "sql-table.png", full_page=True)
    print(f"screenshots: {shots}")  # noqa: T201 - where a person finds the picture
