"""The system prompt of a turn (DESIGN §5 step 4): fixed instructions, today's date and the UIContext block (§7)."""

from datetime import date
from typing import Any

from agentchat.context.uicontext import UIContext, context_prompt_block
from agentchat.language import language_name
from agentchat.toolset.aspects import asked_aspect
from agentchat.toolset.selection import Offer, ToolChoice, page_refused_request, role_refused_request

SYSTEM_INSTRUCTIONS = """You are agentchat, a Superset assistant.
Answer from tool results only: first call the offered tool that fits the question. Never invent ids, names or
results, never ask the user for what a tool can look up, leave out optional arguments you do not know.
"This dashboard/dataset" is the page's object (context below): call its tool at once. If a tool needs an
environment and none is known, ask which. Never retry a refused or cancelled call; explain it.
Today is {today}. {language}"""
# The answer language, stated for each turn from detect_language (issue 16: a small model answers a Russian
# question in English unless told). Its name is Django's English name of the language (the instructions are English).
ANSWER_LANGUAGE = "The user writes in {name}: write your answers in {name}, also after tool results."
ANY_LANGUAGE = "Answer in the language of the user's last message (Russian or English)."
# A change the user's roles may not make (``toolset.selection.role_refused_request``), named so that a small model
# does not answer it with another tool (issue 16: «создай ветку» as an analyst was answered with a search).
ROLE_REFUSED = (
    "The user asks to {action}, which their role may not do (it needs the role {roles}). Call no tool and write no "
    "call: tell the user that agentchat's policy refuses it and which role may do it."
)
# Another page's tool (``toolset.selection.page_refused_request``; issue 29 item 2): said in one sentence, and the
# page shows a button under the answer that sends the same question without the page's context.
# What no tool returns (``toolset.aspects``; issue 29 item 1): said first, never answered with another tool's result
# as if it were the answer.
UNSERVED = (
    "The user asks about {about}, which none of your tools returns. Say so in one sentence first; then show what the "
    "nearest offered tool returns, saying what it is, or what you can do here. Never present another result as the "
    "answer to this."
)
PAGE_REFUSED = (
    "The user asks for {action}, which is not offered on this {page} page. Unless an offered tool answers exactly "
    "that, call no tool: say in one sentence that it is not available from this page, and that the button under the "
    "answer asks the same question without the page's context."
)


def answer_language(language: str | None) -> str:
    """The instruction naming the answer language: ``language`` one of ``settings.LANGUAGES`` (``ru``, ``en``), named
    by ``agentchat.language.language_name``; anything else gives ``ANY_LANGUAGE``."""
    name = language_name(language)
    return ANY_LANGUAGE if name is None else ANSWER_LANGUAGE.format(name=name)


def system_prompt(
    context: dict[str, Any] | None,
    *,
    unavailable: bool,
    language: str | None = None,
    refused: ToolChoice | None = None,
    elsewhere: ToolChoice | None = None,
    unserved: str | None = None,
) -> str:
    """Return the system prompt for a turn.

    Args:
        context: the turn's validated UIContext (DESIGN §7), or None without one.
        unavailable: the conversation predates stored contexts (``context_status`` ``unavailable``); the block
            then says «контекст недоступен».
        language: ``ru`` or ``en``, the language of the user's message (``agentchat.language.detect_language``);
            the instructions then name it. None: "the language of the user's last message".
        refused: the tool the user asks for and may not use (``role_refused_request``): ``ROLE_REFUSED`` names it
            and its roles after the instructions. None: no such line.
        elsewhere: the tool the user asks for that only another page offers (``page_refused_request``):
            ``PAGE_REFUSED`` names it. None: no such line.
        unserved: what the question asks about that no tool returns, in English words (``toolset.aspects``'s
            ``about``): ``UNSERVED`` names it. None: no such line.

    Returns:
        The instructions with the answer language and today's date, a blank line, then ``context_prompt_block``
        (the context as one readable JSON line between markers no value can contain).
    """
    parsed = UIContext.model_validate(context) if context else None
    block = context_prompt_block(parsed, unavailable=unavailable)
    head = SYSTEM_INSTRUCTIONS.format(
        language=answer_language(language),
        today=date.today().isoformat(),  # noqa: DTZ011
    )
    if refused is not None:
        action = refused.name.replace("_", " ")  # words, not the identifier: a small model writes a call of a name
        roles = " or ".join(refused.roles) or "none (an administrator must grant it)"
        head += "\n" + ROLE_REFUSED.format(action=action, roles=roles)
    if elsewhere is not None and context:
        action = elsewhere.name.replace("_", " ")
        head += "\n" + PAGE_REFUSED.format(action=action, page=context.get("objectType"))
    if unserved:
        head += "\n" + UNSERVED.format(about=unserved)
    return head + "\n\n" + block


def turn_prompt(
    context: dict[str, Any] | None, *, question: str | None, offer: Offer, unavailable: bool, language: str
) -> tuple[str, bool]:
    """The system prompt of a turn for ``question`` with the turn's ``offer``: ``system_prompt`` with the change the
    user's role refuses (``role_refused_request``), another page's tool asked for (``page_refused_request``) and
    what no tool returns (``toolset.aspects.asked_aspect``; issue 29 items 1, 2).

    Returns:
        ``(prompt, elsewhere)``: ``elsewhere`` is True when another page's tool is asked for (the answer then
        carries the one-click to ask without the page).
    """
    object_type = (context or {}).get("objectType")
    refused = role_refused_request(question=question, offer=offer, object_type=object_type)
    elsewhere = page_refused_request(question=question, offer=offer, object_type=object_type)
    unserved = asked_aspect(question) if question else None
    prompt = system_prompt(
        context,
        unavailable=unavailable,
        language=language,
        refused=refused,
        elsewhere=elsewhere,
        unserved=unserved.about if unserved else None,
    )
    return prompt, elsewhere is not None
