"""Rule-based review and description templates (the offline engines of the LLM review tools)."""

import pytest

from agentchat.review.docs import MAX_DESCRIPTION_CHARS, chart_description, dashboard_description
from agentchat.review.rules import findings_summary, name_language, names_language, review_findings
from tests.support.wording import plural, plural_forms, ptext, text


def chart(chart_id: int, name: str, *, dataset_id: int = 1, description: str | None = "ok", **extra) -> dict:
    return {"id": chart_id, "name": name, "dataset_id": dataset_id, "description": description, **extra}


def metadata(
    charts: list[dict],
    *,
    filters: list[dict] | None = None,
    datasets: list[dict] | None = None,
    title: str = "Отчёт по энергии",
    owners: list[str] | None = None,
) -> dict:
    return {
        "dashboard": {
            "id": 10,
            "title": title,
            "owners": ["Admin User"] if owners is None else owners,
            "native_filters": filters or [],
        },
        "charts": charts,
        "datasets": datasets if datasets is not None else [{"id": 1, "name": "energy", "owners": ["Admin User"]}],
    }


def by_rule(findings: list[dict], rule: str) -> set:
    return {f["object_id"] for f in findings if f["rule"] == rule}


@pytest.mark.parametrize(
    ("name", "language"),
    [
        ("Потребление по месяцам", "ru"),
        ("Consumption by month", "en"),
        ("Потребление by region", "mixed"),
        ("KPI по регионам", "ru"),
        ("Потребление, MWh", "ru"),
        ("Pоссия", "mixed"),  # Latin P in a Russian word
        ("2024", None),
        ("", None),
    ],
)
def test_name_language(name, language):
    assert name_language(name) == language


def test_names_language_is_the_majority():
    assert names_language(["Отчёт", "Графики", "Sales"]) == "ru"
    assert names_language(["Sales", "Costs", "Отчёт"]) == "en"
    assert names_language(["2024"]) is None


def test_a_clean_dashboard_has_no_findings():
    meta = metadata([chart(1, "Потребление по месяцам"), chart(2, "Потребление по регионам")])
    assert review_findings(meta) == []
    assert findings_summary([], "ru", title="Отчёт") == text("ru", "No findings in “%(title)s”.", title="Отчёт")
    assert findings_summary([], "en") == "No findings."


def test_charts_without_description_are_flagged_by_id():
    meta = metadata([chart(1, "Цены", description=None), chart(2, "Объёмы", description="  "), chart(3, "Доли")])
    assert by_rule(review_findings(meta), "chart_without_description") == {1, 2}


def test_datasets_and_dashboard_without_owners():
    datasets = [{"id": 1, "name": "energy", "owners": []}, {"id": 2, "name": "regions", "owners": ["A"]}]
    findings = review_findings(metadata([chart(1, "Цены")], datasets=datasets, owners=[]))
    assert by_rule(findings, "dataset_without_owners") == {1}
    assert by_rule(findings, "dashboard_without_owners") == {10}


@pytest.mark.parametrize(
    ("flt", "unused"),
    [
        ({"dataset_ids": [2]}, True),  # its dataset is on no chart
        ({"dataset_ids": [1]}, False),
        ({"dataset_ids": [1], "charts_in_scope": []}, True),  # scoped to nothing
        ({"dataset_ids": [1], "excluded": [1, 2]}, True),  # every chart excluded
        ({"dataset_ids": [1], "charts_in_scope": [2]}, False),
        ({"dataset_ids": []}, False),  # e.g. a time range filter: applies to every chart in scope
        ({"dataset_ids": [2], "filter_type": "DIVIDER"}, False),
    ],
)
def test_unused_native_filters(flt, unused):
    native = {"id": "NATIVE_FILTER-1", "name": "Регион", "filter_type": "filter_select", **flt}
    findings = review_findings(metadata([chart(1, "Цены"), chart(2, "Объёмы")], filters=[native]))
    assert (by_rule(findings, "unused_native_filter") == {"NATIVE_FILTER-1"}) is unused


@pytest.mark.parametrize(
    "name",
    ["Untitled", "[ untitled dashboard ]", "New chart", "Без названия", "График 1", "Copy of Sales", "Копия отчёта"],
)
def test_default_names_are_flagged(name):
    assert by_rule(review_findings(metadata([chart(5, name)])), "default_name") == {5}


@pytest.mark.parametrize("name", ["Потребление по месяцам", "Chart of sales by region", "Тестирование спроса"])
def test_meaningful_names_are_not_default(name):
    assert by_rule(review_findings(metadata([chart(5, name)])), "default_name") == set()


def test_duplicate_chart_names_ignore_case_and_spacing():
    meta = metadata([chart(1, "Цены по регионам"), chart(2, "цены  по регионам"), chart(3, "Объёмы")])
    assert by_rule(review_findings(meta), "duplicate_chart_name") == {1, 2}


def test_mixed_and_inconsistent_languages():
    meta = metadata([chart(1, "Цены by region"), chart(2, "Объёмы"), chart(3, "Sales")])
    findings = review_findings(meta)
    assert by_rule(findings, "mixed_language_name") == {1}
    assert by_rule(findings, "inconsistent_language") == {10}
    summary_en = findings_summary(findings, "en", title="Energy")
    assert summary_en.startswith("2 findings in “Energy”:")
    assert "names mixing languages — 1" in summary_en
    assert f"{text('ru', 'names mixing languages')} — 1" in findings_summary(findings, "ru")


@pytest.mark.parametrize("n", [1, 2, 5, 21])
def test_findings_summary_counts_with_plural_forms(n):
    """«1 замечание», «2 замечания», «5 замечаний», «21 замечание»: the catalogue's form for ``n``, in both
    languages."""
    findings = [{"rule": "chart_without_description"}] * n
    singular, plural_ = "%(count)d finding in “%(title)s”: %(parts)s.", "%(count)d findings in “%(title)s”: %(parts)s."
    for language in ("ru", "en"):
        parts = f"{text(language, 'charts without a description')} — {n}"
        expected = plural(language, singular, plural_, n, title="Отчёт", parts=parts)
        assert findings_summary(findings, language, title="Отчёт") == expected
    one, few, many, twenty_one = plural_forms("ru", singular, plural_)
    assert len({one, few, many}) == 3
    assert twenty_one == one


def test_findings_are_written_in_the_language_of_the_dashboards_names():
    """Russian names → Russian messages, English names → English ones, whatever the user writes in."""
    russian = metadata([chart(1, "Цены", description=None)])
    english = metadata([chart(1, "Prices", description=None)], title="Energy report")
    (ru,) = review_findings(russian)
    (en,) = review_findings(english)
    params = {"name": "Цены", "id": 1}
    assert ru["language"] == "ru"
    assert ru["message"] == text("ru", "Chart “%(name)s” (id %(id)s) has no description.", **params)
    assert en["language"] == "en"
    assert en["message"] == "Chart “Prices” (id 1) has no description."
    assert ru["message"] != text("en", "Chart “%(name)s” (id %(id)s) has no description.", **params)


def test_every_finding_has_a_message_and_severity():
    meta = metadata([chart(1, "Untitled", description=None), chart(2, "Untitled")], owners=[])
    for finding in review_findings(meta):
        assert finding["message"]
        assert finding["language"] in ("ru", "en")
        assert finding["severity"] in ("warning", "info")


def test_chart_description_is_built_from_the_charts_facts():
    facts = chart(
        1,
        "Потребление",
        viz_type="echarts_timeseries_bar",
        metrics=["SUM(consumption_mwh)"],
        dimensions=["date", "region"],
        time_grain="P1M",
    )
    ru = chart_description(facts, "energy_consumption", "ru")
    body = text("ru", "%(metrics)s by %(dimensions)s", metrics="SUM(consumption_mwh)", dimensions="date, region")
    source = text("ru", "Source: dataset “%(dataset)s”.", dataset="energy_consumption")
    bar, monthly = ptext("ru", "chart type", "Bar chart"), ptext("ru", "time grain", "monthly")
    assert ru == f"{bar}: {body}, {monthly}. {source}"
    assert ru != chart_description(facts, "energy_consumption", "en")  # translated, not the msgids
    en = chart_description(facts, "energy_consumption", "en")
    assert en == "Bar chart: SUM(consumption_mwh) by date, region, monthly. Source: dataset “energy_consumption”."


def test_description_of_unknown_viz_and_long_metric_lists():
    facts = chart(1, "x", viz_type="my_plugin", metrics=[f"metric_{i}" for i in range(200)])
    description = chart_description(facts, None, "en")
    assert description.startswith("my_plugin visualisation: metric_0, metric_1")
    assert len(description) <= MAX_DESCRIPTION_CHARS
    assert description.endswith("…")


def test_dashboard_description_names_charts_and_datasets():
    description = dashboard_description(metadata([chart(1, "Цены"), chart(2, "Объёмы")]), "ru")
    assert description == plural(
        "ru",
        "Dashboard “%(title)s”: %(count)d chart (%(charts)s) on datasets %(datasets)s.",
        "Dashboard “%(title)s”: %(count)d charts (%(charts)s) on datasets %(datasets)s.",
        2,
        title="Отчёт по энергии",
        charts="«Цены», «Объёмы»",
        datasets="energy",
    )
