"""The project's exception hierarchy and the user-facing texts of each error code (DESIGN §6, §10).

Each edge translates these: the DRF handler to HTTP responses, the consumer to ``error`` frames, the agent loop
to ToolMessages. Texts are English msgids translated by Django's i18n (``locale/ru``): Russian first, English second.
"""

from collections.abc import Mapping
from typing import Any

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from agentchat.language import in_language

# code: the message, an English msgid with %(name)s placeholders (Russian in locale/ru).
ERROR_TEXTS: dict[str, Promise] = {
    "invalid_context": _("The page context was rejected: %(detail)s"),
    "timeout": _("Tool %(tool)s did not answer within %(timeout_s)s s."),
    "status_unknown": _("%(tool)s: operation status unknown — check the status."),
    "upstream_unavailable": _("Superset is unavailable (%(detail)s), try again later."),
    "upstream_error": _("Superset returned an error: %(detail)s"),
    "session_expired": _("session expired, reload the page"),
    "session_expired_in_env": _("Superset session in %(env)s expired, reload the page."),
    "rate_limited": _("Too many requests to Superset, retry in %(retry_after)s s."),
    "rate_limited_no_delay": _("Too many requests to Superset, try again later."),
    "bad_frame": _("Malformed frame: %(detail)s"),
    "card_not_found": _("Confirmation card #%(card_id)s was not found (or is not yours)."),
    "typed_mismatch": _("To confirm, type the environment name “%(env)s”."),
    "llm_unavailable": _("The language model is unavailable: %(detail)s"),
    "invalid_args": _("Invalid tool arguments: %(detail)s"),
    "invented_argument": _("Not sent to Superset: %(detail)s"),
    "permission_denied": _("Not enough permissions for %(tool)s."),
    "internal": _("Internal server error."),
    "database_unavailable": _("The database is unavailable, send the message again in a moment."),
}


# object type: the message when Superset answered 404 for that object. Superset answers 404 as well for an object its
# permissions hide from the person (acting as them, DESIGN §15), so the text says so: who may be refusing.
NOT_FOUND_TEXTS: dict[str, Promise] = {
    "dashboard": _("Dashboard #%(id)s was not found in %(env)s, or Superset does not show it to your account."),
    "dataset": _("Dataset #%(id)s was not found in %(env)s, or Superset does not show it to your account."),
    "database": _("Database #%(id)s was not found in %(env)s, or Superset does not show it to your account."),
    "chart": _("Chart #%(id)s was not found in %(env)s, or Superset does not show it to your account."),
}
NOT_FOUND_OTHER = _("Not found in %(env)s: %(object_type)s #%(id)s.")
#: The tool argument that names each object type's id.
ID_ARGUMENTS = {"dashboard_id": "dashboard", "dataset_id": "dataset", "database_id": "database", "chart_id": "chart"}


class _Params(dict[str, Any]):
    """The parameters of a message: a missing one reads ``?``; a float is written as ``{:g}`` (30.0 → 30)."""

    def __missing__(self, key: str) -> str:
        return "?"

    def __getitem__(self, key: str) -> Any:
        value = super().__getitem__(key) if key in self else self.__missing__(key)
        return f"{value:g}" if isinstance(value, float) else value


def message_format(message: str | Promise, params: Mapping[str, Any], language: str | None = None) -> str:
    """Return ``message`` (a gettext msgid with ``%(name)s`` placeholders) translated into ``language`` (the active
    language when None) with ``params`` filled in; a missing parameter reads ``?``."""
    with in_language(language):
        return message % _Params(params)


def not_found_text(object_type: str, object_id: object, env_id: str | None, language: str | None = None) -> str:
    """Return «Дашборд #7 не найден в ss-dev.» (or English) for an object Superset answered 404 for.

    Args:
        object_type: a key of ``NOT_FOUND_TEXTS`` (``dashboard``, ``dataset``, ``database``, ``chart``); any
            other type gets a message with the type's own name.
        object_id: the id that was asked for.
        env_id: the environment asked (``?`` when None).
        language: ``ru`` or ``en``; None: the active language (the turn's, the page's).
    """
    message = NOT_FOUND_TEXTS.get(object_type, NOT_FOUND_OTHER)
    return message_format(message, {"object_type": object_type, "id": object_id, "env": env_id or "?"}, language)


def error_text(code: str, language: str | None = None, **params: Any) -> str:
    """Return the user-facing text of ``code`` in ``language`` (``ru``/``en``; None: the active language) with
    ``params`` filled in.

    Unknown codes fall back to ``internal``; missing parameters are left as ``?``.
    """
    return message_format(ERROR_TEXTS.get(code, ERROR_TEXTS["internal"]), params, language)


class ApplicationError(Exception):
    """Base of expected failures; ``code`` is the wire code, ``params`` fill its text.

    The text is ``message`` when a subclass (or an instance) sets one — a ``gettext_lazy`` msgid with
    ``%(name)s`` placeholders, so the text lives with the class (STYLE "Errors") — else ``ERROR_TEXTS[code]``.
    """

    code = "internal"
    message: str | Promise | None = None
    # What the person reads when it differs from what the model reads (``text``): a refused call's question in
    # words, with no argument names (``tools.plan_contradiction``); None: ``text`` is for both.
    ask_user: str | None = None

    def __init__(self, detail: str = "", **params: Any):
        super().__init__(detail or self.code)
        self.detail = detail
        self.params = {"detail": detail, **params}

    def text(self, language: str = "") -> str:
        """Return the user-facing message in ``language`` (``ru``/``en``; empty: the active language)."""
        if self.message is not None:
            return message_format(self.message, self.params, language)
        return error_text(self.code, language, **self.params)


class ToolError(ApplicationError):
    """A tool call failed in a way the agent explains to the user."""


class ToolTimeout(ToolError):
    """A read tool did not finish within its deadline (``tool``, ``timeout_s`` in the params)."""

    code = "timeout"


class StatusUnknown(ToolError):
    """A write/dangerous tool failed after its change may have reached Superset: never retried (DESIGN §10)."""

    code = "status_unknown"


class UpstreamUnavailable(ToolError):
    """5xx or connection failure of Superset (transient)."""

    code = "upstream_unavailable"


class UpstreamError(ToolError):
    """A 4xx answer of Superset other than 401/429 (not retried)."""

    code = "upstream_error"


class SessionExpired(ToolError):
    """Superset answered 401 after one token refresh, or the Django session ended (DESIGN §10).

    With ``env`` in the params (Superset's refusal) the text names that environment (issue 13: the message says
    which environment); without it (the Django session) it is ``ERROR_TEXTS["session_expired"]``.
    """

    code = "session_expired"

    def text(self, language: str = "") -> str:
        """Return the message in ``language``, naming ``env`` when Superset of that environment refused."""
        if self.message is None and self.params.get("env"):
            return error_text("session_expired_in_env", language, **self.params)
        return super().text(language)


class IdentityExpired(SessionExpired):
    """The user's Superset identity for ``env`` stopped working: Superset refused its refresh token or API key
    (DESIGN §15). The identity is marked expired; signing in again (or a new key) restores it."""

    message = _("Superset session for %(env)s has expired: sign in again or add a new API key in settings.")


class IdentityMissing(ToolError):
    """The user has no working Superset identity for ``env`` (password-mode environment): nothing is sent to it
    (DESIGN §15)."""

    code = "no_identity"
    message = _("No access to %(env)s: sign in again or add a Superset API key in settings.")


class SupersetDenied(ToolError):
    """Superset's own permissions refused the request (403 or a ``*_SECURITY_ACCESS_ERROR``); ``reason`` is
    Superset's message. Never retried, never sent again as another account (DESIGN §15)."""

    code = "superset_denied"
    message = _("Superset refuses: %(reason)s")

    def text(self, language: str = "") -> str:
        """Return Superset's refusal in ``language`` and the way forward: access is given in that Superset, by its
        administrator (the agent has no other account to try: DESIGN §15)."""
        with in_language(language):
            forward = str(_("Access is granted in Superset by its administrator: ask them for the role you need."))
        return f"{super().text(language)} {forward}"


class RateLimited(ToolError):
    """HTTP 429 from Superset; ``retry_after`` is the server's ``Retry-After`` in seconds (``?`` if absent)."""

    code = "rate_limited"

    def text(self, language: str = "") -> str:
        """Return the message with the Retry-After seconds, or a plain «later» when Superset sent none."""
        if self.params.get("retry_after") in (None, "?"):
            return error_text("rate_limited_no_delay", language, **self.params)
        return super().text(language)


class InvalidArguments(ToolError):
    code = "invalid_args"


# The code of a call that cannot apply for a reason the tool states (nothing to roll back, a copy of another
# environment): no card, no validator prefix; the answer says the reason (``turn.calls``).
NOT_APPLICABLE = "not_applicable"


class NotApplicable(ToolError):
    """A call that cannot apply here, with the reason as its translatable ``message`` (see ``NOT_APPLICABLE``)."""

    code = NOT_APPLICABLE


class ToolCrashed(ToolError):
    """A tool raised something unexpected; the user sees ``internal``, the log has the traceback."""

    code = "internal"


class LLMUnavailable(ApplicationError):
    code = "llm_unavailable"
