"""Decisions of the offline planner (DESIGN §11): which tool, which arguments, what to ask, what to answer.

The planner sees what an LLM would see — the question, the page context from the system prompt, the offered
tools (JSON schemas) and the tool results of this turn — plus a ``Knowledge`` of look-ups an LLM does not need:
the tool ranking (embedding router + keyword rules), the active environments, and why a tool is not offered.
It is stateless: each step re-reads the turn, so a turn resumed after a confirmation card continues correctly.

One step:
1. A request no tool can do (delete, rename, grant rights…) → an honest answer, nothing is called.
2. The best tool for the question (``tool_choose``): the best offered one; a clearly better tool that is not
   offered is explained (page, role, environment — whichever is true), unless an offered tool covers the need.
3. Arguments from the page and the question; a missing required one → a clarifying question. A name without an
   id is looked up first (search), a migration is previewed first, a count on a dataset page reads the dataset's
   table first.
4. After the results: continue the chain or write the answer with the templates, in the user's language.
"""

import uuid
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage

from agentchat.language import conversation_language
from agentchat.llm.offline.answers.base import items
from agentchat.llm.offline.arguments import Page, args_fill
from agentchat.llm.offline.asked import (
    PREVIEW_ONLY,
    asked_aspect_of,
    changes_state,
    env_ready,
    figure_asked_part,
    figure_read,
    found_args,
    found_part_read,
    instead_tool,
    kind_named,
    named_unfilled,
    page_parts,
    properties,
    read_after_moot,
    search_args,
)
from agentchat.llm.offline.cross_page import data_figure_elsewhere, dataset_users
from agentchat.llm.offline.environments import set_aside_dropped
from agentchat.llm.offline.followup import bare_answer, bare_direction, previous_answered
from agentchat.llm.offline.mentions import Mentions, mentions_read
from agentchat.llm.offline.naming import name_quoted
from agentchat.llm.offline.replies import (
    ROWS_KEY,
    answer_text,
    cannot_here_text,
    clarify_text,
    environment_said_text,
    failure_text,
    no_earlier_query_text,
    not_understood_text,
    unsupported_text,
)
from agentchat.llm.offline.sql_steps import (
    explore_next,
    figure_step,
    only_database,
    refers_to_missing_query,
    sql_after_values,
    sql_first_step,
    sql_for,
    sql_instead,
)
from agentchat.llm.offline.state import ASK_WITHOUT_PAGE, HAND_OVER, Choice, Knowledge, Result, Turn
from agentchat.runtime.registry import tool_spec
from agentchat.runtime.titles import TOOL_TITLES
from agentchat.toolset.intents import MEDIUM, READ_COUNTERPART, STRONG, action_requested, rule_scores
from agentchat.toolset.reading import MAKE, asks_for_review, read_question, reading_tool
from agentchat.toolset.router import Ranked
from agentchat.toolset.unsupported import request_without_tool
from agentchat.toolset.weights import first_step, writes_sql

# A tool wanted but not offered whose need an offered tool covers (DESIGN §8: the dashboard page has no
# get_git_status, but the health summary reports the git state; the dataset page has no get_dataset_details,
# but superset_explore_database describes the dataset).
SUBSTITUTES: dict[str, tuple[str, ...]] = {
    "get_git_status": ("get_health_summary",),
    "get_dataset_details": ("superset_explore_database",),
    "search_datasets": ("superset_explore_database",),
    "preview_migration": ("execute_migration",),
    "deploy_dashboard": ("execute_migration",),  # the migration page offers no deploy; a migration moves it
}
# Without any rule, a question is understood only when its best tool stands out from the others by this much
# (best cosine minus the mean cosine over the candidates). e5 gives every pair of texts 0.8–0.9, so the absolute
# value says little; unrelated questions («привет», «напиши стих») stand out by 0.02–0.035, questions about a
# tool by 0.045 and more (measured on the question sets of tests/data).
SIMILARITY_MARGIN = 0.04
# A tool that is not offered is "clearly wanted" when a rule names it and it beats the best offered tool by this.
UNAVAILABLE_MARGIN = 0.05
# Without a rule, a question is also understood when most of its nearest labelled examples (by their weight) asked
# for the best offered tool (``toolset.examples``; issue 16): a majority, fixed before measuring, not tuned.
EXAMPLES_MAJORITY = 0.5
SEARCH_FOR = {"dashboard_id": "search_dashboards", "dataset_id": "search_datasets"}
SQL = "superset_execute_sql"
# What a request to move a dashboard means depends on the page and the role (a deploy, a migration, its preview).
MOVES = ("execute_migration", "preview_migration", "deploy_dashboard")
# An audit of a named dashboard or dataset (no id): the search for it first, then the audit of the one found.
AUDITED_SEARCH = {"dataset": "search_datasets", "dashboard": "search_dashboards"}


def tool_choose(*, question: str, page: Page, offered: Sequence[str], knowledge: Knowledge) -> Choice:
    """Decide which tool ``question`` asks for on ``page`` among ``offered`` (see the module docstring, 1–2).

    Returns:
        A ``Choice``.
    """
    phrase = request_without_tool(question)
    if phrase:
        return Choice("unsupported", phrase=phrase)
    candidates = sorted(set(knowledge.catalogue) | set(offered))
    ranked = knowledge.rank(question, candidates, page.object_type)
    best_offered = next((r for r in ranked if r.name in offered), None)
    best = ranked[0] if ranked else None
    unbuilt = _unbuilt_wanted(question, page, knowledge, best_offered)
    if unbuilt:
        return Choice("unavailable", unbuilt, rules=STRONG)
    # The reading's tool, when the page offers it, is what a question about the page means: another page's tool's
    # keyword is no "not available here" («какие датасеты создадутся» on a migration page is its preview).
    reading = read_question(question)
    meant = reading_tool(reading, page.object_type)
    if figure_read(question, reading) and SQL not in offered and knowledge.not_offered_reason(SQL, page) == "page":
        return Choice("unavailable", SQL, rules=STRONG)  # a figure of the data on a page without SQL: said so
    refused = reading.verb == MAKE and meant in knowledge.catalogue and meant not in offered and meant not in MOVES
    refused = refused and not reading.aspect  # what no tool does is said by its aspect («export … to PDF»)
    if refused and not any(s in offered for s in SUBSTITUTES.get(meant or "", ())):  # never something else read
        return Choice("unavailable", meant or "", rules=STRONG)  # instead (turns_day10 f1063)
    unread = meant not in offered or not (reading.verb or reading.objects)  # "format this sql: …" is no page read
    fallback = meant == "execute_migration" and not reading.objects  # «отформатируй sql» there: no run (QA check)
    unread = unread or (fallback and best is not None and best.rules >= STRONG)
    if best is not None and best.name not in offered and best.rules >= MEDIUM and unread:
        substitute = next((s for s in SUBSTITUTES.get(best.name, ()) if s in offered), None)
        if substitute:
            return Choice("tool", substitute, rules=best.rules)
        routed = knowledge.not_offered_reason(best.name, page) == "routed"  # allowed: not refused, read on
        if not routed and (best_offered is None or best.score - best_offered.score >= UNAVAILABLE_MARGIN):
            return Choice("unavailable", best.name, rules=best.rules)
    if best_offered is not None and changes_state(best_offered.name) and not action_requested(question):
        # A question about state never gets a write card: answer it with the read tool that tells that state: the
        # reading's own read tool first («проверь, что сломается при переносе» → preview_migration), then the
        # write tool's read counterpart, then the best read tool, if any fits.
        # A read tool the page does not offer gives way to its substitute («он в гите актуальный?» on a dashboard
        # page: the health summary reports the git state).
        wanted = meant
        counterpart = READ_COUNTERPART.get(best_offered.name)
        reads = [r for r in ranked if r.name in offered and not changes_state(r.name)]

        def offered_read(name: str | None) -> Ranked | None:
            names = (name, *SUBSTITUTES.get(name, ())) if name else ()
            return next((r for n in names for r in reads if r.name == n), None)

        read = offered_read(wanted)
        if read is not None:  # the reading names it: no similarity margin needed
            return Choice("tool", read.name, rules=read.rules)
        best_offered = offered_read(counterpart) or (reads[0] if reads else None)
    if best_offered is None:
        return Choice("unknown")
    if meant is not None and meant in offered and not changes_state(meant) and page_parts(reading, page.object_type):
        # A question about the page's object or its parts is answered by its read tool, whatever a keyword of a
        # search or a list says («какие дашборды на нём?» on a dataset page: its description).
        return Choice("tool", meant, rules=max(best_offered.rules, MEDIUM))
    made = reading.verb == MAKE and meant is not None and meant in offered
    if made and meant is not None and changes_state(meant) and not changes_state(best_offered.name):
        # An explicit request to make something is not answered by reading something else because its keywords
        # scored («нужен датасет по таблице payments» on a dataset page: a new dataset, not the page's).
        return Choice("tool", meant, rules=max(best_offered.rules, MEDIUM))
    if meant and meant == reading.asked and meant in offered:  # «есть ли такой дашборд в ss-dev?» on its page:
        return Choice("tool", meant, rules=max(best_offered.rules, MEDIUM))  # its copy there, not a search of all
    if meant == "get_task_status" and meant in offered and "progress" in reading.objects:
        # How a run went («закончился ли мой бэкап?», "did my backup finish?"): its task, not the list of what the
        # runs made (issue 29 item 4; a backup still running or failed is in no list).
        return Choice("tool", meant, rules=max(best_offered.rules, MEDIUM))
    if meant == "run_llm_validation" and meant in offered and asks_for_review(question):
        # Problems to be found, or the team's rules to be checked, are a review run, whatever the page's summary
        # keywords say ("find problems in this dashboard's chart titles").
        return Choice("tool", meant, rules=max(best_offered.rules, MEDIUM))
    mean = sum(r.similarity for r in ranked) / len(ranked)
    understood = best_offered.rules > 0 or best_offered.agreement >= EXAMPLES_MAJORITY
    if not understood and best_offered.similarity - mean < SIMILARITY_MARGIN:
        return Choice("unknown")
    return Choice("tool", best_offered.name, rules=best_offered.rules)


def _unbuilt_wanted(question: str, page: Page, knowledge: Knowledge, best_offered: Ranked | None) -> str:
    """A tool of the DESIGN §8 catalogue that is not registered in code but that a strong rule names ("задеплой"
    → deploy_dashboard): the planner says it cannot do that yet instead of calling the nearest read tool."""
    scores = rule_scores(question, page.object_type)
    unbuilt = [(w, n) for n, w in scores.items() if n in TOOL_TITLES and n not in set(knowledge.catalogue)]
    if not unbuilt:
        return ""
    weight, name = max(unbuilt)
    if weight >= STRONG and (best_offered is None or weight > best_offered.rules):
        return name
    return ""


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"id": f"call_{uuid.uuid4().hex[:24]}", "name": name, "args": args}])


def _text(text: str) -> AIMessage:
    return AIMessage(content=text)


def plan_step(turn: Turn, knowledge: Knowledge) -> AIMessage:
    """Return the next assistant message of the turn: a tool call or the answer text."""
    page = turn.page

    def choose(question: str) -> Choice:  # a title given without quotes is read as a quoted one
        if phrase := request_without_tool(question):  # said in the person's words, not with a title quoted
            return Choice("unsupported", phrase=phrase)
        named = name_quoted(question, mentions_read(question, knowledge.environments).search_text)
        return tool_choose(question=named, page=page, offered=list(turn.tools), knowledge=knowledge)

    turn.question = set_aside_dropped(figure_asked_part(turn) or turn.question, knowledge.environments)
    choice = choose(turn.question)
    bare = bare_answer(turn.question, knowledge.environments)
    if turn.previous_question and (bare or choice.kind in ("unknown", "tool") and choice.rules <= 0):
        # An answer to the assistant's question («О каком датасете?» → «energy_consumption») or a short follow-up
        # completes the previous request; one that only gives a value («prod», «в staging») whatever keyword it is.
        previous = previous_answered(turn.previous_question, turn.question, knowledge.environments, turn.follow_up)
        joined = f"{previous} {turn.question}"
        retry = choose(joined)
        if retry.kind in ("tool", "unavailable") and (retry.rules > 0 or turn.follow_up):
            turn.question, choice = joined, retry
            turn.language = conversation_language([turn.previous_question, turn.question])
    if bare_direction(turn, knowledge.environments):
        choice = Choice("tool", "deploy_dashboard", rules=STRONG)  # «в прод» on a dashboard page: move it there
    mentions = mentions_read(turn.question, knowledge.environments)
    choice = dataset_users(turn, mentions) or data_figure_elsewhere(turn, choice) or kind_named(turn, choice, mentions)
    aspect = asked_aspect_of(turn, choice)
    if aspect is not None:
        # What no tool returns is said first (issue 29 item 1): the nearest read tool's answer is shown instead, an
        # operation asked for besides (a notification after it too: "back it up and email me") runs as asked, and no
        # other operation's card stands in for an action no tool performs.
        turn.aspect = aspect
        told = aspect.kind == "question" or aspect.name == "notify" and action_requested(aspect.without(turn.question))
        asked_too = told and choice.kind == "tool" and action_requested(turn.question)
        instead = choice.tool if asked_too else instead_tool(turn, choice, mentions)
        if instead is None and not turn.results:
            return _text(cannot_here_text(turn, aspect))
        choice = Choice("tool", instead or choice.tool, rules=choice.rules)
    turn.intended = choice.tool if choice.kind == "tool" else ""
    if turn.results:
        last = turn.results[-1]
        if not last.ok and isinstance(last.payload, dict) and last.payload.get("reason") == "role":
            return _text(knowledge.why_not(last.tool, page, turn.language))
        return _after_results(turn, choice, mentions)
    if choice.kind == "unsupported":
        return _text(unsupported_text(turn, choice.phrase))
    if choice.kind == "unavailable":
        if (
            choice.rules >= STRONG
            and action_requested(turn.question)
            and knowledge.not_offered_reason(choice.tool, page) == "role"
        ):
            # An action the role lacks is asked for anyway, so the guardrail refuses it where everyone sees it:
            # the «Недостаточно прав» card and its audit row (DESIGN §9), then the reason in words.
            spec = tool_spec(choice.tool)
            parameters = spec.args_schema.model_json_schema() if spec is not None else {}
            args, _ = args_fill(tool=choice.tool, parameters=parameters, mentions=mentions, page=page)
            return _call(choice.tool, args)
        reason = knowledge.not_offered_reason(choice.tool, page)
        # an environment named that does not exist, or is off («… на staging» with none picked; a fresh check, q24)
        said = reason == "environment" and environment_said_text(turn, knowledge.environments, turn.question)
        text = said or knowledge.why_not(choice.tool, page, turn.language)
        if reason == "page":
            # Another page's tool: the answer offers to ask the same question without this page (issue 29 item 2).
            return AIMessage(content=text, response_metadata={ASK_WITHOUT_PAGE: True})
        return _text(text)
    if choice.kind == "unknown":
        return AIMessage(content=not_understood_text(turn), response_metadata={HAND_OVER: True})
    # The name searched for is no environment ("the dashboard Stage results"): its words are not read as one.
    own = turn.question.replace(mentions.search_text, " ") if mentions.search_text else turn.question
    takes_env = bool(set(properties(turn, choice.tool)) & {"env_id", "source_env_id", "target_env_id"})
    # «в staging» (not active), «в uat-7» (none such): said so, not asked for again nor replaced by the page's.
    if takes_env and (said := environment_said_text(turn, knowledge.environments, own)):
        return _text(said)
    return _first_call(turn, choice.tool, mentions)


# --- the first call -------------------------------------------------------------------------------------------


def _first_call(turn: Turn, tool: str, mentions: Mentions) -> AIMessage:
    args, missing = args_fill(
        tool=tool, parameters=turn.tools[tool].get("parameters") or {}, mentions=mentions, page=turn.page
    )
    for name in [*missing, *named_unfilled(turn, tool, args, mentions)]:
        search = SEARCH_FOR.get(name)
        if search in turn.tools and mentions.search_text and env_ready(turn, search, mentions):
            found = search_args(turn, search, mentions)
            if args.get("source_env_id") and "env_id" in found:
                # The object moved (deploy, migration) lives in the source: "deploy X to prod" looks X up there.
                found["env_id"] = args["source_env_id"]
            return _call(search, found)
    if tool == "superset_execute_sql" and ("sql" in missing or mentions.sql):
        if step := sql_first_step(turn, mentions, args):
            return _call(*step)
    audit = tool == "superset_audit_permissions" and bool(missing)
    if audit and mentions.database and "superset_explore_database" in turn.tools:
        return _call("superset_explore_database", {"env_id": args.get("env_id") or turn.page.env_id})
    noun = next((o for o in read_question(turn.question).objects if o in AUDITED_SEARCH), mentions.names_kind)
    named = AUDITED_SEARCH.get(noun or "")
    if audit and named in turn.tools and mentions.search_text:
        return _call(named, search_args(turn, named, mentions))  # «у кого доступ к датасету orders_clean»
    if missing:
        if tool == "superset_create_dataset" and missing[0] == "table_name" and mentions.sql:
            return _text(clarify_text(turn, tool, "virtual_name"))
        return _ask(turn, tool, missing[0])
    if first_step(turn.question, tool) == "preview_migration" and "preview_migration" in turn.tools:
        preview = {k: v for k, v in args.items() if k in properties(turn, "preview_migration")}
        return _call("preview_migration", preview)
    return _call(tool, args)


def _ask(turn: Turn, tool: str, parameter: str) -> AIMessage:
    """Ask for ``parameter``; for SQL to run the planner writes none, a model may (``HAND_OVER``)."""
    sql_asked = (tool, parameter) == ("superset_execute_sql", "sql")
    if sql_asked and refers_to_missing_query(turn.question, turn.earlier_sql):
        return _text(no_earlier_query_text(turn.language))  # «тот запрос» with none before: asked, not written
    meta = {HAND_OVER: True} if sql_asked else {}
    return AIMessage(content=clarify_text(turn, tool, parameter), response_metadata=meta)


# --- after results ------------------------------------------------------------------------------------------


def _after_results(turn: Turn, choice: Choice, mentions: Mentions) -> AIMessage:
    last = turn.results[-1]
    if not last.ok:
        moot_read = read_after_moot(turn, last)  # nothing to roll back: what was deployed there, after the reason
        return _call(*moot_read) if moot_read else _text(failure_text(turn, last))
    if (written := sql_after_values(turn, mentions.row_limit)) is not None:  # the values a condition names, read
        return _call(SQL, written) if written else _ask(turn, SQL, "sql")
    intended = choice.tool if choice.kind == "tool" else ""
    if last.tool == "superset_explore_database" and (following := explore_next(turn.question, last, turn.tools)):
        return _call(*following)  # the database behind the dataset, or the values of the columns it lists
    reads_dataset = sql_instead(intended, last.tool, turn.question)
    if reads_dataset and writes_sql(turn.question) and "superset_execute_sql" in turn.tools:
        intended = "superset_execute_sql"  # "first 5 rows of energy_consumption": its rows, not its description
    if intended == last.tool and (read := found_part_read(turn, last)):
        intended = read  # "which charts are on «X»?": the one dashboard found is read for its parts
    done = {r.tool for r in turn.results if r.ok}
    if intended and intended not in done and intended in turn.tools:
        step = _continue_chain(turn, intended, last, mentions)
        if step is not None:
            return step
    return _text(answer_text(turn))


def _continue_chain(turn: Turn, intended: str, last: Result, mentions: Mentions) -> AIMessage | None:
    if last.tool in ROWS_KEY:
        rows, total = items((last.payload or {}).get(ROWS_KEY[last.tool]))
        if len(rows) != 1:
            return None  # none or several: the search answer lists them and the user picks
        key = "dashboard_id" if last.tool == "search_dashboards" else "dataset_id"
        env = {"env_id": last.args["env_id"]} if "env_id" in last.args else {}  # where the object was found
        if key == "dataset_id" and intended == "superset_execute_sql" and not mentions.sql:
            # A count or the first rows of a dataset found by its name: a physical one's table is in the search's
            # row; a virtual one's SQL is read first (when the router offered the explorer; sql_steps).
            row = rows[0]
            source = {"table": row.get("name"), "schema": row.get("schema")} if row.get("kind") == "physical" else {}
            sql = sql_for(turn.question, {"source": source}, mentions.row_limit) if source else None
            if sql:
                return _call(intended, {**env, "dataset_id": row["id"], "sql": sql})
            if "superset_explore_database" in turn.tools:
                return _call("superset_explore_database", {**env, "dataset_id": row["id"]})
        if intended == "superset_audit_permissions":  # the object found is the one audited
            return _call(intended, {**env, "object_type": key.removesuffix("_id"), "object_id": rows[0]["id"]})
        args, missing = args_fill(
            tool=intended, parameters=turn.tools[intended].get("parameters") or {}, mentions=mentions, page=turn.page
        )
        args, missing = found_args(turn, intended, last, {**args, key: rows[0]["id"]}, missing)
        return _ask(turn, intended, missing[0]) if missing else _call(intended, args)
    if last.tool == "preview_migration" and intended == "execute_migration" and not PREVIEW_ONLY.search(turn.question):
        args = {k: v for k, v in last.args.items() if k in properties(turn, intended)}
        return _call(intended, args)
    if last.tool == "superset_explore_database" and intended == "superset_execute_sql":
        database_id = only_database(last.payload or {}) if mentions.sql else None
        if database_id:  # the person's SQL, on the environment's only database
            return _call(intended, {**last.args, "database_id": database_id, "sql": mentions.sql})
        if step := figure_step(turn.question, last.payload or {}, mentions.row_limit, mentions.sql):
            return _call(intended, {**last.args, **step})  # its SQL, or first the values a condition may name
        if not mentions.sql and last.args.get("dataset_id"):  # a figure it does not write (a month, a condition)
            return _ask(turn, intended, "sql")  # is asked for, not answered with the dataset's description
    if last.tool == "superset_explore_database" and intended == "superset_audit_permissions":
        rows, _ = items((last.payload or {}).get("databases"))
        wanted = (mentions.database or "").casefold()
        match = [r for r in rows if str(r.get("name", "")).casefold() == wanted]
        if len(match) == 1:
            env = {"env_id": last.args["env_id"]} if last.args.get("env_id") else {}
            return _call(intended, {**env, "object_type": "database", "object_id": match[0]["id"]})
    return None
