"""What the user and the model are told about a call of a tool the user's role may use but this turn did not offer
(``Refusal.NOT_OFFERED``; second review of issue 16): the real reason, from ``toolset.not_offered_detail`` — the
tool does not fit the page's object, needs an environment or a Superset account there, or was not chosen for the
question — never the roles, which are no reason (they were listed as "required" on such a card)."""

from typing import Any

from django.utils.text import capfirst
from django.utils.translation import gettext, pgettext, pgettext_lazy

from agentchat.language import in_language
from agentchat.runtime.titles import tool_title

# objectType → the page, as it follows "on" (Russian: «на странице дашборда»).
PAGES = {
    "dashboard": pgettext_lazy("on a page", "a dashboard page"),
    "dataset": pgettext_lazy("on a page", "a dataset page"),
    "migration": pgettext_lazy("on a page", "a migration page"),
}


def not_offered_text(tool: str, detail: dict[str, Any] | None, language: str | None = None) -> str:
    """One sentence, capitalised, in ``language`` (None: the active one): why ``tool`` was not offered here.

    Args:
        tool: the tool's name (shown by its title, ``runtime.titles``).
        detail: ``toolset.not_offered_detail``'s ``{"why", "page", "offered_on", "env_id"}``; None or an unknown
            ``why`` (a card stored before the detail was): the general «… is not available on this page.».
    """
    detail = detail or {}
    why = detail.get("why")
    with in_language(language):
        params = {
            "tool_title": capfirst(tool_title(tool)),
            "env": detail.get("env_id") or "",
            "page": _page(detail.get("page")),
        }
        if why == "object_type" and detail.get("page") in PAGES:
            offered = [str(PAGES[t]) for t in detail.get("offered_on") or () if t in PAGES]
            if offered:
                joined = pgettext("between alternative pages", " or ").join(offered)
                text = gettext("%(tool_title)s is not used on %(page)s; it is offered on %(pages)s.") % {
                    **params,
                    "pages": joined,
                }
            else:
                text = gettext(
                    "%(tool_title)s is not used on %(page)s; it is offered only on a page without an object."
                )
                text %= params
        elif why == "needs_env":
            text = (
                gettext("That (%(tool_title)s) needs an environment: pick one in the selector at the top of the page.")
                % params
            )
        elif why == "no_identity" and params["env"]:
            text = gettext("%(tool_title)s needs your Superset account in %(env)s, and you have none there.") % params
        elif why == "routed_out":
            text = gettext("%(tool_title)s was not among the operations chosen for this question.") % params
        else:
            text = gettext("%(tool_title)s is not available on this page.") % params
        return f"{text[:1].upper()}{text[1:]}"


def _page(object_type: Any) -> str:
    return str(PAGES[object_type]) if object_type in PAGES else ""
