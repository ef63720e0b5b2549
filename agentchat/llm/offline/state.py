"""What the offline planner reads (DESIGN §11): the turn as an LLM would see it, and the look-ups it is given.

Leaf types shared by ``planner`` (decisions) and ``replies`` (texts).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentchat.errors import NOT_APPLICABLE
from agentchat.llm.offline.arguments import Page
from agentchat.toolset.aspects import Aspect
from agentchat.toolset.router import Ranked

# ``response_metadata`` key of an answer refused only because of the page's object type: the turn shows the
# one-click «спросить без контекста страницы» under it (issue 29 item 2; ``turn.streaming.reply_stream``).
ASK_WITHOUT_PAGE = "ask_without_page"
# ``response_metadata`` key of a text in which the planner speaks as itself, offline: it did not understand, or it
# will not write the SQL to run. A model the planner leads (``LLM_FIRST_STEP=planner``, ``turn.guided``) takes
# that step instead.
HAND_OVER = "hand_over"


@dataclass
class Result:
    """One tool result of the current turn: the call and the ToolMessage payload (``ok`` False for errors)."""

    tool: str
    args: dict[str, Any]
    payload: Any
    ok: bool

    @property
    def moot(self) -> bool:
        """The tool found the call cannot apply here (``errors.NOT_APPLICABLE``: nothing to roll back)."""
        return not self.ok and isinstance(self.payload, dict) and self.payload.get("error") == NOT_APPLICABLE


@dataclass
class Turn:
    """The current turn as the planner reads it.

    Attributes:
        question: the last user message (joined with the previous one when it answers a clarifying question).
        language: ``ru`` or ``en``.
        context: the page-context data of the system prompt (``{"status": ...}`` without context).
        tools: the offered tools by name (OpenAI function dicts: ``name``, ``description``, ``parameters``).
        results: the tool results since the last user message.
        previous_question: the user message before the last one, when the assistant answered it with a question or
            the last one is a short follow-up of it.
        intended: the tool the question asks for (set by ``plan_step``).
        aspect: what the question asks about that no tool returns (``toolset.aspects``; set by ``plan_step``):
            the answer says so first (issue 29 item 1).
        earlier_sql: the conversation before the question holds SQL (a message's text or a call's ``sql``).
        follow_up: ``previous_question`` is the request a short follow-up changes a value of («а в ss-dev?»), not
            one the assistant asked about (``followup.previous_request``).
    """

    question: str
    language: str
    context: dict[str, Any]
    tools: dict[str, dict[str, Any]]
    results: list[Result] = field(default_factory=list)
    previous_question: str = ""
    intended: str = ""
    aspect: Aspect | None = None
    earlier_sql: bool = False
    follow_up: bool = False

    @property
    def page(self) -> Page:
        return Page.from_context(self.context)


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
            it; see ``llm.offline.model.PolicyFacts``); by default no reason is known.
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
