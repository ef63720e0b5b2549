"""SQL results as tables (issue 15 item 5): what the page draws under the tool's line; the LLM's JSON is apart."""

from html.parser import HTMLParser

import pytest
from django.utils import translation

from agentchat.turn.results import SQL_ROWS_SHOWN, result_html
from tests.support.wording import plural, plural_forms


class Table(HTMLParser):
    """Header cells, body rows (cell text, class) and the note of a rendered ``sql_result.html``."""

    def __init__(self, html: str):
        super().__init__()
        self.head: list[str] = []
        self.rows: list[list[tuple[str, str]]] = []
        self.note = ""
        self._in: str | None = None
        self._class = ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and self._section == "tbody":
            self.rows.append([])
        if tag in ("th", "td"):
            self._in, self._class = tag, attrs.get("class") or ""
            (self.head if tag == "th" else self.rows[-1]).append(("", self._class) if tag == "td" else "")
        if tag in ("thead", "tbody"):
            self._section = tag
        if tag == "p":
            self._in = "p"

    _section = ""

    def handle_endtag(self, tag):
        if tag in ("th", "td", "p"):
            self._in = None

    def handle_data(self, data):
        if self._in == "th":
            self.head[-1] += data
        elif self._in == "td":
            text, cls = self.rows[-1][-1]
            self.rows[-1][-1] = (text + data, cls)
        elif self._in == "p":
            self.note += data


def sql_result(n: int, *, truncated: bool = False, row_limit: int = 100) -> dict:
    rows = [{"region": f"R{i}", "mwh": i * 1.5 if i else None, "n": i} for i in range(n)]
    return {
        "env_id": "ss-dev",
        "database": "Energy",
        "columns": [{"name": "region", "type": "STRING"}, {"name": "mwh", "type": "FLOAT"}, {"name": "n"}],
        "rows": rows,
        "row_count": n,
        "row_limit": row_limit,
        "truncated": truncated,
    }


def test_sql_result_is_a_table_with_column_names_numbers_right_and_null_visible():
    table = Table(result_html("superset_execute_sql", sql_result(3)))

    assert table.head == ["region", "mwh", "n"]
    assert table.rows == [
        [("R0", ""), ("NULL", ""), ("0", "num")],
        [("R1", ""), ("1.5", "num"), ("1", "num")],
        [("R2", ""), ("3.0", "num"), ("2", "num")],
    ]
    assert table.note == ""


@pytest.mark.parametrize("language", ["ru", "en"])
def test_only_the_first_50_rows_are_drawn_and_the_rest_counted(language):
    with translation.override(language):
        html = result_html("superset_execute_sql", sql_result(SQL_ROWS_SHOWN + 21))

    table = Table(html)
    assert len(table.rows) == SQL_ROWS_SHOWN == 50
    assert table.note == plural(language, "%(count)d more row", "%(count)d more rows", 21)
    one, few, many, twenty_one = plural_forms("ru", "%(count)d more row", "%(count)d more rows")
    assert len({one, few, many}) == 3
    assert twenty_one == one


def test_a_result_cut_by_the_row_cap_says_so_and_values_are_escaped():
    result = sql_result(2, truncated=True, row_limit=2)
    result["rows"][0]["region"] = "<b onclick=x>Север</b>"

    with translation.override("en"):
        html = result_html("superset_execute_sql", result)

    assert "<b onclick" not in html
    assert "&lt;b onclick=x&gt;Север&lt;/b&gt;" in html
    assert Table(html).note == "the limit of 2 rows was reached"


def test_a_summarised_result_still_draws_its_rows_and_counts_the_total():
    result = sql_result(3)
    result["rows"] = {"items": result["rows"][:2], "total": 120}
    result["row_count"] = 120

    with translation.override("en"):
        table = Table(result_html("superset_execute_sql", result))

    assert [r[0][0] for r in table.rows] == ["R0", "R1"]
    assert table.note == "118 more rows"


def test_other_tools_have_no_result_view():
    assert result_html("search_dashboards", {"dashboards": []}) is None
