"""Template filters of the pages: Superset's timestamps shown as the chat shows them."""

from typing import Any

from django import template

from agentchat.llm.offline.answers.base import when

register = template.Library()


@register.filter(name="moment")
def moment(value: Any) -> str:
    """``{{ d.changed_on|moment }}`` → ``29.11.2026 23:51 MSK`` (``TIME_ZONE``; see ``answers.base.when``);
    empty for no value."""
    return when(value) if value else ""
