"""The texts the chat page's scripts show (frontend/js): msgids of the one catalogue, rendered into the page.

The /agent template puts them, translated into the page's language, in a ``json_script`` element that
``frontend/js/texts.js`` reads; placeholders are ``%(name)s`` as in Python. One catalogue (``locale/ru``,
domain ``django``) thus covers the scripts too, with the same completeness test, and the page needs no second
request for a JavaScript catalogue (``JavaScriptCatalog``); none of these texts counts anything, so the
scripts need no plural rule.
"""

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from agentchat.conversations.selectors import OBJECT_LABELS
from agentchat.turn.rendering import ASK_WITHOUT_PAGE_LABEL

CHAT_TEXTS: dict[str, Promise] = {
    "context_rejected": _("Page context rejected (general mode)"),
    "no_context": _("No context (general mode)"),
    "context_unavailable": _("Context unavailable: the agent works in general mode."),
    "context_dropped": _("The next messages will be sent without the page context."),
    "duration_ms": _("%(ms)s ms"),
    "summarised": _("shortened for the model"),
    "connecting": _("connecting…"),
    "online": _("online"),
    "sign_in_needed": _("sign-in needed"),
    "reconnecting": _("reconnecting…"),
    "conversation_missing": _("Conversation not found — start a new one."),
    "conversation_failed": _("Could not load the conversation."),
    "resend": _("Send again"),
    "superset_said": _("Superset's answer"),
    "copy": _("Copy"),
    "copied": _("Copied"),
    "ask_without_page": ASK_WITHOUT_PAGE_LABEL,
    "task_title": _("Task #%(id)s"),
    "task_title_kind": _("Task #%(id)s (%(kind)s)"),
    "task_queued": _("queued"),
    "task_running": _("running"),
    "task_succeeded": _("done"),
    "task_failed": _("failed"),
    **{f"object_{kind}": label for kind, label in OBJECT_LABELS.items()},
}


def chat_texts() -> dict[str, str]:
    """Return ``CHAT_TEXTS`` translated into the active language (the request's), for ``json_script``."""
    return {key: str(text) for key, text in CHAT_TEXTS.items()}
