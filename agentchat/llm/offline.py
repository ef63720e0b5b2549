"""The offline planner: a LangChain chat model that needs no network (DESIGN §11).

It reads exactly what an LLM would be sent (system prompt with the UIContext block, history, bound tools),
picks a tool from the offered set by keyword rules, fills arguments from the context and the question, asks
for what is missing, chains a second call when the first result calls for it, and writes the answer from the
tool result with templates in the user's language.
"""

import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable

from ..context import parse_prompt_block
from ..language import detect_language
from . import answers

# Ordered: the first rule whose pattern matches and whose tool is offered wins.
INTENT_RULES: list[tuple[str, re.Pattern]] = [
    (
        "show_capabilities",
        re.compile(
            r"что ты (умеешь|можешь)|чем .*помо|как(ие|ими) .*инструмент|what can you|capabilit|"
            r"which tools|how can you help|help me",
            re.I,
        ),
    ),
    ("list_environments", re.compile(r"окружени|environments?\b|где .*прод|which .*production", re.I)),
    (
        "search_dashboards",
        re.compile(
            r"найди|найти|поиск|ищи|какие .*дашборд|список .*дашборд|find|search|"
            r"(list|which|what) .*dashboards",
            re.I,
        ),
    ),
    (
        "get_health_summary",
        re.compile(
            r"расскаж|статус|состояни|здоров|график|владел|кто .*мен|tell me|status|health|chart|owner|"
            r"about (this|the) dashboard|overview",
            re.I,
        ),
    ),
]
_QUOTED = re.compile(r"[«\"“']([^»\"”']{2,200})[»\"”']")


@dataclass
class _Turn:
    """What the planner knows about the current turn."""

    question: str
    language: str
    context: dict[str, Any]
    offered: dict[str, dict[str, Any]]
    results: list[tuple[str, dict[str, Any], bool]]  # (tool, payload, ok) since the last user message


def _tool_names(tools: list[dict[str, Any]] | None) -> dict[str, dict[str, Any]]:
    out = {}
    for tool in tools or []:
        fn = tool.get("function", tool)
        out[fn["name"]] = fn
    return out


def _read_turn(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> _Turn:
    system = next((m for m in messages if isinstance(m, SystemMessage)), None)
    context = parse_prompt_block(str(system.content)) if system else None
    last_human = max((i for i, m in enumerate(messages) if isinstance(m, HumanMessage)), default=-1)
    question = str(messages[last_human].content) if last_human >= 0 else ""
    calls: dict[str, str] = {}
    results = []
    for message in messages[last_human + 1 :]:
        if isinstance(message, AIMessage):
            calls.update({c["id"]: c["name"] for c in message.tool_calls})
        elif isinstance(message, ToolMessage):
            try:
                payload = json.loads(str(message.content))
            except ValueError:
                payload = {"message": str(message.content)}
            ok = message.status != "error"
            results.append((calls.get(message.tool_call_id, "?"), payload, ok))
    return _Turn(question, detect_language(question), context or {}, _tool_names(tools), results)


def _t(turn: _Turn, ru: str, en: str) -> str:
    return en if turn.language == "en" else ru


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"id": f"call_{uuid.uuid4().hex[:24]}", "name": name, "args": args}])


def _intent(turn: _Turn) -> str | None:
    for tool, pattern in INTENT_RULES:
        if pattern.search(turn.question):
            return tool
    return None


def _first_move(turn: _Turn) -> AIMessage:
    context = turn.context
    env_id = context.get("envId")
    intent = _intent(turn)
    if intent is None:
        intent = "get_health_summary" if context.get("objectType") == "dashboard" else "show_capabilities"
    if intent not in turn.offered:
        if context.get("status") == "unavailable" and "show_capabilities" in turn.offered:
            return _call("show_capabilities", {})
        missing_env = intent in {"search_dashboards", "get_health_summary"} and not env_id
        if missing_env:
            return AIMessage(
                content=_t(
                    turn,
                    "Для этого нужно окружение: выберите его в переключателе окружений вверху страницы.",
                    "This needs an environment: pick one in the environment selector at the top of the page.",
                )
            )
        return AIMessage(
            content=_t(
                turn,
                f"Здесь это недоступно: инструмент {intent} не предложен для этой страницы и вашей роли.",
                f"That is not available here: {intent} is not offered for this page and your role.",
            )
        )
    if intent == "get_health_summary":
        if context.get("objectType") == "dashboard" and context.get("objectId"):
            return _call(intent, {"env_id": env_id, "dashboard_id": int(context["objectId"])})
        quoted = _QUOTED.search(turn.question)
        if quoted and "search_dashboards" in turn.offered:
            return _call("search_dashboards", {"env_id": env_id, "query": quoted.group(1)})
        return AIMessage(
            content=_t(
                turn,
                "О каком дашборде речь? Назовите его (в кавычках) или откройте агента со страницы дашборда.",
                "Which dashboard do you mean? Name it (in quotes) or open the agent from the dashboard's page.",
            )
        )
    if intent == "search_dashboards":
        quoted = _QUOTED.search(turn.question)
        return _call(intent, {"env_id": env_id, "query": quoted.group(1) if quoted else None})
    return _call(intent, {})


def _next_move(turn: _Turn) -> AIMessage:
    tool, payload, ok = turn.results[-1]
    if (
        ok
        and tool == "search_dashboards"
        and _intent(turn) == "get_health_summary"
        and "get_health_summary" in turn.offered
    ):
        rows = payload.get("dashboards")
        rows = rows.get("items", []) if isinstance(rows, dict) else rows or []
        if len(rows) == 1:
            return _call("get_health_summary", {"env_id": payload.get("env_id"), "dashboard_id": rows[0]["id"]})
    texts = [
        answers.answer_from_result(name, data, turn.language)
        if good
        else answers.answer_from_error(name, data, turn.language)
        for name, data, good in turn.results
    ]
    if turn.context.get("status") == "unavailable":
        texts.insert(0, _t(turn, "Контекст недоступен: отвечаю в общем режиме.", "Context unavailable: general mode."))
    return AIMessage(content="\n\n".join(texts))


def plan(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> AIMessage:
    """Decide the next assistant message for ``messages`` with the offered ``tools`` (OpenAI tool dicts)."""
    turn = _read_turn(messages, tools)
    if turn.results:
        return _next_move(turn)
    return _first_move(turn)


class OfflinePlanner(BaseChatModel):
    """Offline, rule-based chat model; streams text word by word and tool calls as one chunk."""

    @property
    def _llm_type(self) -> str:
        return "agentchat-offline-planner"

    def bind_tools(self, tools: list[dict[str, Any]], **kwargs: Any) -> Runnable:
        """Bind OpenAI-form tool dicts; they reach ``_generate``/``_astream`` as the ``tools`` kwarg."""
        return self.bind(tools=tools, **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=plan(messages, kwargs.get("tools")))])

    def _chunks(self, message: AIMessage) -> Iterator[ChatGenerationChunk]:
        if message.tool_calls:
            chunks = [
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))
            return
        for word in re.findall(r"\S+\s*|\s+", str(message.content)):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word))

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:
        yield from self._chunks(plan(messages, kwargs.get("tools")))

    async def _astream(self, messages, stop=None, run_manager=None, **kwargs) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(plan(messages, kwargs.get("tools"))):
            yield chunk
