"""Rule-based chart descriptions: the offline engine of run_llm_documentation (DESIGN §8, §11; issue 5).

A description is built from what the chart's metadata says (see ``agentchat.review.rules`` for the shape): its
visualisation type, metrics, dimensions, time grain and dataset. Nothing is invented beyond those facts.
"""

from typing import Any

MAX_DESCRIPTION_CHARS = 500

# Superset viz_type: (ru, en)
VIZ_LABELS: dict[str, tuple[str, str]] = {
    "echarts_timeseries_line": ("Линейный график", "Line chart"),
    "echarts_timeseries_smooth": ("Сглаженный линейный график", "Smooth line chart"),
    "echarts_timeseries_step": ("Ступенчатый график", "Stepped line chart"),
    "echarts_timeseries_bar": ("Столбчатая диаграмма", "Bar chart"),
    "echarts_timeseries_scatter": ("Точечный график", "Scatter plot"),
    "echarts_area": ("Диаграмма с областями", "Area chart"),
    "mixed_timeseries": ("Комбинированный график", "Mixed chart"),
    "line": ("Линейный график", "Line chart"),
    "bar": ("Столбчатая диаграмма", "Bar chart"),
    "dist_bar": ("Столбчатая диаграмма", "Bar chart"),
    "pie": ("Круговая диаграмма", "Pie chart"),
    "table": ("Таблица", "Table"),
    "pivot_table_v2": ("Сводная таблица", "Pivot table"),
    "big_number_total": ("Показатель", "Big number"),
    "big_number": ("Показатель с динамикой", "Big number with trendline"),
    "heatmap_v2": ("Тепловая карта", "Heatmap"),
    "histogram_v2": ("Гистограмма", "Histogram"),
    "box_plot": ("Диаграмма размаха", "Box plot"),
    "treemap_v2": ("Древовидная карта", "Treemap"),
    "sunburst_v2": ("Диаграмма «солнечные лучи»", "Sunburst chart"),
    "funnel": ("Воронка", "Funnel chart"),
    "gauge_chart": ("Индикатор", "Gauge"),
    "word_cloud": ("Облако слов", "Word cloud"),
    "world_map": ("Карта мира", "World map"),
    "country_map": ("Карта страны", "Country map"),
    "sankey_v2": ("Диаграмма Санкея", "Sankey diagram"),
    "radar": ("Радарная диаграмма", "Radar chart"),
    "bubble_v2": ("Пузырьковая диаграмма", "Bubble chart"),
}
TIME_GRAINS: dict[str, tuple[str, str]] = {
    "PT1M": ("по минутам", "per minute"),
    "PT1H": ("по часам", "hourly"),
    "P1D": ("по дням", "daily"),
    "P1W": ("по неделям", "weekly"),
    "P1M": ("по месяцам", "monthly"),
    "P3M": ("по кварталам", "quarterly"),
    "P1Y": ("по годам", "yearly"),
}


def chart_description(chart: dict[str, Any], dataset_name: str | None, language: str) -> str:
    """Return a one-sentence description of ``chart`` in ``language`` (``ru``/``en``), ≤ ``MAX_DESCRIPTION_CHARS``.

    Example (ru): «Линейный график: Потребление, МВт·ч в разрезе date, по месяцам. Источник — датасет
    «energy_consumption».»
    """
    ru = language != "en"
    viz = chart.get("viz_type") or ""
    label = VIZ_LABELS.get(viz, (f"Визуализация {viz}", f"{viz} visualisation") if viz else ("График", "Chart"))
    parts = [label[0] if ru else label[1]]
    metrics = ", ".join(chart.get("metrics") or [])
    dimensions = ", ".join(chart.get("dimensions") or [])
    body = metrics
    if dimensions:
        body = f"{body} {'в разрезе' if ru else 'by'} {dimensions}" if body else dimensions
    grain = TIME_GRAINS.get(chart.get("time_grain") or "")
    if grain:
        body = f"{body}, {grain[0] if ru else grain[1]}" if body else (grain[0] if ru else grain[1])
    sentence = f"{parts[0]}: {body}." if body else f"{parts[0]}."
    if dataset_name:
        sentence += f" Источник — датасет «{dataset_name}»." if ru else f" Source: dataset “{dataset_name}”."
    return _clip(sentence)


def dashboard_description(metadata: dict[str, Any], language: str) -> str:
    """Return a short description of the whole dashboard: its charts and datasets, in ``language``."""
    dashboard = metadata.get("dashboard") or {}
    charts = [c.get("name") for c in metadata.get("charts") or [] if c.get("name")]
    datasets = [d.get("name") for d in metadata.get("datasets") or [] if d.get("name")]
    shown = ", ".join(f"«{c}»" for c in charts[:6]) + (" …" if len(charts) > 6 else "")
    if language == "en":
        text = f"Dashboard “{dashboard.get('title')}”: {len(charts)} charts ({shown or '—'})"
        text += f" on datasets {', '.join(datasets)}." if datasets else "."
    else:
        text = f"Дашборд «{dashboard.get('title')}»: графиков — {len(charts)} ({shown or '—'})"
        text += f", датасеты: {', '.join(datasets)}." if datasets else "."
    return _clip(text)


def _clip(text: str) -> str:
    if len(text) <= MAX_DESCRIPTION_CHARS:
        return text
    cut = text[: MAX_DESCRIPTION_CHARS - 1]
    return cut[: cut.rfind(" ")].rstrip(",;: ") + "…"
