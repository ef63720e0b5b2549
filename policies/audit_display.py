"""The audit log as an administrator reads it (issue 30 item 2): outcomes by their meaning, not their codes;
arguments and details as indented JSON. The stored rows keep the codes (``manage.py audit_report`` and the
tests read those); only what the admin shows is labelled here."""

import json
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.utils.functional import Promise
from django.utils.translation import pgettext_lazy

# AuditEvent.outcome codes written by agentchat (turn.recording, guard.confirmations, context.intake, the
# consumer) and the error codes of DESIGN §6 that a failed call's row carries.
OUTCOME_LABELS: dict[str, Promise] = {
    "ok": pgettext_lazy("audit outcome", "succeeded"),
    "error": pgettext_lazy("audit outcome", "failed"),
    "pending": pgettext_lazy("audit outcome", "waiting for a decision"),
    "approved": pgettext_lazy("audit outcome", "approved"),
    "denied": pgettext_lazy("audit outcome", "declined"),
    "cancelled": pgettext_lazy("audit outcome", "cancelled"),
    "dismissed": pgettext_lazy("audit outcome", "dismissed"),
    "expired": pgettext_lazy("audit outcome", "expired"),
    "started": pgettext_lazy("audit outcome", "started"),
    "retry": pgettext_lazy("audit outcome", "retried"),
    "summarised": pgettext_lazy("audit outcome", "shortened for the model"),
    "busy": pgettext_lazy("audit outcome", "refused: server busy"),
    "rejected": pgettext_lazy("audit outcome", "rejected"),
    "unparseable": pgettext_lazy("audit outcome", "not JSON"),
    "unsupported_media_type": pgettext_lazy("audit outcome", "not JSON"),
    "discarded": pgettext_lazy("audit outcome", "discarded"),
    "forbidden_reference": pgettext_lazy("audit outcome", "someone else's object"),
    "timeout": pgettext_lazy("audit outcome", "timed out"),
    "status_unknown": pgettext_lazy("audit outcome", "status unknown"),
    "upstream_unavailable": pgettext_lazy("audit outcome", "Superset unavailable"),
    "upstream_error": pgettext_lazy("audit outcome", "Superset error"),
    "superset_denied": pgettext_lazy("audit outcome", "refused by Superset"),
    "session_expired": pgettext_lazy("audit outcome", "session expired"),
    "no_identity": pgettext_lazy("audit outcome", "no Superset account"),
    "rate_limited": pgettext_lazy("audit outcome", "rate limited"),
    "invalid_args": pgettext_lazy("audit outcome", "invalid arguments"),
    "invented_argument": pgettext_lazy("audit outcome", "argument not from the conversation"),
    "permission_denied": pgettext_lazy("audit outcome", "refused by our policy"),
    "internal": pgettext_lazy("audit outcome", "internal error"),
}


def outcome_label(code: str) -> str:
    """«успешно» for ``ok``, in the active language; a code without a label is shown as it is (``—`` when empty)."""
    if not code:
        return "—"
    label = OUTCOME_LABELS.get(code)
    return str(label) if label is not None else code


def json_pretty(value: Any) -> str:
    """``value`` as indented JSON with its non-ASCII letters as they are (Cyrillic names readable); ``""`` for
    None and an empty dict or list."""
    if value in (None, {}, []):
        return ""
    return json.dumps(value, cls=DjangoJSONEncoder, ensure_ascii=False, indent=2, sort_keys=True)
