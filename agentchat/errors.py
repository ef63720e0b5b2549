"""The project's exception hierarchy and the user-facing texts of each error code (DESIGN §6, §10).

Each edge translates these: the DRF handler to HTTP responses, the consumer to ``error`` frames, the agent loop
to ToolMessages. Texts are Russian first, English second.
"""

from typing import Any

ERROR_TEXTS: dict[str, tuple[str, str]] = {
    # code: (ru, en)
    "invalid_context": ("Контекст страницы отклонён: {detail}", "The page context was rejected: {detail}"),
    "timeout": (
        "Инструмент {tool} не ответил за {timeout_s:g} с.",
        "Tool {tool} did not answer within {timeout_s:g} s.",
    ),
    "status_unknown": (
        "{tool}: статус операции неизвестен — проверьте статус.",
        "{tool}: operation status unknown — check the status.",
    ),
    "upstream_unavailable": (
        "Superset недоступен ({detail}), повторите позже.",
        "Superset is unavailable ({detail}), try again later.",
    ),
    "upstream_error": ("Superset вернул ошибку: {detail}", "Superset returned an error: {detail}"),
    "session_expired": ("сессия истекла, обновите страницу", "session expired, reload the page"),
    "rate_limited": (
        "Слишком много запросов к Superset, повторите через {retry_after} с.",
        "Too many requests to Superset, retry in {retry_after} s.",
    ),
    "rate_limited_no_delay": (
        "Слишком много запросов к Superset, повторите позже.",
        "Too many requests to Superset, try again later.",
    ),
    "bad_frame": ("Некорректное сообщение: {detail}", "Malformed frame: {detail}"),
    "card_not_found": (
        "Карточка подтверждения #{card_id} не найдена (или она не ваша).",
        "Confirmation card #{card_id} was not found (or is not yours).",
    ),
    "typed_mismatch": (
        "Для подтверждения введите название окружения «{env}».",
        "To confirm, type the environment name “{env}”.",
    ),
    "llm_unavailable": ("Языковая модель недоступна: {detail}", "The language model is unavailable: {detail}"),
    "invalid_args": ("Неверные аргументы инструмента: {detail}", "Invalid tool arguments: {detail}"),
    "permission_denied": ("Недостаточно прав для {tool}.", "Not enough permissions for {tool}."),
    "internal": ("Внутренняя ошибка сервера.", "Internal server error."),
}


NOT_FOUND_TEXTS: dict[str, tuple[str, str]] = {
    # object type: (ru, en); Superset answered 404 for that object
    "dashboard": ("Дашборд #{id} не найден в {env}.", "Dashboard #{id} was not found in {env}."),
    "dataset": ("Датасет #{id} не найден в {env}.", "Dataset #{id} was not found in {env}."),
    "database": ("База данных #{id} не найдена в {env}.", "Database #{id} was not found in {env}."),
    "chart": ("График #{id} не найден в {env}.", "Chart #{id} was not found in {env}."),
}
#: The tool argument that names each object type's id.
ID_ARGUMENTS = {"dashboard_id": "dashboard", "dataset_id": "dataset", "database_id": "database", "chart_id": "chart"}


def not_found_text(object_type: str, object_id: object, env_id: str | None, language: str = "ru") -> str:
    """Return «Дашборд #7 не найден в ss-dev.» (or English) for an object Superset answered 404 for.

    Args:
        object_type: a key of ``NOT_FOUND_TEXTS`` (``dashboard``, ``dataset``, ``database``, ``chart``); any
            other type gets the dashboard's wording with the type's own name.
        object_id: the id that was asked for.
        env_id: the environment asked (``?`` when None).
        language: ``ru`` or ``en``.
    """
    ru, en = NOT_FOUND_TEXTS.get(object_type) or (
        f"{object_type} #{{id}} не найден в {{env}}.",
        f"{object_type} #{{id}} was not found in {{env}}.",
    )
    return (en if language == "en" else ru).format(id=object_id, env=env_id or "?")


def error_text(code: str, language: str = "ru", **params: Any) -> str:
    """Return the user-facing text of ``code`` in ``language`` (``ru``/``en``) with ``params`` filled in.

    Unknown codes fall back to ``internal``; missing parameters are left as ``?``.
    """
    ru, en = ERROR_TEXTS.get(code, ERROR_TEXTS["internal"])
    template = en if language == "en" else ru

    class _Default(dict[str, Any]):
        def __missing__(self, key: str) -> str:
            return "?"

    return template.format_map(_Default(params))


class ApplicationError(Exception):
    """Base of expected failures; ``code`` is the wire code, ``params`` fill its text (``error_text``)."""

    code = "internal"

    def __init__(self, detail: str = "", **params: Any):
        super().__init__(detail or self.code)
        self.detail = detail
        self.params = {"detail": detail, **params}

    def text(self, language: str = "ru") -> str:
        """Return the user-facing message in ``language``."""
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
    """Superset answered 401 after one token refresh, or the Django session ended (DESIGN §10)."""

    code = "session_expired"


class RateLimited(ToolError):
    """HTTP 429 from Superset; ``retry_after`` is the server's ``Retry-After`` in seconds (``?`` if absent)."""

    code = "rate_limited"

    def text(self, language: str = "ru") -> str:
        """Return the message with the Retry-After seconds, or a plain «later» when Superset sent none."""
        if self.params.get("retry_after") in (None, "?"):
            return error_text("rate_limited_no_delay", language, **self.params)
        return super().text(language)


class InvalidArguments(ToolError):
    code = "invalid_args"


class ToolCrashed(ToolError):
    """A tool raised something unexpected; the user sees ``internal``, the log has the traceback."""

    code = "internal"


class LLMUnavailable(ApplicationError):
    code = "llm_unavailable"
