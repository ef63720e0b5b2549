"""Rule weights from a question's reading, for the tool router (DESIGN §12; issue 16).

``intent_scores`` turns the (verb, object) reading of ``agentchat.toolset.reading`` into rule weights in the units
of ``intents`` (cosine units); the weights only add to the similarity and the keyword rules, so a question the
rules already place stays placed. ``first_step`` names the tool the planner calls before another one (a search
for a named object, a migration's preview), which the router keeps next to it.
"""

import re

from agentchat.toolset.clauses import PREVIEW_SEEN, question_after_context, question_before_context
from agentchat.toolset.listing import VALUES_LISTED
from agentchat.toolset.reading import READING_WEIGHT, Reading, about_page_object, read_question, reading_tool
from agentchat.toolset.words import (
    BY_ID,
    CHECK,
    COUNT,
    COUNT_CONDITION,
    DATA_UNTIL,
    FIRST_ROWS,
    FIRST_STEP,
    GENERIC,
    IDENTIFIER,
    MAKE,
    ONE_OBJECT,
    PAGE_STAND_INS,
    PERIODS_PLURAL,
    READINGS,
    SEARCH_OF,
    SHOW,
    SQL_IN_TEXT,
    TARGETING,
    TITLE_QUOTED,
    TITLED,
    VALUES,
)


def intent_scores(question: str, object_type: str | None) -> dict[str, float]:
    """Rule weights from the question's reading (positive for the tool it asks for, negative for the ones it
    rules out).

    The verb decides between the tools of one object: the reading's tool gets ``+READING_WEIGHT`` and the same
    object's tool for the other verb (make ↔ show: run_backup ↔ list_backups) ``−READING_WEIGHT``; a check
    followed by a clause takes the weight from the review run; on a page whose object the question points at
    («какие датасеты под этим дашбордом»), the searches for other objects lose it. Where the page does not offer
    the reading's tool, the tool that reports the same state there (``PAGE_STAND_INS``) gets its weight.

    Returns:
        ``{tool name: weight}`` (empty when the reading names no tool).
    """
    reading = read_question(question)
    tool = reading_tool(reading, object_type)
    if not tool:
        return {}
    scores = {tool: READING_WEIGHT}
    stand_in = PAGE_STAND_INS.get((object_type or "", tool))
    if stand_in:  # the page does not offer the tool; the one that reports the same state gets its weight
        scores[stand_in] = READING_WEIGHT
    if FIRST_STEP.get(tool):
        scores[FIRST_STEP[tool]] = READING_WEIGHT / 2
    for (verb, obj), other in READINGS.items():
        if obj in reading.objects and verb != (reading.verb or SHOW) and other not in scores:
            if other != FIRST_STEP.get(tool) and (verb, obj) != (SHOW, "agent"):
                scores[other] = -READING_WEIGHT
    if reading.check_clause or (reading.verb == CHECK and tool != "run_llm_validation"):
        scores.setdefault("run_llm_validation", -READING_WEIGHT)
    if about_page_object(reading, object_type):
        for plural, search in (("dashboards", "search_dashboards"), ("datasets", "search_datasets")):
            if plural in reading.objects and search != tool:
                scores[search] = -READING_WEIGHT
    for obj in (*reading.objects, *reading.places):
        # A generic object that is not what the question is about («… в схеме main») loses its tool's weight.
        generic = READINGS.get((SHOW, obj)) or ("superset_explore_database" if obj == "column" else None)
        if obj in GENERIC and generic and generic not in scores:
            scores[generic] = -READING_WEIGHT
    _one_object_scores(reading, object_type, tool, scores)
    if reading.verb == MAKE and tool != "show_capabilities":
        scores.setdefault("show_capabilities", -READING_WEIGHT)  # a request to act is not about the agent
    return scores


# A table's identifier in a question (``energy_consumption``), or a table said to be one ("the regions table"):
# a dataset named without the noun.
TABLE_NAME = re.compile(rf"\b{IDENTIFIER}\b|\btables?\b|\bтаблиц\w*")
# A table whose rows are counted by a plain name ("how many rows are in regions on prod?"), not an environment's.
ROWS_IN = (
    r"\b(?:rows|records|строк\w*|записей)\s+(?:are\s+|is\s+|there\s+)?(?:in|в)\s+(?:the\s+)?"
    r"(?!(?:prod|production|staging|stage|dev|this|that|it)\b)([A-Za-z_]\w*)(?![\w-])"
)


# All the rows asked for («выведи из regions все строки», "show the whole table"): no LIMIT is written, the SQL tool's
# row cap applies and its answer says when rows were left out (turns_day6 y52).
ALL_ROWS = re.compile(
    r"\b(все|всю)\s+(строки|записи|таблицу|данные)\b|\ball (the )?(rows|records|data)\b|\b(whole|entire|full) table\b"
    r"|таблиц\w* целиком",
    re.I,
)
# A column or metric of a table named after it («у каких колонок в regions нет описаний», "the avg_price metric in
# energy_consumption"): the table is the dataset asked about, not the column (turns_day6 y06, y37).
PART_OF_TABLE = (
    r"(?:колон\w*|столбц\w*|метрик\w*|\bcolumns?|\bmetrics?|\bfields?)\b(?:\s+[A-Za-z_]\w*)?\s+(?:в|во|из|in|of|from)"
    r"\s+(?:the\s+)?(?:датасет\w*\s+|таблиц\w*\s+|dataset\s+|table\s+)?(?!(?:prod|dev|staging|this|that|it)\b)"
    r"([A-Za-z_]\w*)"
)
# A column's largest or smallest value written as SQL («max(date) in prod», "min(cost_rub)?").
EXTREME = re.compile(r"\b(max|min)\s*\(\s*([A-Za-z_]\w*)\s*\)", re.I)
# The latest or earliest date in words («макс дату глянь», "what's the latest date?"): the MAX or MIN of the dataset's
# date column (turns_day6 y71). A column named after "max" in words is not read: its SQL is asked for, as before.
LATEST_DATE = re.compile(
    r"\b(max|макс\w*|latest|newest|last|последн\w*|свеж\w*)\s+(date|дат\w*)"
    r"|\b(min|мин\w*|earliest|oldest|first|перв\w*|ранн\w*|стар\w*)\s+(date|дат\w*)",
    re.I,
)


def extreme_asked(question: str) -> tuple[str, str | None] | None:
    """``("MAX"|"MIN", column)`` a question asks of a dataset: ``max(col)`` (``column`` as typed), or the latest /
    earliest date (``column`` None: the dataset's date column); None when it asks none."""
    if match := EXTREME.search(question):
        return match.group(1).upper(), match.group(2)
    if match := LATEST_DATE.search(question):
        return ("MAX" if match.group(1) else "MIN"), None
    return ("MAX", None) if DATA_UNTIL.search(question) else None


# A ranking asked: "top 3", «топ-5», «три … больше всего», "the most", "lowest" (read with the dataset's columns).
RANKING = re.compile(
    r"\b(top|топ)[\s-]*\d{1,3}\b|(больше|меньше|дороже|дешевле|чаще|реже)\s+(всего|всех)|наибольш\w*|наименьш\w*"
    r"|сам(ый|ая|ое|ые|ых|ым|ой|ую|ом|ыми)\s+(больш|высок|низк|дорог|дешёв|дешев|мал)\w*|\b(the\s+)?(most|least|highest|lowest|largest"
    r"|smallest|biggest)\b",
    re.I,
)
# Rows that repeat: "dupes", «дубли», "more than one row per …".
DUPLICATES = re.compile(
    r"\bdup(e|es|licate|licates|licated)\b|дубл\w*|задвоен\w*|повтор\w*\s+строк|(more than one|several|multiple)"
    r"\s+rows?\s+(per|for)\b|(больше|более)\s+одной\s+строки",
    re.I,
)


# A figure per value of a column ("how many rows per region?", «потребление в разрезе источников», «по регионам»).
BREAKDOWN = re.compile(
    r"\b(per|for each|broken down by|split by|grouped by)\s+\w+|\bв разрезе\b|\b(по|в)\s+(каждому|каждой|каждом)\b"
    # an aggregate "by" a column ("total cost by source"; a QA check asked for the SQL)
    r"|\b(total|sum|count|average|avg|mean|number of|how many)\b[\w\s]{0,30}?\bby\s+[a-z_]+"
    # «по регионам», «по федеральным округам» (an adjective before the column's word)
    rf"|\bпо\s+([а-яё]+(ым|им)\s+)?(?!{PERIODS_PLURAL}\b)[а-яё]+ам\b",
    re.I,
)


# One figure over all rows ("total cost in 2025, one number", «итого стоимость за 2025 год, без разбивки», «сколько
# потреблено всего за 2024 год»): the measure with no column to group by (turns_day11 g1149 asked for the SQL).
GRAND_TOTAL = re.compile(
    r"(?<!\w)(итого|в сумме|суммарн\w*|сумм[аыу]|одн(а|у|ой) цифр\w*|одним числом|без разбивки|всего\s+за)(?!\w)"
    r"|\bсколько\b[^.?!]{0,40}(?<!больше )(?<!меньше )(?<!\w)всего(?!\w)"  # not «всего 5 строк»: only five
    r"|\b(in total|grand total|overall|altogether|one (number|figure)|no breakdown|without (a )?breakdown|sum of)\b"
    r"|\btotal\b(?![\w\s]{0,30}?\b(by|per)\b)"
    # how much something cost or used («сколько стоил газ в 2025», «во сколько обошлась Москва», "how much did coal
    # cost"): one figure, its conditions read from the dataset's values (llm.offline.sql_values)
    r"|\bсколько\s+(\w+\s+){0,2}?(стоил\w*|потратил\w*|заплатил\w*|потребил\w*|израсходовал\w*)|\bво\s+сколько\s+обош\w*"
    # a quantity asked in its unit («скок МВт·ч ушло по Татарстану», «сколько денег за 2024», "how many MWh")
    r"|(?<!\w)(сколько|скок\w*|скоко)\s+(всего\s+)?(мвт|мегаватт|квт|рубл|денег|деньж)\w*"
    r"|\bhow\s+(many|much)\s+(mwh|megawatt|kwh|rubles|roubles|money)"
    # the price of a unit («цена за мегаватт-час угля», "what did one MWh of gas cost"): one figure (the price)
    r"|\b(one|an?|1|each)\s+(mwh|kwh|megawatt)\b.{0,40}\bcost|\bprice\s+(of|per)\s+(an?\s+|one\s+)?(mwh|kwh)"
    r"|цен[аыу]\s+(за\s+)?(1\s+|один\s+)?(мвт|мегаватт|квт|киловатт)"
    r"|\bкак(ая|ой|ова)\s+(была\s+|будет\s+)?(средн\w+\s+)?цен[аы]\b|\bwhat\s+(was|is)\s+the\s+(average\s+)?price\b"
    # a measure named first («потребление Санкт-Петербурга за 2025 год», "consumption in 2024?"): its total
    r"|^\W*(потребление|стоимость|расход|затраты|consumption|cost|spending)\b"
    # "what was the cost of hydro in December 2024?", «какой была стоимость газа в 2025?»
    r"|\bwhat\s+(was|were|is|are)\s+(the\s+|our\s+)?(total\s+)?(cost|costs|consumption|spend|spending)\b"
    r"|\bкак(ой|ая|ое|ова|ово)\s+(был\w*\s+)?(общ\w+\s+|суммарн\w+\s+)?(стоимость|потребление|расход|затраты)\b"
    r"|\bhow much\b(?:\s+\w+){0,4}?\s+(cost|costs|spent|spend|paid|pay|consumed|consume|use|used)\b",
    re.I,
)


# An average, a minimum or a maximum of a column ("whats the max consumption_mwh", «средняя цена за 2025»): that
# function over all rows, or per a column's values ("average consumption_mwh by region"). Not «в среднем» / "on
# average", which qualify another figure, nor a time (run and refresh times are no column of the data).
_NOT_A_COLUMN = r"(?!\s+(\w+\s+)?(time|duration|latency|runtime|время|длительн|скорост|задержк))"
FUNCTION_ASKED = re.compile(
    rf"(?<!on )(?<!\bi )\b(average|avg|mean|min|max|minimum|maximum|мин|макс)\b{_NOT_A_COLUMN}"
    rf"|(?<!в )(?<!\w)средн\w*(?!\w){_NOT_A_COLUMN}",
    re.I,
)


# A breakdown by year, by quarter or by month («потребление по месяцам», "total cost by year", «помесячно», "year over
# year", «по кварталам»): written on the dataset's date column (``llm.offline.sql_periods``).
BY_YEAR = re.compile(
    r"\bпо\s+(\w+\s+и\s+)?годам\b|\bгод\s+к\s+году\b|\b(by|per)\s+(\w+\s+and\s+)?years?\b|\byearly\b"
    r"|\bannual(ly)?\b|\byear[- ]over[- ]year\b|\byoy\b|\bпогодов\w*",
    re.I,
)
BY_MONTH = re.compile(
    r"\bпо\s+(\w+\s+и\s+)?месяцам\b|\bпомесячн\w*|\bежемесячн\w*|\bмесяц\s+к\s+месяцу\b"
    r"|\b(by|per)\s+(\w+\s+and\s+)?months?\b|\bmonthly\b|\bmonth[- ]over[- ]month\b|\bmonth\s+by\s+month\b",
    re.I,
)
BY_QUARTER = re.compile(
    r"\bпо\s+(\w+\s+и\s+)?кварталам\b|\bпоквартальн\w*|\bежеквартальн\w*"
    r"|\b(by|per)\s+(\w+\s+and\s+)?quarters?\b|\bquarterly\b|\bquarter[- ]over[- ]quarter\b|\bqoq\b"
    r"|\bквартал\s+к\s+кварталу\b",
    re.I,
)
# How many different values a column holds («сколько регионов в данных?», «в скольких регионах есть атом?», "how
# many sources are there?"): a count of distinct values when the word names a text column of the dataset
# (``llm.offline.sql_aggregate.distinct_sql``), not rows, times or a measure.
DISTINCT_COUNT = re.compile(
    r"(?<!\w)(?:сколько|скока|скоко|скольких|число|количество)\s+(?:разных\s+|различных\s+|уникальных\s+)?"
    r"(?P<ru>(?!(?:записей|строк|раз|всего|стоил|потреб|денег|мвт|квт|рубл|тысяч|млн|процент|лет|месяц|дней)\w*)"
    r"[а-яё]{4,})"
    r"|\bhow\s+many\s+(?:different\s+|distinct\s+|unique\s+)?(?P<en>(?!rows|records|times|mwh|rubles)[a-z]{4,})",
    re.I,
)


# The period the data covers («за какой период есть данные?», «с какого числа начинаются данные и до какого идут?»,
# "what date range does this data cover?", "what years does the data cover?"): the first and last date of the
# dataset's date column (``llm.offline.sql_steps.sql_for``), not a dashboard's default time range.
DATA_SPAN = re.compile(
    r"за\s+какой\s+(период|срок)\b(?!.{0,40}(показыва|строит|отобража))|какой\s+период\s+(охватыва|покрыва|занима)\w*"
    r"|\b(с|от)\s+какого\s+(числа|года|месяца|времени)\b|\bс\s+какой\s+даты\b|\bкакие\s+годы\s+(есть|охват\w*|покрыв\w*)"
    r"|\b(what|which)\s+(date\s+range|period|time\s+span|time\s+range|years|dates)\s+(does|do|is|are)\s+(the|this|it)\b"
    r"(?=.{0,30}\b(cover|span|have|in|include)\w*)|\bhow\s+far\s+back\b|\b(earliest|first)\s+and\s+(latest|last)\s+"
    r"(date|record|row)s?\b|\bdata\s+(start|begin)s?\b|\bданн\w*\s+(начина|охватыва)\w*",
    re.I,
)


# A share of a value in a total («доля атома в потреблении Москвы», "what share of cost is gas", «сколько процентов
# потребления приходится на уголь»), not a change in per cent («на сколько процентов выросли»: asked for as SQL).
SHARE = re.compile(
    r"(?<!\w)(дол[яиюе]|share|какой\s+процент|сколько\s+процентов(?!\s+(вырос|упал|снизил|увеличил|изменил))"
    r"|what\s+percent(age)?\s+of)(?!\w)",
    re.I,
)


# A change between periods («на сколько процентов выросли затраты в 2025 по сравнению с 2024», "growth 2025 vs
# 2024"): each period's figure and the change from the one before (``sql_periods.by_period_sql``), asked with two
# years or more named (a fresh check: asked back for SQL).
CHANGE = re.compile(
    r"(?<!\w)(на сколько процент\w*|вырос\w*|выросл\w*|упал[аио]?|снизил\w*|увеличил\w*|уменьшил\w*|рост[аоу]?м?"
    r"|прирост\w*|падени\w*|сравни\w*|по сравнению|относительно)(?!\w)"
    r"|\b(grow|grew|grown|growth|increased?|decreased?|dropped|compared?|vs\.?|versus)\b",
    re.I,
)
# Two years joined by a dash («2024-2025 гг», "2024–2025"): a range (``YEAR`` reads neither: a date's part).
YEAR_SPAN = re.compile(r"(?<![\w.:/-])((?:199|20[0-3])\d)\s*[-–—]\s*((?:199|20[0-3])\d)(?![\d/_a-zA-Z]|[.:-]\d)")
YEAR = re.compile(r"(?<![\w.:/-])((?:199|20[0-3])\d)(?![\d/_a-zA-Z]|[.:-]\d)")  # «2025г.», «Москва, 2025: …» too


def years_named(question: str) -> set[str]:
    """The years ``question`` names, alone or as the ends of a range (``YEAR``, ``YEAR_SPAN``)."""
    return set(YEAR.findall(question)) | {y for span in YEAR_SPAN.findall(question) for y in span}


def change_asked(question: str) -> bool:
    """True when ``question`` asks how a figure changed between two or more years it names (``CHANGE``)."""
    return bool(CHANGE.search(question)) and len(years_named(question)) >= 2


def aggregate_asked(question: str) -> bool:
    """True when ``question`` asks a ranking, a breakdown per a column's values, a grand total or duplicates of the data
    (``llm.offline.sql_aggregate``: the dataset's columns decide whether the planner can write it)."""
    # what the question asks, not its context («…: доля пустых, дубли, по дням. есть где-то такая история?»)
    asked = question_after_context(question) or question_before_context(question) or question
    return bool(
        RANKING.search(asked)
        or DUPLICATES.search(asked)
        or BREAKDOWN.search(asked)
        or GRAND_TOTAL.search(asked)
        or FUNCTION_ASKED.search(asked)
        or BY_YEAR.search(asked)
        or BY_MONTH.search(asked)
        or BY_QUARTER.search(asked)
        or SHARE.search(asked)
        or change_asked(asked)
    )


# A metric named by its name (``total_cost``, ``avg_price``): its figure is asked.
METRIC_NAMED = re.compile(r"\b(total|avg|average|sum|max|min|mean|count)_[a-z]\w*\b", re.I)


def writes_sql(question: str) -> bool:
    """True when the planner writes the SQL for ``question`` itself from the dataset's source
    (``llm.offline.sql_steps.sql_for``): a plain count, the first rows, a column's values, its max or min, a count of
    a column's different values, the period the data covers, or a figure (``aggregate_asked``)."""
    # The condition is looked for in the count's own sentence: «скока строк в датасете? хочу сверить с выгрузкой,
    # у меня 2088» asks a plain count (2088 is the person's figure, not a year; turns_day6 y48).
    plain_count = any(
        COUNT.search(s) and not COUNT_CONDITION.search(s) for s in re.split(r"(?<=[.?!])\s+|\n", question)
    )
    rows = FIRST_ROWS.search(question) or ALL_ROWS.search(question)
    values = VALUES.search(question) or VALUES_LISTED.search(question)  # not a loose «список …»: «what does …»
    distinct = DISTINCT_COUNT.search(question) or DATA_SPAN.search(question)
    # "avg_price for Республика Татарстан in 2025?" (a QA check), not "what does avg_price compute?"
    metric = METRIC_NAMED.search(question) and years_named(question)
    return bool(
        plain_count or rows or values or distinct or metric or extreme_asked(question) or aggregate_asked(question)
    )


# A Russian title in capitals after a lower-case Russian word, with no quotes («задеплой Обзор регионов на прод»).
RUSSIAN_TITLE = re.compile(r"(?<=[а-яё] )[А-ЯЁ][а-яё]{2,}(?: [а-яё]{3,})?\b")


def first_step(question: str, tool: str, object_type: str | None = None) -> str | None:
    """The tool the planner calls before ``tool`` for ``question`` on a page of ``object_type``, or None (issue 16:
    the router keeps it next to the tool it serves, so an LLM offered the top-K gets it too).

    A migration is previewed first (DESIGN §11); SQL with no dataset page lists the databases first (the only one
    runs it); a dashboard or dataset named without an id is searched for first (a name → search_dashboards; a
    table's name alone → search_datasets; a title compared → search_dashboards); a count, the first rows or a
    column's values of the page's dataset read its table first.
    """
    if tool in FIRST_STEP and not PREVIEW_SEEN.search(question):
        return FIRST_STEP[tool]  # unless the person says they saw the preview: the card shows the impact again
    if tool == "superset_execute_sql" and object_type == "dataset" and writes_sql(question):
        return "superset_explore_database"
    if tool == "superset_execute_sql" and object_type != "dataset" and SQL_IN_TEXT.search(question):
        return "superset_explore_database"  # no database named: the environment's only one runs it
    if tool == "superset_execute_sql" and object_type != "dataset" and writes_sql(question):
        if TABLE_NAME.search(question) or re.search(ROWS_IN, question, re.I):
            return SEARCH_OF["dataset"]  # "first 5 rows of energy_consumption", "how many rows are in regions?"
    reading = read_question(question)
    if reading.named and not reading.has_id:
        for noun in ("dashboard", "dataset"):
            if noun in reading.objects and tool in BY_ID[noun]:
                return SEARCH_OF[noun]
        nouns = {"dashboard", "dataset"} & set(reading.objects)
        if tool in BY_ID["dataset"] and not nouns and TABLE_NAME.search(question):
            return SEARCH_OF["dataset"]  # a table's name without the noun names a dataset ("access to orders_v2")
        if tool in TITLED and not nouns and (TITLE_QUOTED.search(question) or RUSSIAN_TITLE.search(question)):
            # a title in «» with no noun is a dashboard's («сколько графиков в «Обзоре регионов»?» on another
            # dashboard's page, «чем отличается «Обзор регионов» в ss-dev и в prod»), or one in capitals after a
            # Russian word («задеплой Обзор регионов на прод»: its id was asked for; a QA check)
            return SEARCH_OF["dashboard"]
    if tool in BY_ID["dataset"] and object_type != "dataset" and re.search(PART_OF_TABLE, question, re.I):
        return SEARCH_OF["dataset"]  # «у каких колонок в regions нет описаний?»: regions is looked up first
    return None


def _one_object_scores(reading: Reading, object_type: str | None, tool: str, scores: dict[str, float]) -> None:
    """Weights for a question about one dashboard or dataset (adds to ``scores``).

    - named without an id: the search for it is the first step (``+READING_WEIGHT / 2``);
    - given by id or on its page: it is one object, not a search (the search ``−READING_WEIGHT``);
    - the target of a tool of ``TARGETING`` (permissions, a deploy, a task…; git off the dashboard page): its
      own read tool ``−READING_WEIGHT`` (not for reviews, whose state its summary reports).
    """
    for noun in ("dashboard", "dataset"):
        if noun not in reading.objects:
            continue
        search = SEARCH_OF[noun]
        on_page = object_type == noun and not reading.named
        if tool in BY_ID[noun] and reading.named and not reading.has_id:
            scores.setdefault(search, READING_WEIGHT / 2)
        elif tool != search and (reading.has_id or on_page) and not reading.find:
            scores.setdefault(search, -READING_WEIGHT)
        one = "superset_explore_database" if object_type == "dataset" and noun == "dataset" else ONE_OBJECT[noun]
        family = reading.objects[0]
        # On the dashboard page its summary reports the git and review state (get_git_status is not offered there).
        targeting = TARGETING if object_type == "dashboard" else (*TARGETING, "git", "branch")
        if tool != one and family in targeting and (reading.has_id or reading.this):
            scores.setdefault(one, -READING_WEIGHT)
