"""What a question asks beyond its tool (offline planner, DESIGN §11; issue 29 items 1, 2, 4): an aspect no tool
returns and the read tool shown instead, the dashboards on a dataset asked from a page without dataset tools, the
kind an object is named as, and the optional object ids named by a name (searched for first).

Shared by ``planner``; pure functions of the turn, its reading and its mentions.
"""

import re
from typing import Any

from agentchat.language import ASKED_LANGUAGE
from agentchat.llm.offline.answers.base import items
from agentchat.llm.offline.arguments import args_fill
from agentchat.llm.offline.mentions import Mentions
from agentchat.llm.offline.naming import KIND_TOOLS, tool_kind
from agentchat.llm.offline.replies import ROWS_KEY
from agentchat.llm.offline.sql_aggregate import CONDITION
from agentchat.llm.offline.sql_periods import read_period
from agentchat.llm.offline.sql_words import ANSWER_FORM
from agentchat.llm.offline.state import Choice, Result, Turn
from agentchat.runtime.registry import tool_spec
from agentchat.toolset.aspects import (
    Aspect,
    asks_anything,
    aspect_named,
    foreign_verb,
    unheard_action_aspect,
    unheard_aspect,
)
from agentchat.toolset.intents import ACTION_REQUEST, ROLLBACK, action_requested
from agentchat.toolset.reading import Reading, about_page_object, read_question
from agentchat.toolset.unsupported import request_without_tool
from agentchat.toolset.weights import DATA_SPAN, aggregate_asked, writes_sql
from agentchat.toolset.words import PAGE_PARTS, PAGE_READ, READ_WHEN_MOOT, SEARCH_OF, SQL_IN_TEXT, TITLE_QUOTED, TITLED

# Read tools that answer with a summary or a listing of their object: what stands in place of a specific question
# when nothing serves it (the issue's «generic answer»).
GENERAL_READS = frozenset(
    {
        *PAGE_READ.values(),
        "search_dashboards",
        "search_datasets",
        "get_dataset_details",
        "list_environments",
        "list_backups",
        "show_capabilities",
    }
)


# Aspects no query of the data answers: the page's read is shown in their place, not a request for SQL.
NO_QUERY_ANSWERS = frozenset({"column_meaning"})
# Reads of the whole product that answer no request: an action no tool performs lists what can be done instead.
OVERVIEWS = frozenset({"list_environments", "show_capabilities"})
# The searches: a step towards the tool a request names («выкати Обзор регионов» finds the dashboard first).
SEARCHES = frozenset(SEARCH_OF.values())


def changes_state(name: str) -> bool:
    """True for a registered write or dangerous tool (its category is not ``read``)."""
    spec = tool_spec(name)
    return spec is not None and spec.category != "read"


# A verb that compares («сравни», "compare"): figures of the data compared are one breakdown.
COMPARED = re.compile(r"сравн|compar", re.I)
SQL_READS = ("superset_execute_sql", "superset_explore_database")
SPANS = ("time_range", "data_freshness")  # aspects a question of the data's period is mistaken for


def asked_aspect_of(turn: Turn, choice: Choice) -> Aspect | None:
    """What the question asks about that no tool returns (``toolset.aspects``), or None: a named aspect; else a word
    nobody asked a tool about, when the tool chosen answers with a summary or a listing (``GENERAL_READS``: its
    answer would stand in place of the asked) or none is chosen."""
    if choice.kind == "unsupported":
        return None
    reading = read_question(turn.question)
    named = aspect_named(reading.aspect)
    if named is not None and named.name == "chart_detail" and SQL_IN_TEXT.search(turn.question):
        named = None  # the SQL is given («отформатируй запрос из чарта …: select …»): no chart's own is asked, f1021
    if named is not None and named.name == "past_state" and choice.tool in SQL_READS and aggregate_asked(turn.question):
        named = None  # "What was the total cost last year by region?": a figure of the data's past, not an object's
    if DATA_SPAN.search(turn.question) and choice.tool in SQL_READS and (named is None or named.name in SPANS):
        return None  # "what date range does this data cover?": the data's first and last date, no chart's default
    if named is not None and named.kind == "question" and _told_not_asked(turn.question, choice):
        named = None  # «запусти миграцию, релиз согласован с CAB»: said as context, not asked
    if named is not None and choice.kind == "tool" and ALERT_NEWS.search(turn.question):
        named = None  # «пришёл алерт, что дашборд не грузится, проверь его»: why it is asked (a QA check)
    reads = choice.kind == "unknown" or choice.kind == "tool" and not changes_state(choice.tool)
    compared = _figures_compared(reading.unheard_action or "", choice.tool, turn.question)
    if named is None and reads and _unknown_verb(reading.unheard_action) and not compared:
        return unheard_action_aspect(reading.unheard_action)  # «пометь датасет как …»: no summary in its place
    if named is None and choice.kind == "tool" and choice.tool not in SEARCHES:
        # Another tool's verb («сертифицируй дашборд» chose the review run): neither its card nor its answer
        # stands in for the asked (a search is a step on the way to the tool the verb names).
        foreign = foreign_verb(turn.question, choice.tool)
        if foreign and _unknown_verb(foreign) and not _figures_compared(foreign, choice.tool, turn.question):
            return unheard_action_aspect(foreign)
    specific = choice.kind == "tool" and choice.tool not in GENERAL_READS
    if named is not None or not reading.unheard or specific or reading.quantity or reading.rows:
        return named  # a quantity or rows asked for are numbers from the data, whatever the word
    return unheard_aspect(reading.unheard)


ALERT_NEWS = re.compile(
    r"(пришёл|пришел|прилетел|сработал|получил\w*|висит)\s+(\w+\s+)?(алерт|оповещени|уведомлени)\w*"
    r"|\b(got|received|have|had)\s+an?\s+alert\b|\balert\s+(fired|came|went off)\b",
    re.I,
)


def _told_not_asked(question: str, choice: Choice) -> bool:
    """True when ``question`` is a request for the operation chosen that asks nothing besides (``asks_anything``)."""
    operation = choice.kind in ("tool", "unavailable") and changes_state(choice.tool)
    return operation and action_requested(question) and not asks_anything(question)


def figure_read(question: str, reading: Reading) -> bool:
    """A figure of the data is asked (``Reading.figure``), in the whole message or in the question it ends with after
    context («Смотрю этот отчёт, … мне нужны деньги. Сколько в рублях стоило потребление Санкт-Петербурга за декабрь
    2025?» named the report, and the dashboard's summary stood in for the figure: turns_day13 m1333)."""
    asked = _last_sentence(question)
    return reading.figure or (asked != question.strip() and asked.endswith("?") and read_question(asked).figure)


def _last_sentence(question: str) -> str:
    """The last sentence of ``question``, or its last part after a colon («хочу сверить с дашбордом: сколько …?»)."""
    return re.split(r"(?<=[.!:])\s+", question.strip())[-1]


def figure_asked_part(turn: Turn) -> str | None:
    """The figure question of the turn's question without what only says the answer's form («без графиков, просто
    цифру») and without the context it ends with after («хочу сверить цифру с дашбордом: сколько всего денег за 2024
    год?»; the context's words were asked back as SQL not written, or the whole read as a dataset to create, and «без
    графиков» read as charts: the dataset's description in place of the figure — turns_day14 and a QA check), when
    the SQL tool is offered; else None. The whole is read when the context might narrow the figure: a number, a
    period, a condition («смотрю Москву. Сколько …?»), a capitalised name, or fewer than three words (a heading such as
    «Газ:» is the figure's subject)."""
    question = turn.question.strip()
    if "superset_execute_sql" not in turn.tools:
        return None
    plain = re.sub(r"\s+", " ", ASKED_LANGUAGE.sub(" ", ANSWER_FORM.sub(" ", question))).strip(
        " ,;:—-"
    )  # «без разбивки» is kept: a total
    asked = _last_sentence(plain)
    context = plain[: -len(asked)].strip(" ,;:—-") if asked != plain else ""
    reading = read_question(asked)
    if not (reading.figure and (asked.endswith("?") or not context) or aggregate_asked(asked)):
        return None
    if context and not _plain_context(context):
        return None
    return asked if asked != question else None


def _plain_context(context: str) -> bool:
    """A context before a figure's question that cannot narrow it (``figure_asked_part``)."""
    words = re.findall(r"[^\W\d_]+", context)
    period = read_period(context)
    named = re.search(r"(?<![.!?:]\s)(?<!^)\b[A-ZА-ЯЁ]", context)  # a capital not starting a sentence: a name
    if (
        len(words) < 3
        or named
        or read_question(context).figure
        or re.search(r"\d", context)
        or CONDITION.search(context)
    ):
        return False
    return period is not None and not (period.ranges or period.months)


def _figures_compared(verb: str, tool: str, question: str) -> bool:
    """Figures of the data compared with SQL («сравни потребление 2024 и 2025 по регионам» was told «Не могу выполнить
    «сравни»» above the very table that compares them): a breakdown serves the comparison."""
    return tool in SQL_READS and bool(COMPARED.match(verb)) and aggregate_asked(question)


def _unknown_verb(verb: str) -> bool:
    """True when ``verb`` (a request's leading verb no tool's texts hold) names no operation the rules know either
    («скопируй» is a deploy, "rollback" a rollback, «переименуй» one no tool performs: said by its own text)."""
    if not verb:
        return False
    return not (ACTION_REQUEST.search(verb) or ROLLBACK.search(verb) or request_without_tool(verb))


def instead_tool(turn: Turn, choice: Choice, mentions: Mentions) -> str | None:
    """The read tool whose answer is shown in place of an aspect no tool returns: the read tool chosen (asked as
    usual: the question may be read wrongly, and that tool serve it after all) when it has every argument it needs,
    else the page's own read tool (DESIGN §8) when it has them, else the read tool chosen; else None (nothing close:
    the answer lists what is possible here)."""
    chosen = choice.tool if choice.kind == "tool" and not changes_state(choice.tool) else None
    if turn.aspect is not None and turn.aspect.kind == "action" and chosen in OVERVIEWS:
        chosen = None  # "create a superset account …": what can be done here, not the environment list
    # What no query answers (a column's meaning) shows the page's object rather than asking the person for what the
    # chosen read misses (SQL the planner does not write itself).
    no_query = turn.aspect is not None and turn.aspect.name in NO_QUERY_ANSWERS
    writes = chosen == "superset_execute_sql" and writes_sql(turn.question)
    if chosen is not None and not (no_query and not writes and _missing(turn, chosen, mentions)):
        return chosen
    page_read = PAGE_READ.get(turn.page.object_type or "")
    if page_read in turn.tools and not _missing(turn, page_read, mentions):
        return page_read
    return chosen  # asked for what it misses («what does cost_rub mean» chose SQL: the page's dataset is shown)


def _missing(turn: Turn, tool: str, mentions: Mentions) -> list[str]:
    """The arguments of the offered ``tool`` that neither the question nor the page gives."""
    parameters = turn.tools[tool].get("parameters") or {}
    return args_fill(tool=tool, parameters=parameters, mentions=mentions, page=turn.page)[1]


# A run's preview asked for, the run itself not ("do a dry run first, don't actually migrate anything", «покажи,
# что будет, без применения»): after the preview no migration card follows (a QA check: one did).
PREVIEW_ONLY = re.compile(
    r"dry.?run|пробн\w* (прогон|запуск)|без применени|\b(don'?t|do not|не)\s+(actually\s+|пока\s+|реально\s+)?"
    r"(migrate|run|apply|execute|запуска\w*|запусти\w*|применя\w*|примени\w*|мигрируй\w*|выполня\w*|катим|катай)"
    r"|\b(preview|just show|only show)\b(?! and (run|apply|migrate))|только (посмотреть|показать|превью|предпросмотр)",
    re.I,
)


def kind_named(turn: Turn, choice: Choice, mentions: Mentions) -> Choice:
    """The kind the question names by a name decides what is read: a dataset named («в каких дашбордах датасет
    energy_consumption», "tell me about the dataset regions" on a dashboard page) is not searched among dashboard
    titles, nor is the page's dashboard read for it; its read tool (which searches first), else its search, else
    why its search is not offered here."""
    named = mentions.names_kind
    refers = mentions.refers_to_page and turn.page.object_type is not None  # no page: "it" is what was named
    if choice.kind not in ("tool", "unknown") or not named or not mentions.search_text or refers:
        return choice
    # Not understood, but another object named by its name on a page with no tool of its kind («покажи колонки
    # датасета regions» on a dashboard page): said to be unavailable here, with the one-click to ask without the
    # page (issue 29 item 2), rather than «не разобрал».
    kind = tool_kind(choice.tool, properties(turn, choice.tool)) if choice.kind == "tool" else None
    if choice.kind == "tool" and (kind is None or kind == named):
        return choice
    search, read = KIND_TOOLS[named]
    tool = next((t for t in (read, search) if t in turn.tools), None)
    return Choice("tool", tool, rules=choice.rules) if tool else Choice("unavailable", search, rules=choice.rules)


def named_unfilled(turn: Turn, tool: str, args: dict[str, Any], mentions: Mentions) -> list[str]:
    """The optional object ids of a read ``tool`` the question names by a name instead («незакоммиченные изменения
    в дашборде «Обзор регионов»», "is the regions overview dashboard in git?"): searched for first, as a missing
    one is — without, the tool would answer for every object (the repository-wide git status, issue 29 item 4).

    A «title» with no noun, on a dashboard's page, names another dashboard for the tools of one dashboard that a
    title names (``words.TITLED``: its summary, versions, deploys, a deploy): «сколько графиков в «Обзоре
    регионов»?», «задеплой «Обзор регионов» в prod» — not the page's one (a QA check: the page's dashboard was read,
    or put on the deploy card), unless it is the page's own title or the question points at the page too."""
    if not mentions.search_text:
        return []
    page = turn.page
    objects = read_question(turn.question).objects
    kinds = [k for k in ("dashboard", "dataset") if k == mentions.names_kind or k in objects]
    titled = tool in TITLED and not kinds and page.object_type == "dashboard"
    titles = [t for t in TITLE_QUOTED.findall(turn.question) if t.strip("«»") != mentions.message]
    titled = titled and bool(titles) and mentions.search_text != mentions.message
    # a commit names its dashboard by a «title» only beside its «message» («закоммить «X» с сообщением «правка»»)
    titled = titled and (tool != "commit_changes" or bool(mentions.message))
    if titled and not mentions.refers_to_page and args.get("dashboard_id") == page.object_id:
        own = (page.object_name or "").casefold() == mentions.search_text.casefold()
        return [] if own else ["dashboard_id"]
    if changes_state(tool):  # a new dataset's name names no object to look up
        return []
    return [f"{k}_id" for k in kinds[:1] if f"{k}_id" in properties(turn, tool) and f"{k}_id" not in args]


def properties(turn: Turn, tool: str) -> dict[str, Any]:
    """The JSON-schema properties of the offered ``tool`` (``{}`` when it has none)."""
    return (turn.tools[tool].get("parameters") or {}).get("properties") or {}


def found_args(
    turn: Turn, tool: str, search: Result, args: dict[str, Any], missing: list[str]
) -> tuple[dict[str, Any], list[str]]:
    """The arguments of ``tool`` called on the object a ``search`` found (``args`` hold its id), and what is still
    missing: the environment it was found in is the tool's ``env_id``, or ``source_env_id`` of deploy_history's
    dashboard (which takes no env_id: one added was refused with a validator's text); an ``other_env_id`` that
    became that same environment is asked for (compared with itself, the call was refused the same way)."""
    key = next((k for k in ("env_id", "source_env_id") if k in properties(turn, tool)), None)
    if key and "env_id" in search.args:
        args = {**args, key: search.args["env_id"]}
    if args.get("other_env_id") is not None and args.get("other_env_id") == args.get("env_id"):
        args = {k: v for k, v in args.items() if k != "other_env_id"}
        missing = [*missing, "other_env_id"]
    return args, [m for m in missing if m not in args]


# The parts of a dashboard or a dataset its read tool (``naming.KIND_TOOLS``) reports (``toolset.objects`` names).
PARTS = {
    "dashboard": {"chart", "datasets", "dataset", "attribute", "git"},
    "dataset": {"column", "attribute", "chart", "dashboards", "table"},
}


def found_part_read(turn: Turn, last: Result) -> str | None:
    """The read tool of the one object a search found, when the question asks about its parts («какие графики на
    «Отчёт …»?», "which columns does regions have?") and the read is offered; else None (the search answers).
    A fresh day set's "how do I see which charts are on «Отчёт по энергопотреблению»?" ended with the search's row
    (turns_day6 y41)."""
    kind, read = next(((kind, read) for kind, (search, read) in KIND_TOOLS.items() if search == last.tool), ("", ""))
    payload = last.payload if isinstance(last.payload, dict) else {}
    rows, _total = items(payload.get(ROWS_KEY.get(last.tool, "")))
    if not read or read not in turn.tools or len(rows) != 1 or last.args.get("dataset"):
        return None  # the dashboards found on a dataset are the answer («какие ещё дашборды на regions?», QA)
    if DETAILS_ASKED.search(turn.question):  # «покажи детали датасета energy_consumption на проде» (a QA check)
        return read
    return read if PARTS[kind] & set(read_question(turn.question).objects) else None


# The object itself asked about, not a list («детали датасета X», «расскажи про дашборд X», "details of X", "tell me
# about X"): the one found is read.
DETAILS_ASKED = re.compile(
    r"детал\w*|подробн\w*|расскажи\w* (мне )?(про|о|об)\b|опиши\b|информаци\w* (о|об|по)\b|\bdetails?\b"
    r"|\btell me about\b|\bdescribe\b|\binfo(rmation)? (on|about)\b|\bwhat(')?s (in|on)\b|\bwhat is (in|on)\b"
    r"|\bcontents? of\b|что внутри|что входит в|из чего состоит|содержимое",
    re.I,
)


def page_parts(reading: Reading, object_type: str | None) -> bool:
    """The question is about the page's object (not one given by id) and names only it or its parts, or asks
    whether something is part of it or where it goes."""
    if reading.has_id or not about_page_object(reading, object_type):
        return False
    if not reading.objects:
        return reading.membership or reading.target  # "is X part of it?", "what's the target of this one?"
    return set(reading.objects) <= {*PAGE_PARTS, object_type or ""}


def env_ready(turn: Turn, tool: str, mentions: Mentions) -> bool:
    """True when ``tool`` takes no environment or one is named or picked on the page."""
    return "env_id" not in properties(turn, tool) or bool(mentions.envs or turn.page.env_id)


def search_args(turn: Turn, tool: str, mentions: Mentions) -> dict[str, Any]:
    """The search ``tool``'s arguments from the question and the page: ``{"env_id"?, "query"?}``."""
    args, _ = args_fill(
        tool=tool, parameters=turn.tools[tool].get("parameters") or {}, mentions=mentions, page=turn.page
    )
    return {k: v for k, v in args.items() if k in ("env_id", "query")}


def read_after_moot(turn: Turn, result: Result) -> tuple[str, dict] | None:
    """The read shown after a call that found nothing to apply to (``words.READ_WHEN_MOOT``: a rollback with nothing
    to roll back → the deploy history into that environment: who deployed what there, and when), as ``(tool,
    args)``, when it is offered and not read yet; else None (the reason alone is the answer)."""
    read = READ_WHEN_MOOT.get(result.tool)
    if read is None or not result.moot or read not in turn.tools or not result.args.get("env_id"):
        return None
    return None if any(r.tool == read for r in turn.results) else (read, {"target_env_id": result.args["env_id"]})
