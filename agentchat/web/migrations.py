"""The migration pages (issue 15): ``/migrations/`` (list, filters, «Новая миграция») and ``/migrations/<id>/``
(plan, last preview, runs with progress, «Спросить агента»). Saved plans are ``Migration`` rows
(``runtime.plans``); dashboards are read from Superset through the tool executor or the transfer client.
"""

from typing import Any, cast

from asgiref.sync import sync_to_async
from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from agentchat.context.display import visible
from agentchat.errors import ToolError
from agentchat.guard.cards import IMPACT_ACTIONS, IMPACT_TYPES
from agentchat.models import Migration, TaskRecord
from agentchat.runtime import plans
from agentchat.runtime.background import task_stopped
from agentchat.runtime.context import ToolContext
from agentchat.superset.call import CallState
from agentchat.superset.transfer import dashboards_require
from agentchat.web.chat_texts import chat_texts
from agentchat.web.pages import PageDataUnavailable, agent_link, page_tool
from agentchat.web.views import DEFAULT_ENV, AuthenticatedHttpRequest, _page
from policies import services as policy

CREATE_TOOL = "execute_migration"  # who may start a migration may plan one


def mapping_parse(text: str) -> dict[str, str]:
    """Parse the database mapping field: one ``source name = target name`` per line; blank lines ignored.

    Raises:
        forms.ValidationError: a line without ``=`` or with an empty side.
    """
    mapping: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        source, sep, target = (part.strip() for part in line.partition("="))
        if not sep or not source or not target:
            raise forms.ValidationError(
                gettext("Line %(n)s: write “source database = target database”."), params={"n": number}
            )
        mapping[source] = target
    return mapping


def mapping_text(mapping: dict[str, str]) -> str:
    """The mapping as the form shows it (``mapping_parse`` reads it back)."""
    return "\n".join(f"{source} = {target}" for source, target in mapping.items())


class MappingField(forms.CharField):
    """The editable database mapping (source database name → target database name; by name when empty)."""

    widget = forms.Textarea(attrs={"rows": 3, "placeholder": "Energy = Energy"})

    def to_python(self, value: Any) -> dict[str, str]:  # type: ignore[override]
        return mapping_parse(super().to_python(value) or "")


class MigrationForm(forms.Form):
    """«Новая миграция»: a name, the target environment and dashboards of the source environment."""

    name = forms.CharField(label=_("Name"), max_length=200)
    target_env_id = forms.ChoiceField(label=_("Target environment"))
    dashboard_ids = forms.TypedMultipleChoiceField(
        label=_("Dashboards"), coerce=int, widget=forms.CheckboxSelectMultiple
    )
    database_mapping = MappingField(
        label=_("Database mapping"),
        required=False,
        help_text=_("One “source database = target database” per line; a database not listed keeps its name."),
    )

    def __init__(self, *args: Any, source_env_id: str, targets: list[str], dashboards: list[dict], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.source_env_id = source_env_id
        target_field = cast(forms.ChoiceField, self.fields["target_env_id"])
        dashboards_field = cast(forms.ChoiceField, self.fields["dashboard_ids"])
        target_field.choices = [(env_id, env_id) for env_id in targets]
        # Superset's titles as every page shows them: bidi and other format characters visible (⟨U+202E⟩).
        dashboards_field.choices = [(d["id"], visible(d["title"] or "")) for d in dashboards]

    def clean_target_env_id(self) -> str:
        target = str(self.cleaned_data["target_env_id"])
        if target == self.source_env_id:  # the choices leave it out; a crafted POST is refused the same way
            raise forms.ValidationError(gettext("A migration cannot deploy an environment onto itself."))
        return target


class MappingForm(forms.Form):
    """The database mapping of a saved plan, edited on its page."""

    database_mapping = MappingField(label=_("Database mapping"), required=False)


async def _may_plan(user: Any) -> bool:
    return bool(await sync_to_async(policy.tool_permitted)(user=user, tool_name=CREATE_TOOL))


async def dashboards_with_uuids(user: Any, *, env_id: str, dashboard_ids: list[int]) -> list[dict[str, Any]]:
    """The picked dashboards as a plan stores them: ``[{"id", "uuid", "title"}]``, read from Superset
    (``GET /api/v1/dashboard/`` by id, the uuids the import matches by).

    Raises:
        ToolError: Superset failed or a dashboard does not exist there (the message says which).
    """
    language = translation.get_language() or settings.LANGUAGE_CODE
    ctx = ToolContext(
        user=user,
        conversation_id=None,
        ui_context=None,
        language=language,
        call=CallState(retry_transient=True),
        timeout_s=float(settings.TOOL_TIMEOUT_S),
    )
    try:
        rows = await dashboards_require(await ctx.superset(env_id), dashboard_ids)
    finally:
        await ctx.aclose()
    return [{"id": r["id"], "uuid": r.get("uuid"), "title": r.get("dashboard_title")} for r in rows]


@login_required
async def migrations(request: AuthenticatedHttpRequest) -> HttpResponse:
    """``/migrations/?env_id=&status=``: saved plans, newest first, filtered by environment (source or target)
    and status; the «Новая миграция» form (for users who may run migrations) picks dashboards of
    ``?source_env_id=`` (default ss-dev)."""
    env_id, status = request.GET.get("env_id") or "", request.GET.get("status") or ""
    if status and status not in Migration.Status.values:
        status = ""
    rows = await sync_to_async(plans.migrations_list)(env_id=env_id or None, status=status or None)
    context: dict[str, Any] = {
        "migrations": rows,
        "env_filter": env_id,
        "status_filter": status,
        "statuses": Migration.Status.choices,
        "route": "/migrations/",
        "may_plan": await _may_plan(request.user),
    }
    if context["may_plan"]:
        form = await _new_form(request, context)
        if request.method == "POST" and form is not None and await sync_to_async(form.is_valid)():
            return await _create(request, form, context)
    return await _page(request, "pages/migrations.html", context)


async def _new_form(request: AuthenticatedHttpRequest, context: dict[str, Any]) -> MigrationForm | None:
    """Build «Новая миграция» for the source environment of the request; None (with ``form_error``) when its
    dashboards cannot be read."""
    source = request.POST.get("source_env_id") or request.GET.get("source_env_id") or DEFAULT_ENV
    environments = await sync_to_async(policy.environments_active)()
    ids = [e.env_id for e in environments]
    if source not in ids:
        source = DEFAULT_ENV if DEFAULT_ENV in ids else (ids[0] if ids else "")
    context["source_env_id"] = source
    try:
        result = await page_tool(request.user, "search_dashboards", env_id=source, limit=100)
    except PageDataUnavailable as exc:
        context["form_error"] = exc.text()
        return None
    data = request.POST if request.method == "POST" else None
    # A target on the source's own Superset instance (same URL) would be a deploy onto itself: not offered.
    url = next(e.superset_url for e in environments if e.env_id == source).rstrip("/")
    targets = [e.env_id for e in environments if e.env_id != source and e.superset_url.rstrip("/") != url]
    form = MigrationForm(data, source_env_id=source, targets=targets, dashboards=result["dashboards"])
    context["form"] = form
    return form


async def _create(request: AuthenticatedHttpRequest, form: MigrationForm, context: dict[str, Any]) -> HttpResponse:
    data = form.cleaned_data
    try:
        dashboards = await dashboards_with_uuids(
            request.user, env_id=form.source_env_id, dashboard_ids=list(data["dashboard_ids"])
        )
    except ToolError as exc:
        context["form_error"] = exc.text()
        return await _page(request, "pages/migrations.html", context, status=502)
    migration = await sync_to_async(plans.migration_create)(
        user=request.user,
        name=data["name"],
        source_env_id=form.source_env_id,
        target_env_id=data["target_env_id"],
        dashboards=dashboards,
        database_mapping=data["database_mapping"],
    )
    return redirect(plans.migration_url(migration.pk))


def _runs(migration: Migration) -> list[TaskRecord]:
    """The plan's runs, newest first; one whose worker stopped is ended ``failed`` first (``task_stopped``)."""
    for record_id in migration.runs.filter(state=TaskRecord.State.RUNNING).values_list("pk", flat=True):
        task_stopped(record_id=record_id)
    return list(migration.runs.order_by("-id"))


@login_required
async def migration(request: AuthenticatedHttpRequest, migration_id: int) -> HttpResponse:
    """``/migrations/<id>/``: the plan, its database mapping (editable), the last preview, the runs with their
    progress and per-dashboard outcome, and «Спросить агента» (objectType ``migration``, objectId the id)."""
    try:
        row = await sync_to_async(plans.migration_get)(migration_id=migration_id)
    except plans.MigrationNotFound:
        raise Http404 from None
    may_plan = await _may_plan(request.user)
    form = MappingForm(
        request.POST if request.method == "POST" else None,
        initial={"database_mapping": mapping_text(row.database_mapping)},
    )
    if request.method == "POST":
        if not may_plan:
            return HttpResponseForbidden(gettext("Your role may not change migrations."))
        if await sync_to_async(form.is_valid)():
            await sync_to_async(plans.migration_mapping_set)(
                migration_id=row.pk, mapping=form.cleaned_data["database_mapping"]
            )
            return redirect(plans.migration_url(row.pk))
    route = plans.migration_url(row.pk)
    runs = await sync_to_async(_runs)(row)
    context = {
        "migration": row,
        "runs": runs,
        "mapping_form": form,
        "may_plan": may_plan,
        "route": route,
        "chat_texts": chat_texts(),
        "agent_url": agent_link(
            object_type="migration",
            object_id=row.pk,
            object_name=row.name,
            env_id=row.source_env_id,
            route=route,
        ),
        "preview_databases": [o for o in (row.preview or {}).get("objects", []) if o.get("type") == "database"],
        "preview": preview_shown(row.preview, translation.get_language() or settings.LANGUAGE_CODE),
    }
    return await _page(request, "pages/migration.html", context)


def preview_shown(preview: dict[str, Any] | None, language: str) -> dict[str, Any] | None:
    """A stored preview as its reader reads it (issue 30 item 3: an English page showed the Russian summary the
    preview was written in, and codes such as ``dashboard``/``overwrite``): the summary in ``language`` when the
    preview stored one (``summaries``, every language of ``LANGUAGES``), else the one it has; each object's type and
    planned action by their labels in the active language (``guard.cards``, as the card shows them).

    Returns:
        ``{"summary", "objects": [{…, "type_label", "action_label"}]}``, or None without a preview.
    """
    if not preview:
        return None
    summary = (preview.get("summaries") or {}).get(language) or preview.get("summary") or ""
    objects = [
        {
            **o,
            "type_label": str(IMPACT_TYPES.get(str(o.get("type")), o.get("type"))),
            "action_label": str(IMPACT_ACTIONS.get(str(o.get("action")), o.get("action"))),
        }
        for o in preview.get("objects") or []
        if isinstance(o, dict)
    ]
    return {"summary": summary, "objects": objects}
