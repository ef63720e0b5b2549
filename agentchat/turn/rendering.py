"""The events of a turn that carry server-rendered HTML (DESIGN §6): messages and cards.

The HTML of the cards comes from ``guard.cards``; this module pairs it with the event the page expects.
"""

from typing import Any

from django.template.loader import render_to_string
from django.utils.translation import gettext_lazy

from agentchat.chat.events import (
    CancelledEvent,
    CardDecision,
    CardStateEvent,
    ConfirmRequiredEvent,
    MessageEvent,
    PermissionDeniedEvent,
)
from agentchat.context.display import visible
from agentchat.guard import cards
from agentchat.models import PendingConfirmation
from agentchat.turn.markdown import markdown_html

# The one-click's label (issue 29 item 2): under an answer, in the answer's language (the turn's, active when the
# event is built), not the page's; the page's own texts (``web.chat_texts``) use the same words.
ASK_WITHOUT_PAGE_LABEL = gettext_lazy("Ask without the page's context")


def message_event(
    *, message_id: int | None, text: str, role: str = "assistant", ask_without_page: str | None = None
) -> MessageEvent:
    """A finished message: ``role`` ``assistant`` (the answer) or ``system`` (a line such as «Операция отменена»,
    ``message_id`` None); the HTML is ``chat/message.html``: an answer's Markdown rendered and sanitised by an
    allow-list (``turn.markdown``), a system line as escaped text. ``ask_without_page``: the question the page's
    one-click sends again without the page's context (issue 29 item 2), labelled in the active language."""
    html = message_html(text=text, role=role)
    label = str(ASK_WITHOUT_PAGE_LABEL) if ask_without_page else None
    return MessageEvent(
        message_id=message_id, text=text, html=html, ask_without_page=ask_without_page, ask_without_page_label=label
    )


def message_html(*, text: str, role: str = "assistant") -> str:
    """The HTML of one chat message as the page shows it (live and in a reloaded conversation's timeline).

    Args:
        text: the stored message text; role: ``assistant`` (Markdown → sanitised HTML), ``system`` or ``user``
            (escaped text with line breaks). Bidi controls and other format characters in it are shown as
            ``⟨U+202E⟩`` (``context.display.visible``), line breaks kept.
    """
    shown = visible(text, keep_breaks=True)  # names from Superset quoted in it: bidi/format characters visible
    rendered = markdown_html(shown) if role == "assistant" else None
    return render_to_string("chat/message.html", {"text": shown, "role": role, "rendered": rendered})


def card_required_event(row: PendingConfirmation) -> ConfirmRequiredEvent:
    """The confirmation card of a pending call (DESIGN §9): the same ids and HTML each time it is sent (resume)."""
    html = cards.card_confirm(
        confirmation_id=row.pk, tool=row.tool, args=row.args, decision=row.decision, language=row.language
    )
    decision = CardDecision(**{name: row.decision.get(name) for name in CardDecision.model_fields})
    return ConfirmRequiredEvent(
        confirmation_id=row.pk, tool=row.tool, call_id=row.call_id, decision=decision, html=html
    )


def card_decided_event(row: PendingConfirmation) -> CardStateEvent | CancelledEvent:
    """A decided card as it now stands: ``cancelled`` (reason ``denied``) for a denied one, else ``card_state``."""
    html = cards.card_decided(row)
    if row.status == PendingConfirmation.Status.DENIED:
        return CancelledEvent(confirmation_id=row.pk, reason="denied", html=html)
    return CardStateEvent(confirmation_id=row.pk, status=row.status, html=html)


def card_expired_event(row: PendingConfirmation, language: str) -> CancelledEvent:
    """A card expired by a newer message of the conversation, in the new message's ``language``."""
    html = cards.card_expired(confirmation_id=row.pk, tool=row.tool, language=language)
    return CancelledEvent(confirmation_id=row.pk, reason="expired", html=html)


def card_dismissed_event(row: PendingConfirmation) -> CancelledEvent:
    """A refused call's card the user dismissed («Операция отменена»)."""
    html = cards.card_cancelled(confirmation_id=row.pk, tool=row.tool, language=row.language)
    return CancelledEvent(confirmation_id=row.pk, reason="dismissed", html=html)


def card_refused_event(
    *,
    call_id: str,
    tool: str,
    roles: list[str],
    language: str,
    refusal: str,
    card_id: int,
    detail: dict[str, Any] | None = None,
) -> PermissionDeniedEvent:
    """«Недостаточно прав» for a call the invocation-level check refused (DESIGN §6, §9): dismiss button only.

    Args:
        roles: the role names that may use ``tool``; refusal: ``unknown_tool``, ``disabled``, ``role`` or
            ``not_offered``; card_id: the refusal's ``PendingConfirmation`` id (sent back by the dismiss button);
            detail: why a permitted tool was not offered (``toolset.not_offered_detail``), for ``not_offered``.
    """
    html = cards.card_denied(tool=tool, roles=roles, language=language, reason=refusal, card_id=card_id, detail=detail)
    return PermissionDeniedEvent(call_id=call_id, tool=tool, required_roles=roles, html=html)
