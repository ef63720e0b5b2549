"""Questions about another object than the page's, or of another page's tool (issue 29 item 2; offline planner,
DESIGN §8): what uses a named dataset is the dashboard search by that dataset (seed Story 1 AC 3); a figure of the
data asked where the SQL tool is not offered is said to be unavailable there, with the one-click to ask it without
the page."""

import re

from agentchat.llm.offline.mentions import Mentions
from agentchat.llm.offline.sql_words import COST_ASKED, ENERGY_UNIT, PRICE_ASKED
from agentchat.llm.offline.state import Choice, Turn
from agentchat.toolset.intents import STRONG
from agentchat.toolset.reading import MAKE, read_question
from agentchat.toolset.weights import aggregate_asked
from agentchat.toolset.words import PAGE_READ

# Where a dataset is used, asked with no kind of object named ("where else is the regions dataset used?", «где ещё
# используется energy_consumption?"): its users are the dashboards built on it.
WHERE_USED = re.compile(r"\bwhere\b|(?<!\w)(где|куда)(?!\w)", re.I)


def dataset_users(turn: Turn, mentions: Mentions) -> Choice | None:
    """Which dashboards or charts use a named dataset, asked where no tool finds a dataset by its name (a
    dashboard, dataset or migration page): the dashboard search by dataset serves it (issue 29 item 2, seed Story 1
    AC 3), instead of «со страницы дашборда это недоступно» (a dataset page's own tool reads only its dataset: a
    fresh check's "which dashboards use the energy_consumption dataset?" there was refused for the page)."""
    reading = read_question(turn.question)
    if reading.verb == MAKE or mentions.sql:  # «создай датасет X на основе запроса select …»: a dataset made
        return None
    objects = set(reading.objects)
    asked = {"dashboards", "dashboard", "chart"} & objects or WHERE_USED.search(turn.question)
    dataset_tools = {"search_datasets", "get_dataset_details"} & set(turn.tools)
    if mentions.used_dataset and asked and "search_dashboards" in turn.tools and not dataset_tools:
        return Choice("tool", "search_dashboards", rules=STRONG)
    return None


# A count of objects (a page's parts, dashboards), not of the data: «сколько графиков по датасетам?».
OBJECTS_COUNTED = re.compile(
    r"\b(сколько|how many|number of|count of)\s+(\w+\s+)?(график\w*|чарт\w*|дашборд\w*|датасет\w*|фильтр\w*"
    r"|владельц\w*|charts?|dashboards?|datasets?|filters?|owners?)",
    re.I,
)
DATA_MEASURE = re.compile(
    r"потребл\w*|потрачен\w*|\bconsum\w*|\bсумм\w*|\bитог\w*|\btotal\b|\bsum\b|\bavg\b|\baverage\b|средн\w*"
    r"|\b[a-z]+_[a-z]+\b",  # a column's name: «сумму cost_rub»
    re.I,
)
DURATION = re.compile(r"\d+\s*(min|mins|minutes?|мин\w*|sec\w*|сек\w*|h|hours?|час\w*)\b", re.I)


def data_figure_elsewhere(turn: Turn, choice: Choice) -> Choice | None:
    """A figure of the data (``aggregate_asked``: a total, a breakdown, a ranking, a share) asked on a page where
    the SQL tool is not offered (a dashboard's or a migration's: DESIGN §8): said to be unavailable here, with the
    one-click to ask it without the page (issue 29 item 2). The page's summary stood in for it (turns_day15: «на
    дашборде итог не сходится… посчитайте сумму cost_rub за 2024» got the dashboard's summary under «Не могу
    выполнить «посчитайте»», though the SQL tool does it from a dataset's page). Not a count of the page's own parts
    («сколько графиков по датасетам?»), nor what ``choice`` reads as another tool than the page's read (a search, a
    write) or as a request no tool does."""
    if "superset_execute_sql" in turn.tools or turn.page.object_type not in ("dashboard", "migration"):
        return None
    if choice.kind == "unsupported" or choice.kind == "tool" and choice.tool != PAGE_READ[turn.page.object_type]:
        return None  # «сделай новый график по месяцам», «закоммить …», a search: another tool was asked for
    untimed = DURATION.sub(" ", turn.question)  # "every 15 min" is a refresh's interval, no MIN() of the data
    # a measure is named: «мой дашборд по регионам туда попадает?» names a dashboard by its breakdown (turns_day8)
    measured = any(p.search(untimed) for p in (COST_ASKED, ENERGY_UNIT, PRICE_ASKED, DATA_MEASURE))
    if not measured or not aggregate_asked(untimed) or OBJECTS_COUNTED.search(untimed):
        return None
    return Choice("unavailable", "superset_execute_sql", rules=STRONG)
