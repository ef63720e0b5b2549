"""HTML pages: object pages read from Superset with the «Спросить агента» button, and the /agent chat page.

Pages speak the language ``LocaleMiddleware`` chose for the request (the language cookie, else the browser's
``Accept-Language``, else ``LANGUAGE_CODE`` ``ru``); the chat's messages speak the language of each question.
"""

from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, ngettext

from agentchat.context.display import visible_cut
from agentchat.context.uicontext import MAX_OBJECT_NAME_CHARS
from agentchat.conversations.selectors import conversations_of
from agentchat.errors import not_found_text
from agentchat.identity.services import identities_of
from agentchat.llm import provider_label
from agentchat.web.chat_texts import chat_texts
from agentchat.web.greeting import greeting_examples
from agentchat.web.pages import PageDataUnavailable, agent_link, dataset_detail, page_tool
from policies import services as policy
from policies.models import Environment

DEFAULT_ENV = "ss-dev"
DATASETS_SHOWN = 100  # the most search_datasets returns in one call


class AuthenticatedHttpRequest(HttpRequest):
    """The request of a ``login_required`` view: its user is signed in (the django-stubs recipe for that)."""

    user: User


async def _environment(request: HttpRequest) -> Environment | None:
    """The active environment named by ``?env_id=`` (default ss-dev), or None when there is no such one."""
    env_id = request.GET.get("env_id") or DEFAULT_ENV
    return await sync_to_async(policy.environment_get)(env_id=env_id)


async def _page(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    context["environments"] = await sync_to_async(policy.environments_active)()
    return await sync_to_async(render)(request, template, context, status=status)


async def _unknown_environment(request: HttpRequest) -> HttpResponse:
    env_id = request.GET.get("env_id", "")
    message = gettext("Environment “%(env_id)s” was not found or is switched off.") % {"env_id": env_id}
    return await _page(request, "pages/error.html", {"error": message}, status=404)


async def _failed(
    request: HttpRequest,
    template: str,
    context: dict[str, Any],
    exc: PageDataUnavailable,
    obj: tuple[str, int] | None = None,
) -> HttpResponse:
    """Render the page with Superset's reason, in the page's language: 404 «Дашборд #7 не найден в ss-dev.» when
    the object ``obj`` (``(object type, id)``) does not exist there, else 502 with the error."""
    if exc.not_found and obj is not None:
        context["error"] = not_found_text(obj[0], obj[1], context["environment"].env_id)
    else:
        context["error"], context["error_detail"] = exc.text(), exc.upstream
    return await _page(request, template, context, status=404 if exc.not_found else 502)


def index(request: HttpRequest) -> HttpResponse:
    return redirect("dashboards")


@login_required
async def dashboards(request: AuthenticatedHttpRequest) -> HttpResponse:
    environment = await _environment(request)
    if environment is None:
        return await _unknown_environment(request)
    context = {"environment": environment, "route": "/dashboards/"}
    try:
        result = await page_tool(request.user, "search_dashboards", env_id=environment.env_id, limit=100)
        context["dashboards"] = result["dashboards"]
    except PageDataUnavailable as exc:
        return await _failed(request, "pages/dashboards.html", context, exc)
    return await _page(request, "pages/dashboards.html", context)


async def _deploys(request: AuthenticatedHttpRequest, env_id: str, dashboard_id: int) -> list[dict[str, Any]] | None:
    """The deploys of the dashboard from or into ``env_id`` (deploy_history, issue 28 item 5); None when the
    history cannot be read (the page shows the rest)."""
    try:
        result = await page_tool(
            request.user, "deploy_history", dashboard_id=dashboard_id, source_env_id=env_id, limit=10
        )
    except PageDataUnavailable:
        return None
    deploys: list[dict[str, Any]] = result["deploys"]
    return deploys


@login_required
async def dashboard(request: AuthenticatedHttpRequest, dashboard_id: int) -> HttpResponse:
    environment = await _environment(request)
    if environment is None:
        return await _unknown_environment(request)
    route = f"/dashboards/{dashboard_id}"
    context = {"environment": environment, "route": route}
    try:
        result = await page_tool(
            request.user, "get_health_summary", env_id=environment.env_id, dashboard_id=dashboard_id
        )
    except PageDataUnavailable as exc:
        return await _failed(request, "pages/dashboard.html", context, exc, obj=("dashboard", dashboard_id))
    context["summary"] = result
    context["deploys"] = await _deploys(request, environment.env_id, dashboard_id)
    context["agent_url"] = agent_link(
        object_type="dashboard",
        object_id=dashboard_id,
        object_name=result["dashboard"]["title"],
        env_id=environment.env_id,
        route=route,
    )
    return await _page(request, "pages/dashboard.html", context)


@login_required
async def datasets(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/datasets/?env_id=…``: the environment's datasets from Superset (``search_datasets``: name, database,
    schema, owners, last change), newest change first, each linking to its page with «Спросить агента»."""
    environment = await _environment(request)
    if environment is None:
        return await _unknown_environment(request)
    context: dict[str, Any] = {"environment": environment, "route": "/datasets/"}
    try:
        result = await page_tool(request.user, "search_datasets", env_id=environment.env_id, limit=DATASETS_SHOWN)
    except PageDataUnavailable as exc:
        return await _failed(request, "pages/datasets.html", context, exc)
    context["datasets"], context["count"] = result["datasets"], result["count"]
    rest = result["count"] - len(result["datasets"])
    context["more"] = ngettext(
        "%(count)d more dataset: search for it in the chat.",
        "%(count)d more datasets: search for them in the chat.",
        rest,
    ) % {"count": rest}
    return await _page(request, "pages/datasets.html", context)


@login_required
async def dataset(request: AuthenticatedHttpRequest, dataset_id: int) -> HttpResponse:
    environment = await _environment(request)
    if environment is None:
        return await _unknown_environment(request)
    route = f"/datasets/{dataset_id}"
    context = {"environment": environment, "route": route}
    try:
        detail = await dataset_detail(request.user, env_id=environment.env_id, dataset_id=dataset_id)
    except PageDataUnavailable as exc:
        return await _failed(request, "pages/dataset.html", context, exc, obj=("dataset", dataset_id))
    context["details"] = detail
    context["agent_url"] = agent_link(
        object_type="dataset",
        object_id=dataset_id,
        object_name=detail["dataset"]["name"],
        env_id=environment.env_id,
        route=route,
    )
    return await _page(request, "pages/dataset.html", context)


@login_required
async def settings_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/settings/``: the user's roles, the environments, their Superset identities (never a secret) and the form
    that adds a personal API key (``web/identities.py``, DESIGN §15)."""
    roles = await sync_to_async(policy.user_roles)(user=request.user)
    owned = await sync_to_async(identities_of)(user=request.user)
    context = {
        "roles": roles,
        "identities": owned,
        "used_envs": {identity.environment.env_id for identity, in_use in owned if in_use},
        "agent_url": "/agent",
        "route": "/settings/",
    }
    return await _page(request, "pages/settings.html", context)


@login_required
async def agent(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``GET /agent?objectType=…&objectName=…``: the chat page. An ``objectName`` holding format or control
    characters, or longer than ``MAX_OBJECT_NAME_CHARS``, is first redirected to its visible form (``⟨U+202E⟩``,
    ``context.display.visible_cut``), as ``agent_link`` writes it: the page shows the name inert and makes a valid
    UIContext from it (issue 13 item 6; the server rule refusing such characters stays, DESIGN §7)."""
    name = request.GET.get("objectName")
    if name is not None and (shown := visible_cut(name, MAX_OBJECT_NAME_CHARS)) != name:
        query = request.GET.copy()
        query["objectName"] = shown
        return redirect(f"{request.path}?{query.urlencode()}")
    history = await sync_to_async(conversations_of)(user=request.user)
    examples = await sync_to_async(greeting_examples)(
        user=request.user, object_type=request.GET.get("objectType"), env_id=request.GET.get("envId") or None
    )
    context = {"provider": provider_label(), "history": history, "chat_texts": chat_texts(), "examples": examples}
    return await _page(request, "pages/agent.html", context)
