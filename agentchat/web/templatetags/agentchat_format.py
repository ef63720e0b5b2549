"""Template filters of the pages: Superset's timestamps shown as the chat shows them; Superset's names shown
visibly (``context.display.visible``); chart types by their names."""

from typing import Any

from django import template

from agentchat.context.display import visible as _visible
from agentchat.llm.offline.answers.base import when
from agentchat.superset.viz_types import viz_type_name

register = template.Library()


@register.filter(name="moment")
def moment(value: Any) -> str:
    """``{{ d.changed_on|moment }}`` → ``29.11.2026 23:51 MSK`` (``TIME_ZONE``; see ``answers.base.when``);
    empty for no value."""
    return when(value) if value else ""


@register.filter(name="visible")
def visible(value: Any) -> Any:
    """``{{ d.title|visible }}``: a name from Superset with bidi controls, zero-width and other format or control
    characters written as ``⟨U+202E⟩`` (``context.display.visible``); non-strings (None, numbers) unchanged.
    Autoescaping still applies after it."""
    return _visible(value) if isinstance(value, str) else value


@register.filter(name="viz_type")
def viz_type(value: Any) -> str:
    """``{{ c.viz_type|viz_type }}``: a chart type by the name Superset shows («Круговая диаграмма» for ``pie``;
    ``superset.viz_types``), in the page's language."""
    return viz_type_name(value)
