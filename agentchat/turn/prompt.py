"""The system prompt of a turn (DESIGN §5 step 4): fixed instructions, today's date and the UIContext block (§7)."""

from datetime import date
from typing import Any

from agentchat.context.uicontext import UIContext, context_prompt_block

SYSTEM_INSTRUCTIONS = """You are agentchat, the assistant of BI engineers and analysts who run Apache Superset.
Answer in the language of the user's last message (Russian or English). Use the offered tools to get real data;
never invent ids, names or results. When the user says "this dashboard/dataset", they mean the object in the
page context below. If a tool needs an environment and none is given, ask the user to pick one. A refused or
cancelled tool call must not be retried; explain it instead. Today is {today}."""


def system_prompt(context: dict[str, Any] | None, *, unavailable: bool) -> str:
    """Return the system prompt for a turn.

    Args:
        context: the turn's validated UIContext (DESIGN §7), or None without one.
        unavailable: the conversation predates stored contexts (``context_status`` ``unavailable``); the block
            then says «контекст недоступен».

    Returns:
        The instructions with today's date, a blank line, then ``context_prompt_block`` (the context as one line
        of escaped JSON between markers no value can contain).
    """
    parsed = UIContext.model_validate(context) if context else None
    block = context_prompt_block(parsed, unavailable=unavailable)
    return SYSTEM_INSTRUCTIONS.format(today=date.today().isoformat()) + "\n\n" + block  # noqa: DTZ011
