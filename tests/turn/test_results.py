"""SQL results as one table (issue 15 item 5, issue 30 item 4): what the page draws under the tool's line — one
count sentence, CSV / copy / SQL Lab links, numbers in the reader's format at their column's scale; the LLM's
JSON is apart."""

from html.parser import HTMLParser

import pytest
from django.utils import translation

from agentchat.superset.result_table import column_scale, number_text
from agentchat.turn.results import SQL_ROWS_SHOWN, result_html
from tests.support.wording import plural, plural_forms

SHOWN_OF = ("Shown %(shown)d of %(total)d row.", "Shown %(shown)d of %(total)d rows.")


class Table(HTMLParser):
    """Header cells, body rows (cell text, class), the count sentence and the links of ``sql_result.html``."""

    def __init__(self, html: str):
        super().__init__()
        self.head: list[str] = []
        self.rows: list[list[tuple[str, str]]] = []
        self.count = ""
        self.links: dict[str, str] = {}
        self._in: str | None = None
        self._section = ""
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and self._section == "tbody":
            self.rows.append([])
        if tag in ("th", "td"):
            self._in = tag
            if tag == "th":
                self.head.append("")
            else:
                self.rows[-1].append(("", attrs.get("class") or ""))
        if tag in ("thead", "tbody"):
            self._section = tag
        if attrs.get("data-testid") == "sql-count":
            self._in = "count"
        if tag == "a":
            self.links[attrs["data-testid"]] = attrs["href"]

    def handle_endtag(self, tag):
        if tag in ("th", "td", "span"):
            self._in = None

    def handle_data(self, data):
        if self._in == "th":
            self.head[-1] += data
        elif self._in == "td":
            text, cls = self.rows[-1][-1]
            self.rows[-1][-1] = (text + data, cls)
        elif self._in == "count":
            self.count += data


def sql_result(n: int, *, truncated: bool = False, row_limit: int = 100) -> dict:
    rows = [{"region": f"R{i}", "mwh": i * 1.5 if i else None, "n": i} for i in range(n)]
    return {
        "env_id": "ss-dev",
        "superset_url": "http://127.0.0.1:8088",
        "database": "Energy",
        "database_id": 1,
        "schema": "main",
        "sql": "SELECT region, mwh, n FROM t LIMIT 101",
        "columns": [{"name": "region", "type": "STRING"}, {"name": "mwh", "type": "FLOAT"}, {"name": "n"}],
        "rows": rows,
        "row_count": n,
        "row_limit": row_limit,
        "truncated": truncated,
    }


def test_sql_result_is_a_table_with_column_names_numbers_right_and_null_visible():
    with translation.override("en"):
        table = Table(result_html("superset_execute_sql", sql_result(3), conversation_id=7, call_id="call_1"))

    assert table.head == ["region", "mwh", "n"]
    assert table.rows == [
        [("R0", ""), ("NULL", ""), ("0", "num")],
        [("R1", ""), ("1.5", "num"), ("1", "num")],
        [("R2", ""), ("3.0", "num"), ("2", "num")],
    ]
    assert table.count == "3 rows."
    assert table.links["sql-csv"] == "/agent/results/7/call_1.csv"
    lab = table.links["sql-lab"]
    assert lab.startswith("http://127.0.0.1:8088/sqllab/?dbid=1&sql=SELECT+region%2C+mwh%2C+n+FROM+t+LIMIT+101")
    assert lab.endswith("&schema=main")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_only_the_first_50_rows_are_drawn_and_the_count_says_of_how_many(language):
    with translation.override(language):
        html = result_html("superset_execute_sql", sql_result(SQL_ROWS_SHOWN + 21))

    table = Table(html)
    assert len(table.rows) == SQL_ROWS_SHOWN == 50
    assert table.count == plural(language, *SHOWN_OF, 71, shown=50, total=71)
    assert "sql-csv" not in table.links  # no call to download without its conversation and id
    one, few, many, twenty_one = plural_forms("ru", *SHOWN_OF)
    assert len({one, few, many}) >= 2
    assert twenty_one == one


def test_a_result_cut_by_the_row_cap_says_so_once_and_values_are_escaped():
    result = sql_result(2, truncated=True, row_limit=2)
    result["rows"][0]["region"] = "<b onclick=x>Север</b>"

    with translation.override("ru"):
        html = result_html("superset_execute_sql", result)

    assert "<b onclick" not in html
    assert "&lt;b onclick=x&gt;Север&lt;/b&gt;" in html
    assert Table(html).count == "Показано 2 из первых 2 строк; лимит 2, у запроса есть ещё строки."


def test_a_summarised_result_still_draws_its_rows_and_counts_the_total():
    result = sql_result(3)
    result["rows"] = {"items": result["rows"][:2], "total": 120}
    result["row_count"] = 120

    with translation.override("en"):
        table = Table(result_html("superset_execute_sql", result))

    assert [r[0][0] for r in table.rows] == ["R0", "R1"]
    assert table.count == "Shown 2 of 120 rows."


@pytest.mark.parametrize(
    ("language", "value", "column_type", "expected"),
    [
        ("ru", 432421141162.26013, "FLOAT", "432\xa0421\xa0141\xa0162,26"),
        ("en", 432421141162.26013, "FLOAT", "432,421,141,162.26"),
        ("ru", 2024, "INTEGER", "2024"),  # a four-digit number has no group separator (a year stays a year)
        ("ru", 1234567, "BIGINT", "1\xa0234\xa0567"),
        ("ru", 12.5, "DECIMAL(10, 2)", "12,50"),  # the declared scale
        ("en", 0.1 + 0.2, "FLOAT", "0.3"),
        ("ru", 20713944.699999001, "FLOAT", "20\xa0713\xa0944,7"),  # a SUM's rounding noise is not shown
        ("en", 1234.5000000000002, "FLOAT", "1234.5"),
        ("en", 0.99999999999999989, "FLOAT", "1"),
        ("en", 1.00001, "FLOAT", "1.00001"),  # a short value keeps its digits
        ("en", 0.000123, "FLOAT", "0.000123"),
        ("ru", 66394075732.2299, "FLOAT", "66\xa0394\xa0075\xa0732,23"),  # a QA check: «…732,2299»
        ("ru", 3111.732046, "FLOAT", "3111,73"),  # an average price, not six decimals
        ("en", 12.3456, "FLOAT", "12.3456"),
    ],
)
def test_numbers_are_in_the_reader_s_format_at_the_column_s_scale(language, value, column_type, expected):
    with translation.override(language):
        assert number_text(value, column_scale(column_type, [value])) == expected


def test_a_column_s_scale_is_the_most_its_values_need():
    assert column_scale("FLOAT", [1.5, 2.25, None, 3.0]) == 2
    assert column_scale("STRING", ["a", 1]) is None


def test_other_tools_have_no_result_view():
    assert result_html("search_dashboards", {"dashboards": []}) is None
