"""What the offline planner says (DESIGN §11): answers from tool results, failures, clarifying questions and honest
"I cannot" texts, in the user's language (ru/en): each text is produced under ``translation.override`` of the
turn's language, from the catalogue (English msgids, Russian in ``locale/ru``).
"""

import re

from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from agentchat.errors import ID_ARGUMENTS, not_found_text
from agentchat.llm.offline import answers
from agentchat.llm.offline.answers.base import items
from agentchat.llm.offline.answers.datasets import dependents_lines
from agentchat.llm.offline.answers.git import git_line
from agentchat.llm.offline.aspect_texts import cannot_text, instead_text
from agentchat.llm.offline.followup import inactive_tiers, no_such_environment_text
from agentchat.llm.offline.sql_steps import still_unread, values_seen
from agentchat.llm.offline.state import Result, Turn
from agentchat.runtime.provenance import OWN_SQL_QUESTION, SQL_FROM_USER
from agentchat.runtime.questions import argument_question
from agentchat.runtime.titles import tool_title
from agentchat.toolset.aspects import Aspect
from agentchat.toolset.reading import read_question, reading_tool
from agentchat.toolset.verbs import told_to
from agentchat.toolset.weights import writes_sql
from agentchat.toolset.words import PAGE_STAND_INS, SQL_IN_TEXT, USES

ROWS_KEY = {"search_dashboards": "dashboards", "search_datasets": "datasets"}


def tool_intended(turn: Turn) -> str:
    """The tool the question asks for (set by ``plan_step``; empty when it asks for none)."""
    return turn.intended


def answer_text(turn: Turn) -> str:
    """The answer from the results that matter: the last one, after a search only the search itself; when the
    question asks about an aspect no tool returns (``turn.aspect``), that is said first, and the result is what is
    shown instead (issue 29 item 1)."""
    last = turn.results[-1]
    texts = [answers.answer_from_result(last.tool, last.payload, turn.language)]
    # a call that could not apply before this read (nothing to roll back → the deploy history): its reason first
    texts[:0] = [answers.answer_from_error(r.tool, r.payload, turn.language) for r in turn.results[:-1] if r.moot]
    aspect = turn.aspect
    if aspect is not None:
        texts.insert(0, cannot_text(aspect, turn.language) + "\n" + instead_text(last.tool, turn.language))
    elif _git_asked_of_summary(turn, last):  # the asked part first, then the summary it came in (issue 29 item 1)
        asked = f"Git: {git_line(last.payload.get('git') or {}, turn.language)}."
        texts = [asked, "\n".join(line for line in texts[0].splitlines() if line != asked)]  # not said twice
    elif _dependents_asked_of_dataset(turn, last):  # "which dashboards depend on it?" on its page: those first,
        with translation.override(turn.language):  # and not again in the description below them
            first = dependents_lines(last.payload)
        texts = ["\n".join(first), "\n".join(line for line in texts[0].splitlines() if line not in first)]
    intended = tool_intended(turn)
    with translation.override(turn.language):
        if last.tool in ROWS_KEY and intended and intended != last.tool:
            _rows, total = items((last.payload or {}).get(ROWS_KEY[last.tool]))
            if total > 1:
                texts.append(_("Which one do you mean? Give its id."))
        if last.tool == "show_capabilities":
            texts.append(
                _(
                    "I am running offline, without a language model: I understand requests for these tools and "
                    "answer from templates."
                )
            )
        if turn.context.get("status") == "unavailable":
            texts.insert(0, _("Context unavailable: general mode."))
        if last.tool == "superset_execute_sql" and last.ok and not SQL_IN_TEXT.search(turn.question):
            # the query it wrote itself is shown, so the figure can be checked against the question (a fresh check:
            # only the SQL Lab link held it)
            sql = str((last.payload or {}).get("sql") or last.args.get("sql") or "")
            texts.append(_("The query I wrote for the question:") + f"\n```sql\n{sql}\n```" if sql else "")
        if part := unserved_part(turn):  # «что вы умеете? сделайте бэкап»: the other one is not dropped silently
            texts.append(
                _("You also asked: “%(part)s”. I answer one request at a time: send it as a message of its own.")
                % {"part": part}
            )
    return "\n\n".join(t for t in texts if t)


# «… и кто владелец?», "… and who owns this?", «… и сделай бэкап»: a second request joined by «и» / "and".
_JOINED = re.compile(r",?\s+(?:and|и|а также)\s+", re.I)
_ASKING_HEAD = re.compile(
    r"(?:who|what|when|which|how|where|is|are|does|did|кто|что|когда|какие|какой|какая|где|как|сколько|есть ли)\b",
    re.I,
)


_NEXT_STEP = re.compile(r"(?:если|как только|потом|затем|после|if|once|then|after)\b", re.I)


def _joined_requests(text: str) -> list[str]:
    """``text`` split where «и» / "and" starts another question or an imperative ("list backups in prod and who owns
    this?"); joined words stay together ("columns and metrics", «проверь и если ок — закоммить»)."""
    out, start = [], 0
    for joint in _JOINED.finditer(text):
        rest = text[joint.end() :]
        if _NEXT_STEP.match(rest):
            continue  # «… и если всё ок — закоммить»: a step on a condition, asked with the first
        if _ASKING_HEAD.match(rest) or told_to(re.split(r"[,.;!?]", rest, maxsplit=1)[0]):
            out.append(text[start : joint.start()])
            start = joint.end()
    return [p.strip() for p in [*out, text[start:]] if p.strip()]


# A part with no verb that adds a request ("owners too", «а ещё бэкапы прода»), unlike one that only details the
# question before it ("Is it identical in ss-dev and prod? columns, metrics, SQL.": turns_day11 g1113).
_ADDED = re.compile(r"(?<!\w)(ещё|еще|также|тоже|too|also|as well|plus)(?!\w)", re.I)


def _requests(part: str, verb: str) -> bool:
    """Whether ``part`` of a message asks for something: a question, a verb (``Reading.verb``) or an addition."""
    if PURPOSE.match(part):  # "need it for the security review", «это нужно для аудита»: why, not what
        return False
    return part.rstrip().endswith("?") or bool(verb) or bool(_ADDED.search(part))


PURPOSE = re.compile(
    r"\s*(i\s+)?(need(ed)?\s+(it|this|that|them)\s+for|(это\s+|мне\s+)?нужн\w*\s+(мне\s+)?для)\b", re.I
)
# A part that points back at what another part asked about ("… and what viz types do they use"): that answer's.
POINTS_BACK = re.compile(r"\b(they|them|it|its|their)\b|(?<!\w)(они|их|его|её|ее|него|неё|них)(?!\w)", re.I)


EXISTENCE_READ = {"search_dashboards": "get_health_summary", "search_datasets": "get_dataset_details"}  # it exists


def unserved_part(turn: Turn) -> str:
    """The part of a message of several requests (split after each «?», and at «и» / "and" before another question
    or an imperative: ``_joined_requests``) that asks for another tool than those the turn used («что вы умеете?
    сделайте бэкап», "list backups in prod and who owns this?"), offered here or not, or ''. Only when another part
    was served; a part that asks for no tool (the context after a question) is none."""
    parts = [r for p in re.split(r"(?<=\?)\s+", turn.question.strip()) for r in _joined_requests(p)]
    if len(parts) < 2:
        return ""
    used = {r.tool for r in turn.results}
    read = {r.tool for r in turn.results if r.ok}
    kind, wanted = turn.page.object_type, []
    for part in parts:
        reading = read_question(part)
        tool = reading_tool(reading, kind)
        # answered by the object's read there («на проде он вообще есть?»), by the page's stand-in read (its summary
        # holds the git state), or it points back at what was read ("… and what viz types do they use")
        answered = (
            (reading.find and not reading.other and EXISTENCE_READ.get(tool or "") in read)
            or PAGE_STAND_INS.get((kind or "", tool or "")) in read
            or (tool not in turn.tools and POINTS_BACK.search(part))
        )
        if _requests(part, reading.verb) and not answered:
            wanted.append((part, tool))
    if not any(tool in used for _part, tool in wanted):
        return ""
    return next((p for p, tool in wanted if tool and tool not in used), "")


DECLINED = {"denied", "expired", "cancelled"}


def failure_text(turn: Turn, result: Result) -> str:
    """What to say after a failed call: declined, refused, a question for a missing argument, not found (404) or the
    tool's own error; after the sentence that the asked aspect cannot be served when the failed call was the nearest
    read shown in its place (``turn.aspect``: the failure must not stand in for the answer to what was asked)."""
    text = _failure_text(turn, result)
    return text if turn.aspect is None else f"{cannot_text(turn.aspect, turn.language)}\n\n{text}"


def _failure_text(turn: Turn, result: Result) -> str:
    payload = result.payload if isinstance(result.payload, dict) else {"message": str(result.payload)}
    declined = _declined_text(payload.get("error"), tool_title(result.tool, turn.language), turn.language)
    if declined:
        return declined
    if payload.get("ask_user"):  # an argument only the person can give is missing: asked, no validator's text
        return str(payload["ask_user"])
    if payload.get("status") == 404:
        named = [(ID_ARGUMENTS[k], v) for k, v in (result.args or {}).items() if k in ID_ARGUMENTS]
        if len(named) == 1:
            object_type, object_id = named[0]
            args = result.args or {}
            env_id = args.get("env_id") or args.get("source_env_id")  # a deploy names its source
            return not_found_text(object_type, object_id, env_id, turn.language)
    return answers.answer_from_error(result.tool, payload, turn.language)


def _git_asked_of_summary(turn: Turn, last: Result) -> bool:
    """The question asks for the git state («есть ли незакоммиченные изменения?») and the dashboard's summary,
    which the dashboard page offers in its place (``planner.SUBSTITUTES``), answered with its git part."""
    if last.tool != "get_health_summary" or not isinstance(last.payload, dict) or "git" not in last.payload:
        return False
    return reading_tool(read_question(turn.question), turn.page.object_type) == "get_git_status"


def _dependents_asked_of_dataset(turn: Turn, last: Result) -> bool:
    """The question asks what uses a dataset («какие дашборды используют этот датасет?», "which dashboards depend on
    it?") and the dataset's read answered it: its charts and dashboards come first (turns_day6 y20)."""
    if last.tool not in ("superset_explore_database", "get_dataset_details") or not isinstance(last.payload, dict):
        return False
    asked = {"dashboards", "dashboard", "chart"} & set(read_question(turn.question).objects)
    return "dependents" in last.payload and bool(asked) and bool(USES.search(turn.question))


def _declined_text(error: object, title: str, language: str) -> str:
    """The answer to a declined or refused call (``error`` code of the ToolMessage), or "" for other errors."""
    with translation.override(language):
        if error == "denied":
            # the card and the chat line already say «Операция отменена»; the answer only confirms
            return _("OK, I changed nothing (%(title)s).") % {"title": title}
        if error in DECLINED:
            return _("Operation cancelled (%(title)s): nothing was changed.") % {"title": title}
        if error == "permission_denied":
            return _("That is not available (%(title)s): it is not offered to your role here.") % {"title": title}
    return ""


# --- texts ------------------------------------------------------------------------------------------------


def _offered_list(turn: Turn) -> str:
    titles = [tool_title(n, turn.language) for n in turn.tools if n != "show_capabilities"]
    return "\n".join(f"- {title[:1].upper()}{title[1:]}" for title in titles)


def unsupported_text(turn: Turn, phrase: str) -> str:
    """Say plainly that no tool does ``phrase`` (delete, rename, grant…), where it is done (``REFUSALS``), and list
    what is possible here."""
    refusal = next(
        (text for pattern, of_question, text in REFUSALS if pattern.search(turn.question if of_question else phrase)),
        SUPERSET_REFUSAL,
    )
    with translation.override(turn.language):
        return str(refusal) % {"phrase": phrase} + "\n\n" + _("Here I can do:") + "\n" + _offered_list(turn)


# What is done on the Migrations page (a saved plan's dashboards), and what nowhere here (a run paused, stopped or
# resumed, a table's rows copied); the rest (an object deleted or renamed, a chart edited, rights granted) is done in
# Superset itself: the refusal says where (a fresh check, q38, q40).
NOWHERE_ELSE = re.compile(
    r"пауз|приостанов|возобнов|отмен|останов|прерв|\b(pause|resume|cancel|stop|abort|kill)\b|данн|\bdata\b|\brows\b"
    r"|строк|записи",
    re.I,
)
# A table's rows deleted («удали строки где …»): no tool changes data, nor does Superset (a QA check read «done in
# Superset itself»).
ROWS_DELETED = re.compile(
    r"(удал|сотр|почист|очист|delete|remove|drop|purge)\w*\s+(\S+\s+){0,2}(строк|запис|дубл|rows?\b|records?\b|dupes)",
    re.I,
)
SCHEMA_CHANGES = re.compile(r"индекс|\bind(ex|exes|ices)\b|\btable\b", re.I)
PLAN_EDITS = re.compile(r"\b(план|миграци)\w*|\b(plan|migration)\b", re.I)
# Data asked for as a file («выгрузи … в csv», "export it to excel"): the SQL result's own «Скачать CSV» serves it.
FILE_ASKED = re.compile(r"\bcsv\b|\bexcel\b|\bxlsx?\b|в файл\w*|to a file|as a file", re.I)
NO_TOOL_REFUSAL = gettext_lazy("I cannot do that (“%(phrase)s”): I have no tool for it, and I changed nothing.")
SUPERSET_REFUSAL = gettext_lazy(
    "I cannot do that (“%(phrase)s”): I have no tool for it, and I changed nothing. Deleting or renaming objects, "
    "editing charts and granting rights are done in Superset itself."
)
# ``(pattern, read in the whole question (else in the phrase), the refusal)``, the first that matches; else
# ``SUPERSET_REFUSAL``.
REFUSALS = (
    (
        FILE_ASKED,
        True,
        gettext_lazy(
            "I cannot write a file myself (“%(phrase)s”), and I changed nothing. The result of a SQL query has a "
            "“Download CSV” link: send the SELECT and I will run it (offline I do not write queries myself)."
        ),
    ),
    (
        PLAN_EDITS,
        False,
        gettext_lazy(
            "I cannot do that (“%(phrase)s”): I have no tool for it, and I changed nothing. A saved migration's "
            "dashboards are chosen when it is made: create a new migration on the Migrations page."
        ),
    ),
    (
        ROWS_DELETED,
        True,
        NO_TOOL_REFUSAL,
    ),
    (
        SCHEMA_CHANGES,
        False,
        gettext_lazy(
            "I cannot do that (“%(phrase)s”): I have no tool that changes a database's tables or indexes, and I "
            "changed nothing. That is done in the database itself, by its administrator."
        ),
    ),
    (
        NOWHERE_ELSE,
        False,
        NO_TOOL_REFUSAL,
    ),
)


def inactive_env_text(turn: Turn, env: str, active: list[str]) -> str:
    """Say that the environment ``env`` (a tier the user named) is not active here, and which ones are."""
    with translation.override(turn.language):
        if not active:
            return _("The environment “%(env)s” is not active here, and no other environment is.") % {"env": env}
        return _("The environment “%(env)s” is not active here. Active environments: %(envs)s.") % {
            "env": env,
            "envs": ", ".join(active),
        }


def environment_said_text(turn: Turn, environments: list[tuple[str, str]], text: str) -> str | None:
    """What to say of an environment ``text`` (the question, or its words outside the name searched for) names: one
    that does not exist (``no_such_environment_text``), or one that is not active (``inactive_env_text``); None for
    neither."""
    if no_such := no_such_environment_text(text, environments, turn.language):
        return no_such
    off = inactive_tiers(text, environments)
    return inactive_env_text(turn, off[0], [env_id for env_id, _ in environments]) if off else None


def cannot_here_text(turn: Turn, aspect: Aspect) -> str:
    """Say in one sentence that ``aspect`` cannot be served, and list what is possible here (issue 29 item 1)."""
    with translation.override(turn.language):
        head = cannot_text(aspect, turn.language) + "\n\n" + _("Here I can do:")
    return head + "\n" + _offered_list(turn)


def not_understood_text(turn: Turn) -> str:
    """Say the offline planner did not understand, and list what it can do here."""
    with translation.override(turn.language):
        head = _(
            "I am running offline, without a language model, and only understand requests for my tools — I did "
            "not understand this one. Here I can do:"
        )
    return head + "\n" + _offered_list(turn)


def no_earlier_query_text(language: str) -> str:
    """The question back when a query «above» is to be run and the conversation holds none (day set d23)."""
    with translation.override(language):
        return _("I see no query earlier in this conversation: send the SQL (SELECT …), in backticks if you like.")


def clarify_text(turn: Turn, tool: str, parameter: str) -> str:
    """Ask for the missing required ``parameter`` of ``tool`` (``runtime.questions``: the same question an
    OpenAI-compatible model is given to ask); when the question asks about an aspect no tool returns
    (``turn.aspect``), that is said first, and the question is for the tool that comes closest (issue 29 item 1)."""
    asked = _clarify_question(turn, tool, parameter)
    aspect = turn.aspect
    if aspect is None:
        return asked
    with translation.override(turn.language):
        closest = _("Instead I can do this (%(title)s), with one more thing from you:") % {
            "title": tool_title(tool, turn.language)
        }
    return f"{cannot_text(aspect, turn.language)}\n{closest}\n{asked}"


# Values named in a question back, per column (the rest is «…»): enough to recognise the one meant.
VALUES_LISTED = 8


def _values_listed(values: dict[str, list[str]]) -> str:
    """«region: Москва, …; source: Атом, Газ, …», at most ``VALUES_LISTED`` values of each column, sorted."""
    return "; ".join(
        f"{column}: " + ", ".join(sorted(vs)[:VALUES_LISTED]) + (", …" if len(vs) > VALUES_LISTED else "")
        for column, vs in sorted(values.items())
    )


def _clarify_question(turn: Turn, tool: str, parameter: str) -> str:
    question = argument_question(parameter, turn.language)
    if question is not None:
        return question
    with translation.override(turn.language):
        if parameter == "sql" and tool in SQL_FROM_USER:  # the person's SQL, whoever answers (runtime.provenance)
            return str(OWN_SQL_QUESTION)
        if parameter == "sql" and turn.page.object_type != "dataset" and writes_sql(turn.question):
            # a figure the planner writes itself from a dataset's columns: the dataset is what is missing
            # (turns_day11 g1117: «Сколько МВт·ч потреблено всего за 2024 год?» with no page was asked for SQL)
            return _(
                "Which dataset is it about? Name its table or open the dataset's page: there I write the query for "
                "totals, rankings and counts myself. Or send the SQL (SELECT …)."
            )
        unread = still_unread(turn) if parameter == "sql" else []
        values = values_seen(turn) if unread else {}
        if values:  # "gas", «масква»: the values that are there, to say it with (a fresh check: the words alone)
            return _(
                "I did not find “%(words)s” among the dataset's columns and values (%(values)s): say it with one of "
                "these, or send the query (SELECT …)."
            ) % {"words": ", ".join(unread), "values": _values_listed(values)}
        if unread:  # what the query would have left out is said (a QA check: none was)
            return _(
                "I do not turn “%(words)s” into SQL myself: send the query (SELECT …), in backticks if you like."
            ) % {"words": ", ".join(unread)}
        if parameter == "sql":  # a model writes the SQL to run itself; the planner writes only what it reads
            return _(
                "I could not write this query from the question (offline I write totals, breakdowns, rankings, shares "
                "and counts): send the SQL (SELECT …), in backticks if you like."
            )
        return _("Something is missing: please give “%(parameter)s”.") % {"parameter": parameter}
