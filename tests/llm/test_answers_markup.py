"""The offline planner's answers as a reader sees them (issue 30 item 1): Markdown that renders as written — lists
closed, names as literal text, objects linked to their page here and to Superset — and chart types by the names
Superset shows, in Russian and English (expected texts from the catalogue, ``tests.support.wording``)."""

from html.parser import HTMLParser

import pytest

from agentchat.llm.offline.answers import answer_from_result
from agentchat.turn.markdown import markdown_html
from tests.support.wording import ptext, text

HEALTH = {
    "env_id": "ss-dev",
    "dashboard": {
        "id": 1,
        "title": "Отчёт *по* [энергии]",
        "published": True,
        "owners": ["agentchat service"],
        "changed_on": "2026-12-06T04:14:00",
        "changed_by": "agentchat service",
        "url": "http://127.0.0.1:8088/superset/dashboard/1/",
    },
    "charts": [
        {"id": 1, "name": "По месяцам", "viz_type": "echarts_timeseries_line", "url": "http://s/explore/?slice_id=1"},
        {"id": 3, "name": "Структура", "viz_type": "pie", "url": "http://s/explore/?slice_id=3"},
        {"id": 4, "name": "Новый", "viz_type": "some_plugin_of_ours"},
    ],
    "datasets": [{"id": 5, "name": "energy_consumption"}],
    "git": {"branch": "main"},
    "validation": None,
}


class Tree(HTMLParser):
    """Which tags sit inside a ``<li>``, and every link's href with its text."""

    def __init__(self, html: str):
        super().__init__()
        self.depth_li = 0
        self.inside_li: list[str] = []
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        if self.depth_li and tag != "a":
            self.inside_li.append(tag)
        if tag == "li":
            self.depth_li += 1
        if tag == "a":
            self._href = dict(attrs)["href"]
            self.links.append((self._href, ""))

    def handle_endtag(self, tag):
        if tag == "li":
            self.depth_li -= 1

    def handle_data(self, data):
        if self._href is not None:
            href, before = self.links[-1]
            self.links[-1] = (href, before + data)

    def handle_startendtag(self, tag, attrs):
        if self.depth_li:
            self.inside_li.append(tag)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_health_summary_renders_its_lists_closed_with_links_and_chart_type_names(language):
    html = markdown_html(answer_from_result("get_health_summary", HEALTH, language))
    tree = Tree(html)

    assert tree.inside_li == []  # no paragraph, line break or second block inside a chart's bullet
    hrefs = [href for href, _label in tree.links]
    assert "/dashboards/1/?env_id=ss-dev" in hrefs
    assert "http://127.0.0.1:8088/superset/dashboard/1/" in hrefs
    assert "http://s/explore/?slice_id=1" in hrefs
    assert "/datasets/5/?env_id=ss-dev" in hrefs
    line, pie = ptext(language, "chart type", "Line Chart"), ptext(language, "chart type", "Pie Chart")
    assert f"— {line}</li>" in html
    assert f"— {pie}</li>" in html
    assert "— some_plugin_of_ours</li>" in html  # a type we do not know keeps its code
    assert "echarts_timeseries_line" not in html
    assert "Отчёт *по* [энергии]" in html  # the title's characters are text, not emphasis or a link
    assert "<em>" not in html
    owners = text(language, "Owners: %(owners)s", owners="agentchat service")
    assert "</ul>\n<p>" in html
    assert owners in html


def test_russian_chart_type_names_are_superset_s_own():
    assert ptext("ru", "chart type", "Pie Chart") == "Круговая диаграмма"
    assert ptext("ru", "chart type", "Bar Chart") == "Столбчатая диаграмма"


@pytest.mark.parametrize("language", ["ru", "en"])
def test_dataset_details_list_columns_with_types_and_metrics_with_expressions(language):
    result = {
        "env_id": "ss-dev",
        "dataset": {"id": 5, "name": "energy_consumption", "url": "http://s/tablemodelview/edit/5"},
        "source": {"kind": "physical", "database": "Energy", "schema": "main", "table": "energy_consumption"},
        "columns": [
            {"name": "date", "type": "DATE", "is_dttm": True},
            {"name": "consumption_mwh", "type": "FLOAT", "is_dttm": False},
        ],
        "metrics": [{"name": "total", "expression": "SUM(a) || 'x'"}],
        "dependents": {"charts": [], "dashboards": []},
        "review": {},
    }
    html = markdown_html(answer_from_result("get_dataset_details", result, language))

    assert f"<th>{text(language, 'Column')}</th>" in html
    assert f"<th>{text(language, 'Type')}</th>" in html
    assert f"<td>date</td>\n<td>DATE · {text(language, 'time')}</td>" in html
    assert "<td>consumption_mwh</td>\n<td>FLOAT</td>" in html
    assert "<td>total</td>\n<td><code>SUM(a) || 'x'</code></td>" in html
    assert '<a href="/datasets/5/?env_id=ss-dev"' in html
