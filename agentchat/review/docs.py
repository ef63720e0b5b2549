"""Rule-based chart descriptions: the offline engine of run_llm_documentation (DESIGN §8, §11; issue 5).

A description is built from what the chart's metadata says (see ``agentchat.review.rules`` for the shape): its
visualisation type, metrics, dimensions, time grain and dataset. Nothing is invented beyond those facts.
"""

from typing import TYPE_CHECKING, Any

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext, pgettext_lazy

if TYPE_CHECKING:  # the stubs' type of a text or a lazy msgid (django-stubs-ext is a dev dependency)
    from django_stubs_ext import StrOrPromise

MAX_DESCRIPTION_CHARS = 500

# Superset viz_type: its name for people
VIZ_LABELS: dict[str, "StrOrPromise"] = {
    "echarts_timeseries_line": pgettext_lazy("chart type", "Line chart"),
    "echarts_timeseries_smooth": pgettext_lazy("chart type", "Smooth line chart"),
    "echarts_timeseries_step": pgettext_lazy("chart type", "Stepped line chart"),
    "echarts_timeseries_bar": pgettext_lazy("chart type", "Bar chart"),
    "echarts_timeseries_scatter": pgettext_lazy("chart type", "Scatter plot"),
    "echarts_area": pgettext_lazy("chart type", "Area chart"),
    "mixed_timeseries": pgettext_lazy("chart type", "Mixed chart"),
    "line": pgettext_lazy("chart type", "Line chart"),
    "bar": pgettext_lazy("chart type", "Bar chart"),
    "dist_bar": pgettext_lazy("chart type", "Bar chart"),
    "pie": pgettext_lazy("chart type", "Pie chart"),
    "table": pgettext_lazy("chart type", "Table"),
    "pivot_table_v2": pgettext_lazy("chart type", "Pivot table"),
    "big_number_total": pgettext_lazy("chart type", "Big number"),
    "big_number": pgettext_lazy("chart type", "Big number with trendline"),
    "heatmap_v2": pgettext_lazy("chart type", "Heatmap"),
    "histogram_v2": pgettext_lazy("chart type", "Histogram"),
    "box_plot": pgettext_lazy("chart type", "Box plot"),
    "treemap_v2": pgettext_lazy("chart type", "Treemap"),
    "sunburst_v2": pgettext_lazy("chart type", "Sunburst chart"),
    "funnel": pgettext_lazy("chart type", "Funnel chart"),
    "gauge_chart": pgettext_lazy("chart type", "Gauge"),
    "word_cloud": pgettext_lazy("chart type", "Word cloud"),
    "world_map": pgettext_lazy("chart type", "World map"),
    "country_map": pgettext_lazy("chart type", "Country map"),
    "sankey_v2": pgettext_lazy("chart type", "Sankey diagram"),
    "radar": pgettext_lazy("chart type", "Radar chart"),
    "bubble_v2": pgettext_lazy("chart type", "Bubble chart"),
}
TIME_GRAINS: dict[str, "StrOrPromise"] = {
    "PT1M": pgettext_lazy("time grain", "per minute"),
    "PT1H": pgettext_lazy("time grain", "hourly"),
    "P1D": pgettext_lazy("time grain", "daily"),
    "P1W": pgettext_lazy("time grain", "weekly"),
    "P1M": pgettext_lazy("time grain", "monthly"),
    "P3M": pgettext_lazy("time grain", "quarterly"),
    "P1Y": pgettext_lazy("time grain", "yearly"),
}


def chart_description(chart: dict[str, Any], dataset_name: str | None, language: str) -> str:
    """Return a one-sentence description of ``chart`` in ``language`` (``ru``/``en``), ≤ ``MAX_DESCRIPTION_CHARS``.

    Example (ru): «Линейный график: Потребление, МВт·ч в разрезе date, по месяцам. Источник — датасет
    «energy_consumption».»
    """
    with translation.override(language):
        viz = chart.get("viz_type") or ""
        if viz in VIZ_LABELS:
            label = str(VIZ_LABELS[viz])
        else:
            label = _("%(viz)s visualisation") % {"viz": viz} if viz else pgettext("chart description", "Chart")
        body = ", ".join(chart.get("metrics") or [])
        dimensions = ", ".join(chart.get("dimensions") or [])
        if dimensions:
            body = (
                _("%(metrics)s by %(dimensions)s") % {"metrics": body, "dimensions": dimensions} if body else dimensions
            )
        grain = TIME_GRAINS.get(chart.get("time_grain") or "")
        if grain:
            body = f"{body}, {grain}" if body else str(grain)
        sentence = f"{label}: {body}." if body else f"{label}."
        if dataset_name:
            sentence += " " + _("Source: dataset “%(dataset)s”.") % {"dataset": dataset_name}
    return _clip(sentence)


def dashboard_description(metadata: dict[str, Any], language: str) -> str:
    """Return a short description of the whole dashboard: its charts and datasets, in ``language``."""
    dashboard = metadata.get("dashboard") or {}
    charts = [c.get("name") for c in metadata.get("charts") or [] if c.get("name")]
    datasets = [d.get("name") for d in metadata.get("datasets") or [] if d.get("name")]
    shown = ", ".join(f"«{c}»" for c in charts[:6]) + (" …" if len(charts) > 6 else "")
    params = {
        "title": dashboard.get("title"),
        "count": len(charts),
        "charts": shown or "—",
        "datasets": ", ".join(datasets),
    }
    with translation.override(language):
        if datasets:
            text = ngettext(
                "Dashboard “%(title)s”: %(count)d chart (%(charts)s) on datasets %(datasets)s.",
                "Dashboard “%(title)s”: %(count)d charts (%(charts)s) on datasets %(datasets)s.",
                len(charts),
            )
        else:
            text = ngettext(
                "Dashboard “%(title)s”: %(count)d chart (%(charts)s).",
                "Dashboard “%(title)s”: %(count)d charts (%(charts)s).",
                len(charts),
            )
        return _clip(text % params)


def _clip(text: str) -> str:
    if len(text) <= MAX_DESCRIPTION_CHARS:
        return text
    cut = text[: MAX_DESCRIPTION_CHARS - 1]
    return cut[: cut.rfind(" ")].rstrip(",;: ") + "…"
