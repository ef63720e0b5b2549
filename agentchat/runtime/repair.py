"""What a model is told when a call it wrote cannot run as written (issue 32 item 3: one repair round).

Every text here goes into the call's ToolMessage, in the turn's language, and says what the model can change: the
fields that failed validation and why, the argument names a tool takes. The user sees none of it on a first
rejection (``turn.calls``).
"""

from django.utils.translation import gettext, ngettext
from pydantic import ValidationError

from agentchat.context.uicontext import validation_text
from agentchat.language import in_language
from agentchat.runtime.spec import ToolSpec


def validation_summary(exc: ValidationError, language: str | None = None) -> str:
    """``field: message; …`` of the first five errors of ``exc``, each message in ``language`` (None: the active
    language; ``context.uicontext.validation_text``) — «dashboard_id: Input should be greater than or equal to 1»."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'args'}: {validation_text(e['msg'], language)}"
        for e in exc.errors()[:5]
    )


def unknown_arguments_text(spec: ToolSpec, unknown: list[str], language: str | None = None) -> str:
    """The invalid-arguments detail for a call with names its tool lacks (``runtime.binding.unknown_arguments``),
    in ``language``: the unknown names, then the names the tool takes (its schema's), so the model can correct
    the call — «неизвестный аргумент: slug; get_health_summary принимает только: env_id, dashboard_id»."""
    with in_language(language):
        names = ", ".join(unknown)
        head = ngettext("unknown argument: %(names)s", "unknown arguments: %(names)s", len(unknown)) % {"names": names}
        if spec.argument_names:
            takes = gettext("%(tool)s takes only: %(names)s") % {
                "tool": spec.name,
                "names": ", ".join(spec.argument_names),
            }
        else:
            takes = gettext("%(tool)s takes no arguments") % {"tool": spec.name}
        return f"{head}; {takes}"
