"""Data of the object pages (dashboards, datasets), read from Superset through the tool executor."""

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.models import User
from django.utils import translation

from agentchat.context.display import visible_cut
from agentchat.context.uicontext import MAX_OBJECT_NAME_CHARS
from agentchat.errors import ApplicationError
from agentchat.runtime.executor import tool_execute
from agentchat.runtime.registry import tool_spec


class PageDataUnavailable(ApplicationError):
    """Superset could not provide the page's data; ``text()`` is the tool's own explanation (in the page's
    language).

    ``not_found`` is True when Superset answered 404 (the object does not exist in that environment);
    ``upstream`` is Superset's own text (shown folded under the sentence, issue 30), ``""`` when none.
    """

    code = "upstream_unavailable"

    def __init__(self, message: str, *, not_found: bool = False, upstream: str = ""):
        super().__init__(message)
        self.not_found = not_found
        self.upstream = upstream

    def text(self, language: str = "") -> str:
        return self.detail


async def page_tool(user: User, tool: str, **args: Any) -> Any:
    """Run the read tool ``tool`` for a page and return its result.

    Raises:
        PageDataUnavailable: the call failed (message in the request's language, ``LocaleMiddleware``).
        LookupError: no tool ``tool`` is registered (a mistake in the page's code).
    """
    spec = tool_spec(tool)
    if spec is None:
        raise LookupError(f"no registered tool {tool!r}")
    language = translation.get_language() or settings.LANGUAGE_CODE
    outcome = await tool_execute(
        spec=spec, args=args, user=user, conversation_id=None, ui_context=None, language=language
    )
    if not outcome.ok:
        raise PageDataUnavailable(
            outcome.error_message or outcome.error_code or "",
            not_found=outcome.upstream_status == 404,
            upstream=outcome.error_detail or "",
        )
    return outcome.result


async def dataset_detail(user: User, *, env_id: str, dataset_id: int) -> dict[str, Any]:
    """Return the dataset page's data: the result of ``get_dataset_details`` (DESIGN §8).

    That is source table or SQL, columns, metrics, dependent charts and dashboards, the same dataset in the
    other environments and the review status (Superset certification); see the tool for the shape.

    Raises:
        PageDataUnavailable: Superset failed or the dataset does not exist.
    """
    return await page_tool(user, "get_dataset_details", env_id=env_id, dataset_id=dataset_id)


def agent_link(
    *, object_type: str | None, object_id: int | None, object_name: str | None, env_id: str | None, route: str
) -> str:
    """Return the «Спросить агента» URL: ``/agent?objectType=…&objectId=…&objectName=…&envId=…&route=…``.

    ``object_name`` is Superset's title: its bidi controls, zero-width and other format or control characters are
    written as ``⟨U+202E⟩`` and it is cut to ``MAX_OBJECT_NAME_CHARS`` (``context.display.visible_cut``), so the
    page makes a valid UIContext from any title (the server rule refusing such characters stays; DESIGN §7).
    """
    params = {
        "objectType": object_type,
        "objectId": object_id,
        "objectName": visible_cut(object_name, MAX_OBJECT_NAME_CHARS) if object_name else object_name,
        "envId": env_id,
        "route": route,
    }
    query = urlencode({k: v for k, v in params.items() if v not in (None, "")})
    return "/agent" + (f"?{query}" if query else "")
