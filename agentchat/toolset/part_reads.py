"""The read tool of one dashboard or dataset, or of its parts, for a reading's object, and the read of a question
that names no object (``reading.reading_tool``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentchat.toolset.words import SHOW

if TYPE_CHECKING:
    from agentchat.toolset.reading import Reading


def part_read(reading: Reading, verb: str, obj: str, object_type: str | None) -> str | None:
    """The read tool of one dashboard or dataset, or of its parts (charts, attributes, columns), or None."""
    if verb != SHOW:
        return None
    if obj == "attribute" and "dashboard" in (object_type, *reading.objects):
        return "get_health_summary"  # «владельцы?» on a dashboard page, «кто владелец дашборда X»: its summary
    if obj == "chart" and object_type in ("dashboard", "dataset"):
        # The charts of the page's dashboard are in its summary; those built on the page's dataset in its
        # description.
        return "get_health_summary" if object_type == "dashboard" else "superset_explore_database"
    if obj == "column":
        # A dataset's columns: on its page its description, by id its details; a table's: the explorer.
        by_id = reading.has_id and "dataset" in reading.objects and object_type != "dataset"
        return "get_dataset_details" if by_id else "superset_explore_database"
    if obj == "dashboard":
        if reading.find and not reading.has_id:
            return "search_dashboards"
        if object_type == "dashboard" or reading.has_id or reading.named:
            return "get_health_summary"  # a named one: searched for first (``weights.first_step``)
    if obj == "dataset":
        if reading.find and not reading.has_id:
            return "search_datasets"
        if object_type == "dataset":
            return "superset_explore_database"
        return "get_dataset_details" if reading.has_id or reading.named else "search_datasets"
    return None


def no_object_read(reading: Reading, verb: str, objects: tuple[str, ...], object_type: str | None) -> str | None:
    """The read a question with no object word asks for, or None:

    - a «title» looked up («есть ли «Обзор регионов» в ss-dev?», "is "Обзор регионов" in prod?"): the page kind's
      search, dashboards elsewhere (a QA check: not understood, or the list of environments);
    - the environment itself ("where is staging hosted?"), not "first 5 rows of energy_consumption on dev" (a
      table's rows there).
    """
    if verb != SHOW or objects:
        return None
    if reading.named and (reading.find or reading.env_named) and not reading.has_id:
        return "search_datasets" if object_type == "dataset" else "search_dashboards"
    if reading.env_named and not reading.rows:
        return "list_environments"
    return None
