"""The offline planner: a LangChain chat model that needs no network (DESIGN §11).

It reads exactly what an LLM would be sent (system prompt with the UIContext block, history, bound tools) and
decides with ``planner.plan_step``: the embedding router and keyword rules pick a tool from the offered set,
arguments come from the context and the question, a missing one is asked for, a second call follows when the
first result calls for it, and the answer is written with templates in the user's language. It says so when it
does not understand, and explains honestly why a tool is not available here (page, role or environment).

The decision runs in a worker thread (``sync_to_async``): it embeds the question. What the policies say (why a
tool is not offered here, the active environments) comes from the turn (``knowledge_for``), never from the tables.
"""

import json
import logging
import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

from asgiref.sync import sync_to_async
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import pgettext, pgettext_lazy
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.tool import ToolCall
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool

from agentchat.context.uicontext import parse_prompt_block
from agentchat.errors import IdentityMissing
from agentchat.language import conversation_language
from agentchat.llm.offline.arguments import Page
from agentchat.llm.offline.followup import previous_request
from agentchat.llm.offline.planner import plan_step
from agentchat.llm.offline.state import Knowledge, Result, Turn
from agentchat.runtime.registry import registry
from agentchat.runtime.titles import tool_title
from agentchat.toolset.router import Ranked, rank_with_rules, tool_router
from agentchat.toolset.selection import ToolChoice
from agentchat.toolset.tokens import quotes_unified, scripts_unmixed
from agentchat.toolset.words import SQL_IN_TEXT
from policies.services import Refusal

log = logging.getLogger(__name__)

# «Со страницы дашборда …» / "from a dashboard page": one page of that object type.
OBJECT_NAMES = {
    "dashboard": pgettext_lazy("the page of one", "dashboard"),
    "dataset": pgettext_lazy("the page of one", "dataset"),
    "migration": pgettext_lazy("the page of one", "migration"),
}
# «… со страниц дашбордов» / "from a dashboard page": the pages of that object type.
OBJECT_PAGES = {
    "dashboard": pgettext_lazy("the pages of", "dashboard"),
    "dataset": pgettext_lazy("the pages of", "dataset"),
    "migration": pgettext_lazy("the pages of", "migration"),
}


def _tools_by_name(tools: list[dict[str, Any]] | None) -> dict[str, dict[str, Any]]:
    out = {}
    for tool in tools or []:
        fn = tool.get("function", tool)
        out[fn["name"]] = fn
    return out


def _payload(message: ToolMessage) -> Any:
    try:
        return json.loads(str(message.content))
    except ValueError:
        return {"message": str(message.content)}


def turn_read(messages: list[BaseMessage], tools: list[dict[str, Any]] | None) -> Turn:
    """Read the current turn from the messages an LLM would get.

    Returns:
        A ``planner.Turn``: the last user question, its language, the page context, the offered tools, the
        results since the question, and the previous question when the assistant last asked something back.
    """
    system = next((m for m in messages if isinstance(m, SystemMessage)), None)
    context = (parse_prompt_block(str(system.content)) if system else None) or {}
    humans = [i for i, m in enumerate(messages) if isinstance(m, HumanMessage)]
    last = humans[-1] if humans else -1
    question = quotes_unified(scripts_unmixed(str(messages[last].content))) if last >= 0 else ""
    calls: dict[str | None, ToolCall] = {}
    results = []
    for message in messages[last + 1 :]:
        if isinstance(message, AIMessage):
            calls.update({c["id"]: c for c in message.tool_calls})
        elif isinstance(message, ToolMessage):
            call = calls.get(message.tool_call_id)
            name, args = (call["name"], call["args"]) if call else ("?", {})
            results.append(Result(name, dict(args or {}), _payload(message), message.status != "error"))
    previous, follow_up = previous_request(messages)
    # A one-word follow-up («prod») says nothing of the language: the conversation's is kept.
    language = conversation_language([str(messages[i].content) for i in humans])
    earlier = [m for m in messages[: max(last, 0)] if not isinstance(m, SystemMessage)]
    earlier_sql = any(SQL_IN_TEXT.search(str(m.content)) for m in earlier) or any(
        "sql" in (c.get("args") or {}) for m in earlier if isinstance(m, AIMessage) for c in m.tool_calls
    )
    return Turn(
        question,
        language,
        context,
        _tools_by_name(tools),
        results,
        previous,
        earlier_sql=earlier_sql,
        follow_up=follow_up,
    )


# --- what the planner knows beyond the prompt: the router, and the turn's policy facts --------------------------


def _rank(question: str, names: Sequence[str], object_type: str | None) -> list[Ranked]:
    specs = [spec for name, spec in registry().items() if name in set(names)]
    router = tool_router()
    if router is not None:
        try:
            return router.rank(question=question, specs=specs, object_type=object_type)
        except Exception as exc:  # the embeddings endpoint failed: the rules alone still work
            log.warning("tool router unavailable, ranking with the keyword rules alone: %s", exc)
    return rank_with_rules(question=question, similarities={s.name: 0.0 for s in specs}, object_type=object_type)


def _roles_text(roles: Sequence[str]) -> str:
    """The roles as alternatives («engineer или admin»), in the active language."""
    return pgettext("between alternative roles", " or ").join(roles) if roles else pgettext("no roles", "none")


class PolicyFacts:
    """The turn's verdict on every tool (``toolset.selection.ToolChoice``), read by the planner to say why a tool
    is not offered here; the turn judged them against the policy tables, the planner never reads those tables."""

    def __init__(self, choices: Sequence[ToolChoice]):
        self._choices = {c.name: c for c in choices}

    def not_offered_reason(self, tool: str, page: Page) -> str:
        """Why ``tool`` is not offered on ``page``, as a code, in this order: ``unbuilt`` (not registered, or no
        catalogue row), ``disabled``, ``role`` (the user's roles may not use it anywhere: said first, issue 29 item
        3 — no page or environment would help), ``environment`` (needs one, the page has none), ``page`` (not for
        this page type), ``identity`` (the user has no Superset identity in the page's environment, DESIGN §15),
        ``routed`` (allowed, but the router kept other tools for this question); ``role`` when nothing else is
        known."""
        choice = self._choices.get(tool)
        if choice is None or not choice.registered or not choice.catalogued:
            return "unbuilt"
        if Refusal.DISABLED in choice.refusals:
            return "disabled"
        if Refusal.ROLE in choice.refusals:
            return "role"
        if choice.env_specific and not page.env_id and Refusal.NEEDS_ENV in choice.refusals:
            return "environment"
        if page.object_type and page.object_type not in choice.object_types:
            return "page"
        if Refusal.NO_IDENTITY in choice.refusals and Refusal.ROLE not in choice.refusals:
            return "identity"
        if choice.routed_out and not choice.refusals:
            return "routed"  # allowed; only the router left it out (the question said too little)
        return "role"

    def why_not_offered(self, tool: str, page: Page, language: str) -> str:
        """Say truthfully why ``tool`` is not offered on ``page`` (``not_offered_reason``), in words.

        Args:
            tool: a registered tool name.
            page: the page context.
            language: ``ru`` or ``en``.

        Returns:
            One or two sentences for the user, without internal tool names.
        """
        title = tool_title(tool, language)
        reason = self.not_offered_reason(tool, page)
        with translation.override(language):
            if reason == "unbuilt":
                return _("I cannot do that yet (%(title)s).") % {"title": title}
            if reason == "disabled":
                return _("That is switched off by the administrator (%(title)s).") % {"title": title}
            if reason == "environment":
                return _("That (%(title)s) needs an environment: pick one in the selector at the top of the page.") % {
                    "title": title
                }
            if reason == "identity":
                return IdentityMissing(env=page.env_id).text(language)
            if reason == "routed":
                return _("I could not tell what to do (%(title)s?). Please ask in a whole sentence.") % {"title": title}
            choice = self._choices[tool]
            if reason == "page" and page.object_type:  # "page" is only given for a page with an object type
                return self._page_text(choice, page.object_type, title)
            return _(
                "That (%(title)s) needs the role %(roles)s, which your account does not have. Ask an administrator."
            ) % {"title": title, "roles": _roles_text(choice.roles)}

    @staticmethod
    def _page_text(choice: ToolChoice, object_type: str, title: str) -> str:
        here = OBJECT_NAMES[object_type]
        pages = ", ".join(str(OBJECT_PAGES[t]) for t in choice.object_types if t in OBJECT_PAGES)
        # The answer carries the one-click «спросить без контекста страницы» (issue 29 item 2: ``ASK_WITHOUT_PAGE``).
        if pages:
            return _(
                "That is not available from a %(here)s page (%(title)s): ask it without the page's context with the "
                "button below, or open the agent from a %(pages)s page."
            ) % {"here": here, "title": title, "pages": pages}
        return _(
            "That is not available from a %(here)s page (%(title)s): ask it without the page's context with the "
            "button below."
        ) % {"here": here, "title": title}


def knowledge_for(*, choices: Sequence[ToolChoice], environments: list[tuple[str, str]]) -> Knowledge:
    """The planner's knowledge for one turn: the router for ranking, the registry's names, and the policy facts
    the turn gathered (``choices``: every tool's verdict; ``environments``: ``[(env_id, tier)]`` active)."""
    facts = PolicyFacts(choices)
    return Knowledge(
        rank=_rank,
        catalogue=list(registry()),
        environments=list(environments),
        why_not=facts.why_not_offered,
        not_offered_reason=facts.not_offered_reason,
    )


def plan(messages: list[BaseMessage], tools: list[dict[str, Any]] | None, knowledge: Knowledge) -> AIMessage:
    """Decide the next assistant message for ``messages`` with the offered ``tools`` (OpenAI tool dicts)."""
    return plan_step(turn_read(messages, tools), knowledge)


class OfflinePlanner(BaseChatModel):
    """Offline, rule-based chat model; streams text word by word and tool calls as one chunk.

    Attributes:
        knowledge: what the turn knows beyond the prompt (``knowledge_for``; set per turn by
            ``llm.model_for_turn``); without it the planner knows no environments and no policy reasons.
        decided: a step decided already (``turn.guided``): streamed as it is, nothing planned again.
    """

    knowledge: Knowledge | None = None
    decided: AIMessage | None = None

    def _knowledge(self) -> Knowledge:
        return self.knowledge or knowledge_for(choices=(), environments=[])

    @property
    def _llm_type(self) -> str:
        return "agentchat-offline-planner"

    def bind_tools(
        self, tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool], **kwargs: Any
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Bind OpenAI-form tool dicts (the only form the turn sends); they reach ``_generate``/``_astream`` as the
        ``tools`` kwarg."""
        return self.bind(tools=tools, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=plan(messages, kwargs.get("tools"), self._knowledge()))])

    def _chunks(self, message: AIMessage) -> Iterator[ChatGenerationChunk]:
        if message.tool_calls:
            chunks = [
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))
            return
        words = re.findall(r"\S+\s*|\s+", str(message.content))
        for i, word in enumerate(words):
            # The answer's own flags (``ASK_WITHOUT_PAGE``) ride on its last chunk, merged into the reply.
            meta = dict(message.response_metadata) if i == len(words) - 1 else {}
            yield ChatGenerationChunk(message=AIMessageChunk(content=word, response_metadata=meta))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from self._chunks(plan(messages, kwargs.get("tools"), self._knowledge()))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        message = self.decided or await sync_to_async(plan)(messages, kwargs.get("tools"), self._knowledge())
        for chunk in self._chunks(message):
            yield chunk
