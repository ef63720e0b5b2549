"""What a model is told when a call it wrote cannot run as written (issue 32 item 3: one repair round).

Every text here goes into the call's ToolMessage, in the turn's language, and says what the model can change: the
fields that failed validation and why, the argument names a tool takes. The user sees none of it on a first
rejection (``turn.calls``).
"""

from django.utils.translation import gettext, ngettext
from pydantic import ValidationError

from agentchat.context.uicontext import validation_text
from agentchat.language import in_language
from agentchat.runtime.questions import argument_question
from agentchat.runtime.spec import ToolSpec

# A model validator's error for an argument that only the person can give (``PydanticCustomError`` of this type
# with ``{"argument": name}``): e.g. superset_create_dataset's database when no page's dataset names one.
MISSING_ARGUMENT = "missing_argument"


def validation_summary(exc: ValidationError, language: str | None = None) -> str:
    """``field: message; …`` of the first five errors of ``exc``, each message in ``language`` (None: the active
    language; ``context.uicontext.validation_text``) — «dashboard_id: Input should be greater than or equal to 1»."""
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'args'}: {validation_text(e['msg'], language)}"
        for e in exc.errors()[:5]
    )


def missing_question(exc: ValidationError, language: str | None = None) -> tuple[str, str] | None:
    """``(argument, question)`` when ``exc`` says a required argument is missing (pydantic's ``missing`` type, or
    ``MISSING_ARGUMENT`` naming it): its name and the question for the person in ``language``
    (``runtime.questions``); None when none is missing or no question is known for it (issue 29 item 5: a missing
    argument is asked for, never shown as a validator's text)."""
    for error in exc.errors():
        if error["type"] == "missing" and error["loc"]:
            name = str(error["loc"][0])
        elif error["type"] == MISSING_ARGUMENT:
            name = str((error.get("ctx") or {}).get("argument", ""))
        else:
            continue
        question = argument_question(name, language)
        if question is not None:
            return name, question
    return None


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
