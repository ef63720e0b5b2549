"""What the offline planner says about an aspect no tool returns (issue 29 item 1; ``toolset/aspects.yaml``): one
sentence that it cannot serve it, then what it shows instead (the nearest read tool's answer) or what it can do
here. Each aspect's words for people are here, as gettext texts (English msgids, Russian in ``locale/ru``).
"""

from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agentchat.language import in_language
from agentchat.runtime.titles import tool_title
from agentchat.toolset.aspects import UNHEARD, UNHEARD_ACTION, Aspect

# What a question asks about (after «none of my tools returns …»), or an action (after «I cannot …»).
ASPECT_TITLES: dict[str, Promise] = {
    "schedule": gettext_lazy("schedule work for later or to repeat"),
    "notify": gettext_lazy("send notifications"),
    "run_variant": gettext_lazy(
        "run a deploy or migration only in part, without overwriting, with owners or rights, locked or in parallel "
        "(it moves whole dashboards with their charts and datasets and overwrites them)"
    ),
    "export_file": gettext_lazy("export a dashboard or a chart to PDF, an image, a presentation or CSV"),
    "users_admin": gettext_lazy("manage Superset users and passwords"),
    "cache_action": gettext_lazy("clear or warm up caches"),
    "settings_change": gettext_lazy("change these settings in Superset (refresh, timeouts, tags, time zone, sharing)"),
    "views": gettext_lazy("view logs (who opened it, how often)"),
    "favourites": gettext_lazy("who marked it as a favourite"),
    "duration": gettext_lazy("load and run times"),
    "cache": gettext_lazy("cache settings and refresh times"),
    "reports": gettext_lazy("e-mail reports and alerts"),
    "tags": gettext_lazy("tags"),
    "native_filters": gettext_lazy("the dashboard's filters"),
    "appearance": gettext_lazy("colours, theme and layout"),
    "created_on": gettext_lazy("the creation date"),
    "chart_detail": gettext_lazy("a single chart's own settings and history (its SQL, grouping, editors, errors)"),
    "object_history": gettext_lazy("the history of changes"),
    "commit_log": gettext_lazy("the commit history"),
    "row_security": gettext_lazy("row-level security rules"),
    "query_usage": gettext_lazy("the query history and who runs the queries"),
    "saved_queries": gettext_lazy("queries saved in SQL Lab"),
    "upgrade": gettext_lazy("upgrade or reconfigure Superset itself"),
    "favourite_action": gettext_lazy("add it to your favourites"),
    "lineage": gettext_lazy("where the data comes from outside Superset (ETL, source systems)"),
    "storage": gettext_lazy("storage sizes"),
    "connection": gettext_lazy("connection strings and credentials"),
    "number_format": gettext_lazy("number formats"),
    "superset_version": gettext_lazy("Superset's version"),
    "costs": gettext_lazy("costs"),
    "infrastructure": gettext_lazy("the state of Superset's servers, workers and settings"),
    "sessions": gettext_lazy("who is signed in now"),
    "server_logs": gettext_lazy("Superset's server logs"),
    "llm_usage": gettext_lazy("the language model's usage"),
    "downtime": gettext_lazy("downtime estimates"),
    "approval": gettext_lazy("who approved or wrote a plan"),
    "past_state": gettext_lazy("past states of objects"),
    "embedding_sharing": gettext_lazy("embedding and sharing settings"),
    "refresh_interval": gettext_lazy("automatic refresh intervals"),
    "annotations": gettext_lazy("annotation layers"),
    "locale": gettext_lazy("time zones and translations"),
    "data_freshness": gettext_lazy("when the data was last loaded"),
    "table_structure": gettext_lazy("keys, indexes and partitions of tables"),
    "db_engine": gettext_lazy("database engine versions and drivers"),
    "limits": gettext_lazy("timeouts and row limits"),
    "users_list": gettext_lazy("the list of users and their sign-ins"),
    "plugins": gettext_lazy("installed plugins and chart types"),
    "comments": gettext_lazy("comments and notes"),
    "retention": gettext_lazy("how long things are kept"),
    "cause": gettext_lazy("reasons (the why of it)"),
    "time_range": gettext_lazy("default time ranges"),
    "templating": gettext_lazy("Jinja templates"),
    "backup_schedule": gettext_lazy("backup schedules"),
    "column_meaning": gettext_lazy("what a column means beyond its name, type and description (units, taxes, period)"),
}


def cannot_text(aspect: Aspect, language: str) -> str:
    """The one sentence saying that ``aspect`` cannot be served, in ``language``."""
    with in_language(language):
        if aspect.name == UNHEARD:  # a word nobody asked a tool about: hedged, it may be a word for a served thing
            return _("If you are asking about “%(word)s”: none of my tools returns that.") % {"word": aspect.about}
        if aspect.name == UNHEARD_ACTION:  # a request's verb no tool was ever asked to do
            return _("I cannot do “%(verb)s”: none of my tools does that, and I changed nothing.") % {
                "verb": aspect.about
            }
        title = str(ASPECT_TITLES.get(aspect.name, aspect.about))
        if aspect.kind == "action":
            return _("I cannot %(aspect)s: I have no tool for it, and I changed nothing.") % {"aspect": title}
        return _("I cannot answer that: none of my tools returns %(aspect)s.") % {"aspect": title}


def instead_text(tool: str, language: str) -> str:
    """The line before the nearest read tool's answer shown instead: what it is, by the tool's title."""
    with in_language(language):
        return _("Instead, here is what I can show (%(title)s):") % {"title": tool_title(tool, language)}
