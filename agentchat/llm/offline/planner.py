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

import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage

from agentchat.errors import ID_ARGUMENTS, not_found_text
from agentchat.language import detect_language
from agentchat.llm.offline import answers
from agentchat.llm.offline.answers.base import items
from agentchat.llm.offline.arguments import Page, args_fill
from agentchat.llm.offline.mentions import Mentions, mentions_read
from agentchat.runtime.registry import tool_spec
from agentchat.runtime.titles import TOOL_TITLES, tool_title
from agentchat.toolset.intents import (
    MEDIUM,
    READ_COUNTERPART,
    STRONG,
    action_requested,
    request_without_tool,
    rule_scores,
)
from agentchat.toolset.router import Ranked

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
SEARCH_FOR = {"dashboard_id": "search_dashboards", "dataset_id": "search_datasets"}
ROWS_KEY = {"search_dashboards": "dashboards", "search_datasets": "datasets"}


@dataclass
class Result:
    """One tool result of the current turn: the call and the ToolMessage payload (``ok`` False for errors)."""

    tool: str
    args: dict[str, Any]
    payload: Any
    ok: bool


@dataclass
class Turn:
    """The current turn as the planner reads it.

    Attributes:
        question: the last user message (joined with the previous one when it answers a clarifying question).
        language: ``ru`` or ``en``.
        context: the page-context data of the system prompt (``{"status": ...}`` without context).
        tools: the offered tools by name (OpenAI function dicts: ``name``, ``description``, ``parameters``).
        results: the tool results since the last user message.
        previous_question: the user message before the last one, when the assistant answered it with a question.
    """

    question: str
    language: str
    context: dict[str, Any]
    tools: dict[str, dict[str, Any]]
    results: list[Result] = field(default_factory=list)
    previous_question: str = ""
    intended: str = ""

    @property
    def page(self) -> Page:
        return Page.from_context(self.context)

    def t(self, ru: str, en: str) -> str:
        return en if self.language == "en" else ru


Rank = Callable[[str, Sequence[str], str | None], list[Ranked]]


@dataclass
class Knowledge:
    """Look-ups the planner needs beyond the prompt.

    Attributes:
        rank: ``(question, tool names, object type) → ranking`` (router + rules), for any registered tools.
        catalogue: every registered tool name (to notice a wanted tool that is not offered).
        environments: ``[(env_id, tier)]`` of the active environments.
        why_not: ``(tool, page, language) → sentence`` saying why a tool is not offered here.
        not_offered_reason: ``(tool, page) → code`` of that reason (``role`` when only the user's role lacks
            it; see ``offline.not_offered_reason``); by default no reason is known.
    """

    rank: Rank
    catalogue: Sequence[str]
    environments: list[tuple[str, str]]
    why_not: Callable[[str, Page, str], str]
    not_offered_reason: Callable[[str, Page], str] = lambda tool, page: ""


@dataclass(frozen=True)
class Choice:
    """The planner's reading of the question: ``kind`` is ``tool``, ``unavailable``, ``unsupported`` or
    ``unknown``; ``tool`` the tool meant; ``phrase`` the unsupported request's words; ``rules`` the keyword-rule
    weight behind the choice (0 when only the embedding chose)."""

    kind: str
    tool: str = ""
    phrase: str = ""
    rules: float = 0.0


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
    if best is not None and best.name not in offered and best.rules >= MEDIUM:
        substitute = next((s for s in SUBSTITUTES.get(best.name, ()) if s in offered), None)
        if substitute:
            return Choice("tool", substitute, rules=best.rules)
        if best_offered is None or best.score - best_offered.score >= UNAVAILABLE_MARGIN:
            return Choice("unavailable", best.name, rules=best.rules)
    if best_offered is not None and _changes_state(best_offered.name) and not action_requested(question):
        # A question about state never gets a write card: answer it with the read tool that tells that state,
        # else the best read tool, if any fits.
        counterpart = READ_COUNTERPART.get(best_offered.name)
        reads = [r for r in ranked if r.name in offered and not _changes_state(r.name)]
        best_offered = next((r for r in reads if r.name == counterpart), reads[0] if reads else None)
    if best_offered is None:
        return Choice("unknown")
    mean = sum(r.similarity for r in ranked) / len(ranked)
    if best_offered.rules <= 0 and best_offered.similarity - mean < SIMILARITY_MARGIN:
        return Choice("unknown")
    return Choice("tool", best_offered.name, rules=best_offered.rules)


def _changes_state(name: str) -> bool:
    spec = tool_spec(name)
    return spec is not None and spec.category != "read"


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
    choice = tool_choose(question=turn.question, page=page, offered=list(turn.tools), knowledge=knowledge)
    if turn.previous_question and choice.kind in ("unknown", "tool") and choice.rules <= 0:
        # An answer to the assistant's question («О каком датасете?» → «energy_consumption») completes the
        # previous request rather than starting a new one.
        joined = f"{turn.previous_question} {turn.question}"
        retry = tool_choose(question=joined, page=page, offered=list(turn.tools), knowledge=knowledge)
        if retry.kind in ("tool", "unavailable") and retry.rules > 0:
            turn.question, choice = joined, retry
            turn.language = detect_language(joined)
    mentions = mentions_read(turn.question, knowledge.environments)
    turn.intended = choice.tool if choice.kind == "tool" else ""
    if turn.results:
        last = turn.results[-1]
        if not last.ok and isinstance(last.payload, dict) and last.payload.get("reason") == "role":
            return _text(knowledge.why_not(last.tool, page, turn.language))
        return _after_results(turn, choice, mentions)
    if choice.kind == "unsupported":
        return _text(_unsupported(turn, choice.phrase))
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
        return _text(knowledge.why_not(choice.tool, page, turn.language))
    if choice.kind == "unknown":
        return _text(_not_understood(turn))
    return _first_call(turn, choice.tool, mentions)


# --- the first call -------------------------------------------------------------------------------------------


def _first_call(turn: Turn, tool: str, mentions: Mentions) -> AIMessage:
    args, missing = args_fill(
        tool=tool, parameters=turn.tools[tool].get("parameters") or {}, mentions=mentions, page=turn.page
    )
    for name in missing:
        search = SEARCH_FOR.get(name)
        if search in turn.tools and mentions.search_text and _env_ready(turn, search, mentions):
            return _call(search, _search_args(turn, search, mentions))
    if tool == "superset_execute_sql" and "sql" in missing:
        step = _sql_from_dataset(turn, mentions, args)
        if step is not None:
            return step
    if (
        tool == "superset_audit_permissions"
        and missing
        and mentions.database
        and "superset_explore_database" in turn.tools
    ):
        return _call("superset_explore_database", {"env_id": args.get("env_id") or turn.page.env_id})
    if missing:
        if tool == "superset_create_dataset" and missing[0] == "table_name" and mentions.sql:
            return _text(_clarify(turn, tool, "virtual_name"))
        return _text(_clarify(turn, tool, missing[0]))
    if tool == "execute_migration" and "preview_migration" in turn.tools:
        preview = {k: v for k, v in args.items() if k in _properties(turn, "preview_migration")}
        return _call("preview_migration", preview)
    return _call(tool, args)


def _properties(turn: Turn, tool: str) -> dict[str, Any]:
    return (turn.tools[tool].get("parameters") or {}).get("properties") or {}


def _env_ready(turn: Turn, tool: str, mentions: Mentions) -> bool:
    return "env_id" not in _properties(turn, tool) or bool(mentions.envs or turn.page.env_id)


def _search_args(turn: Turn, tool: str, mentions: Mentions) -> dict[str, Any]:
    args, _ = args_fill(
        tool=tool, parameters=turn.tools[tool].get("parameters") or {}, mentions=mentions, page=turn.page
    )
    return {k: v for k, v in args.items() if k in ("env_id", "query")}


COUNT = re.compile(r"сколько (всего )?(записей|строк)|how many (rows|records)|count (the )?rows|number of rows", re.I)
FIRST_ROWS = re.compile(r"(первые|first|top)\s+\d+|покажи (строки|данные|записи)|show (me )?(the )?(rows|data)", re.I)


def _sql_from_dataset(turn: Turn, mentions: Mentions, args: dict[str, Any]) -> AIMessage | None:
    """A count or the first rows of the page's dataset: read its table first (then ``_sql_for``)."""
    wants = COUNT.search(turn.question) or FIRST_ROWS.search(turn.question)
    dataset_id = args.get("dataset_id")
    if wants and dataset_id and "superset_explore_database" in turn.tools:
        return _call("superset_explore_database", {"env_id": args.get("env_id"), "dataset_id": dataset_id})
    return None


def _sql_for(question: str, source: dict[str, Any], row_limit: int | None) -> str | None:
    table = source.get("table")
    if table:
        schema = source.get("schema")
        relation = f'"{schema}"."{table}"' if schema else f'"{table}"'
    elif source.get("sql"):
        relation = f"({str(source['sql']).rstrip(' ;')}) AS dataset"
    else:
        return None
    if COUNT.search(question):
        return f"SELECT COUNT(*) AS row_count FROM {relation}"
    return f"SELECT * FROM {relation} LIMIT {row_limit or 10}"


# --- after results ------------------------------------------------------------------------------------------


def _after_results(turn: Turn, choice: Choice, mentions: Mentions) -> AIMessage:
    last = turn.results[-1]
    if not last.ok:
        return _text(_failure(turn, last))
    intended = choice.tool if choice.kind == "tool" else ""
    done = {r.tool for r in turn.results if r.ok}
    if intended and intended not in done and intended in turn.tools:
        step = _continue_chain(turn, intended, last, mentions)
        if step is not None:
            return step
    return _text(_answer(turn))


def _continue_chain(turn: Turn, intended: str, last: Result, mentions: Mentions) -> AIMessage | None:
    if last.tool in ROWS_KEY:
        rows, total = items((last.payload or {}).get(ROWS_KEY[last.tool]))
        if len(rows) != 1:
            return None  # none or several: the search answer lists them and the user picks
        key = "dashboard_id" if last.tool == "search_dashboards" else "dataset_id"
        args, missing = args_fill(
            tool=intended, parameters=turn.tools[intended].get("parameters") or {}, mentions=mentions, page=turn.page
        )
        args = {**args, key: rows[0]["id"], **({"env_id": last.args["env_id"]} if "env_id" in last.args else {})}
        missing = [m for m in missing if m not in args]
        return _text(_clarify(turn, intended, missing[0])) if missing else _call(intended, args)
    if last.tool == "preview_migration" and intended == "execute_migration":
        args = {k: v for k, v in last.args.items() if k in _properties(turn, intended)}
        return _call(intended, args)
    if last.tool == "superset_explore_database" and intended == "superset_execute_sql":
        sql = _sql_for(turn.question, (last.payload or {}).get("source") or {}, mentions.row_limit)
        if sql:
            return _call(intended, {**last.args, "sql": sql})
    if last.tool == "superset_explore_database" and intended == "superset_audit_permissions":
        rows, _ = items((last.payload or {}).get("databases"))
        wanted = (mentions.database or "").casefold()
        match = [r for r in rows if str(r.get("name", "")).casefold() == wanted]
        if len(match) == 1:
            env = {"env_id": last.args["env_id"]} if last.args.get("env_id") else {}
            return _call(intended, {**env, "object_type": "database", "object_id": match[0]["id"]})
    return None


def tool_intended(turn: Turn) -> str:
    """The tool the question asks for (set by ``plan_step``; empty when it asks for none)."""
    return turn.intended


def _answer(turn: Turn) -> str:
    """The answer from the results that matter: the last one, after a search only the search itself."""
    last = turn.results[-1]
    texts = [answers.answer_from_result(last.tool, last.payload, turn.language)]
    intended = tool_intended(turn)
    if last.tool in ROWS_KEY and intended and intended != last.tool:
        rows, total = items((last.payload or {}).get(ROWS_KEY[last.tool]))
        if total > 1:
            texts.append(turn.t("Какой из них вы имеете в виду? Укажите номер.", "Which one do you mean? Give its id."))
    if last.tool == "show_capabilities":
        texts.append(
            turn.t(
                "Я работаю в офлайн-режиме, без языковой модели: понимаю запросы к этим инструментам и отвечаю "
                "по шаблонам.",
                "I am running offline, without a language model: I understand requests for these tools and answer "
                "from templates.",
            )
        )
    if turn.context.get("status") == "unavailable":
        texts.insert(0, turn.t("Контекст недоступен: отвечаю в общем режиме.", "Context unavailable: general mode."))
    return "\n\n".join(texts)


DECLINED = {"denied", "expired", "cancelled"}


def _failure(turn: Turn, result: Result) -> str:
    payload = result.payload if isinstance(result.payload, dict) else {"message": str(result.payload)}
    title = tool_title(result.tool, turn.language)
    if payload.get("error") == "denied":
        # the card and the chat line already say «Операция отменена»; the answer only confirms
        return turn.t(f"Хорошо, ничего не меняю ({title}).", f"OK, I changed nothing ({title}).")
    if payload.get("error") in DECLINED:
        return turn.t(
            f"Операция отменена ({title}): ничего не изменено.",
            f"Operation cancelled ({title}): nothing was changed.",
        )
    if payload.get("error") == "permission_denied":
        return turn.t(
            f"Это недоступно ({title}): для вашей роли здесь такой инструмент не предлагается.",
            f"That is not available ({title}): it is not offered to your role here.",
        )
    if payload.get("status") == 404:
        named = [(ID_ARGUMENTS[k], v) for k, v in (result.args or {}).items() if k in ID_ARGUMENTS]
        if len(named) == 1:
            object_type, object_id = named[0]
            return not_found_text(object_type, object_id, (result.args or {}).get("env_id"), turn.language)
    return answers.answer_from_error(result.tool, payload, turn.language)


# --- texts ------------------------------------------------------------------------------------------------


def _offered_list(turn: Turn) -> str:
    titles = [tool_title(n, turn.language) for n in turn.tools if n != "show_capabilities"]
    return "\n".join(f"- {title[:1].upper()}{title[1:]}" for title in titles)


def _unsupported(turn: Turn, phrase: str) -> str:
    head = turn.t(
        f"Этого я сделать не могу («{phrase}»): у меня нет такого инструмента, и я ничего не менял. "
        "Удалять, переименовывать объекты, менять графики и права можно в самом Superset.",
        f"I cannot do that (“{phrase}”): I have no tool for it, and I changed nothing. Deleting or renaming "
        "objects, editing charts and granting rights are done in Superset itself.",
    )
    return head + "\n\n" + turn.t("Здесь я могу:", "Here I can do:") + "\n" + _offered_list(turn)


def _not_understood(turn: Turn) -> str:
    return (
        turn.t(
            "Я работаю в офлайн-режиме, без языковой модели, и понимаю только запросы к своим инструментам — "
            "этот вопрос я не разобрал. Здесь я могу:",
            "I am running offline, without a language model, and only understand requests for my tools — I did "
            "not understand this one. Here I can do:",
        )
        + "\n"
        + _offered_list(turn)
    )


CLARIFY: dict[str, tuple[str, str]] = {
    "env_id": (
        "Для этого нужно окружение: выберите его в переключателе окружений вверху страницы.",
        "This needs an environment: pick one in the environment selector at the top of the page.",
    ),
    "source_env_id": (
        "Из какого окружения? Выберите его вверху страницы или напишите «из ss-dev».",
        "From which environment? Pick it at the top of the page or write “from ss-dev”.",
    ),
    "target_env_id": (
        "В какое окружение? Напишите, например, «в prod» или «в staging».",
        "To which environment? Write, for example, “to prod” or “to staging”.",
    ),
    "dashboard_id": (
        "О каком дашборде речь? Укажите его номер или название в кавычках — или откройте агента со страницы дашборда.",
        "Which dashboard do you mean? Give its id or its name in quotes — or open the agent from the dashboard's page.",
    ),
    "dashboard_ids": (
        "Какие дашборды? Перечислите их номера, например «дашборды 1 и 2».",
        "Which dashboards? List their ids, for example “dashboards 1 and 2”.",
    ),
    "dataset_id": (
        "О каком датасете речь? Укажите его номер или название в кавычках — или откройте агента со страницы датасета.",
        "Which dataset do you mean? Give its id or its name in quotes — or open the agent from the dataset's page.",
    ),
    "sql": (
        "Пришлите SQL-запрос (SELECT …), можно в обратных кавычках: в офлайн-режиме я не составляю запросы сам.",
        "Send the SQL query (SELECT …), in backticks if you like: offline, I do not write queries myself.",
    ),
    "task_id": ("Укажите номер задачи, например «задача 12».", "Give the task id, for example “task 12”."),
    "name": (
        "Как назвать ветку? Например: «создай ветку feature/energy-report».",
        "What should the branch be called? For example: “create branch feature/energy-report”.",
    ),
    "table_name": (
        "Для какой таблицы создать датасет? Например: «для таблицы regions в базе Energy».",
        "For which table? For example: “for table regions in database Energy”.",
    ),
    "virtual_name": (
        "Как назвать новый виртуальный датасет? Например: «датасет top_regions: SELECT …».",
        "What should the new virtual dataset be called? For example: “dataset top_regions: SELECT …”.",
    ),
    "object_id": (
        "Права на какой объект проверить? Укажите, например, «дашборд 1», «датасет 2» или «база 1».",
        "Whose permissions? Say, for example, “dashboard 1”, “dataset 2” or “database 1”.",
    ),
}


def _clarify(turn: Turn, tool: str, parameter: str) -> str:
    if parameter == "object_type":
        parameter = "object_id"
    ru, en = CLARIFY.get(
        parameter,
        (f"Чего-то не хватает: уточните «{parameter}».", f"Something is missing: please give “{parameter}”."),
    )
    return turn.t(ru, en)
