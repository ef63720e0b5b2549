"""Superset's chart types by the names people see in Superset, not by their code (issue 30 item 1).

A chart's ``viz_type`` is a plugin key (``echarts_timeseries_line``, ``pie``); Superset's chart gallery calls them
"Line Chart", "Pie Chart". The English names are the plugins' own (superset-frontend ``plugins/*/src/**/index.ts``
``metadata.name``); the Russian ones in ``locale/ru`` follow Superset's own Russian catalogue
(``superset/translations/ru/LC_MESSAGES/messages.po``) where it has one. A type missing here is shown by its code.
"""

from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy

VIZ_TYPE_NAMES: dict[str, Promise] = {
    "echarts_timeseries_line": pgettext_lazy("chart type", "Line Chart"),
    "echarts_timeseries_bar": pgettext_lazy("chart type", "Bar Chart"),
    "echarts_timeseries_smooth": pgettext_lazy("chart type", "Smooth Line"),
    "echarts_timeseries_step": pgettext_lazy("chart type", "Stepped Line"),
    "echarts_timeseries_scatter": pgettext_lazy("chart type", "Scatter Plot"),
    "echarts_timeseries": pgettext_lazy("chart type", "Generic Chart"),
    "echarts_area": pgettext_lazy("chart type", "Area Chart"),
    "mixed_timeseries": pgettext_lazy("chart type", "Mixed Chart"),
    "pie": pgettext_lazy("chart type", "Pie Chart"),
    "big_number_total": pgettext_lazy("chart type", "Big Number"),
    "big_number": pgettext_lazy("chart type", "Big Number with Trendline"),
    "pop_kpi": pgettext_lazy("chart type", "Big Number with Time Period Comparison"),
    "table": pgettext_lazy("chart type", "Table"),
    "ag-grid-table": pgettext_lazy("chart type", "Table"),
    "pivot_table_v2": pgettext_lazy("chart type", "Pivot Table"),
    "time_table": pgettext_lazy("chart type", "Time-series Table"),
    "time_pivot": pgettext_lazy("chart type", "Time-series Period Pivot"),
    "funnel": pgettext_lazy("chart type", "Funnel Chart"),
    "gauge_chart": pgettext_lazy("chart type", "Gauge Chart"),
    "treemap_v2": pgettext_lazy("chart type", "Treemap"),
    "sunburst_v2": pgettext_lazy("chart type", "Sunburst Chart"),
    "heatmap_v2": pgettext_lazy("chart type", "Heatmap"),
    "cal_heatmap": pgettext_lazy("chart type", "Calendar Heatmap"),
    "histogram_v2": pgettext_lazy("chart type", "Histogram"),
    "box_plot": pgettext_lazy("chart type", "Box Plot"),
    "bubble_v2": pgettext_lazy("chart type", "Bubble Chart"),
    "word_cloud": pgettext_lazy("chart type", "Word Cloud"),
    "world_map": pgettext_lazy("chart type", "World Map"),
    "country_map": pgettext_lazy("chart type", "Country Map"),
    "radar": pgettext_lazy("chart type", "Radar Chart"),
    "graph_chart": pgettext_lazy("chart type", "Graph Chart"),
    "sankey_v2": pgettext_lazy("chart type", "Sankey Chart"),
    "tree_chart": pgettext_lazy("chart type", "Tree Chart"),
    "waterfall": pgettext_lazy("chart type", "Waterfall Chart"),
    "gantt_chart": pgettext_lazy("chart type", "Gantt Chart"),
    "bullet": pgettext_lazy("chart type", "Bullet Chart"),
    "horizon": pgettext_lazy("chart type", "Horizon Chart"),
    "partition": pgettext_lazy("chart type", "Partition Chart"),
    "chord": pgettext_lazy("chart type", "Chord Diagram"),
    "rose": pgettext_lazy("chart type", "Nightingale Rose Chart"),
    "para": pgettext_lazy("chart type", "Parallel Coordinates"),
    "paired_ttest": pgettext_lazy("chart type", "Paired t-test Table"),
    "handlebars": pgettext_lazy("chart type", "Handlebars"),
}


def viz_type_name(viz_type: object) -> str:
    """The name people see in Superset for the chart type ``viz_type``, in the active language.

    Args:
        viz_type: Superset's ``viz_type`` (``"pie"``); None or an empty value reads ``?``.

    Returns:
        «Круговая диаграмма» / "Pie Chart"; a type this module does not know is returned as its code.
    """
    if not viz_type:
        return "?"
    name = VIZ_TYPE_NAMES.get(str(viz_type))
    return str(name) if name is not None else str(viz_type)
