"""The admin's "policy preview" page: the tool set any role would be offered for an object type and environment.

It lives in ``agentchat`` because the tool set needs the code registry (``policies`` never imports ``agentchat``);
it uses the same assembly as the chat turn and ``GET /api/agent/tools/`` (``toolset.toolset_explain``).
Served under ``/admin/policy-preview/`` through ``admin.site.admin_view`` (staff only) and linked from the tool
list of the admin.
"""

from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.auth.models import Group, User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from agentchat.identity.services import identity_env_ids
from agentchat.toolset.selection import ToolChoice, toolset_explain
from policies import services as policy
from policies.models import Category, ObjectType
from policies.services import Refusal

REFUSAL_TEXTS = {
    Refusal.UNKNOWN: _("not registered in code"),
    Refusal.DISABLED: _("disabled"),
    Refusal.ROLE: _("role has no permission"),
    Refusal.OBJECT_TYPE: _("no affinity for this object type"),
    Refusal.NEEDS_ENV: _("needs an environment"),
    Refusal.NOT_OFFERED: _("not offered"),
    Refusal.NO_IDENTITY: _("the user has no Superset identity in this environment"),
}


class PreviewForm(forms.Form):
    """Role, object type and environment to preview; empty = none."""

    role = forms.ModelChoiceField(
        queryset=Group.objects.order_by("name"),
        to_field_name="name",
        required=False,
        empty_label=_("— no role —"),
        label=_("Role"),
    )
    object_type = forms.ChoiceField(
        choices=[("", _("— none —")), *ObjectType.choices], required=False, label=_("Object type")
    )
    env_id = forms.ChoiceField(choices=[], required=False, label=_("Environment"))
    user = forms.ModelChoiceField(
        queryset=User.objects.order_by("username"),
        to_field_name="username",
        required=False,
        empty_label=_("— any user of the role —"),
        label=_("User"),
        help_text=_("Optional: judge for this user — their roles and where they have a Superset identity."),
    )
    question = forms.CharField(
        required=False,
        max_length=4000,
        label=_("Question"),
        help_text=_("Optional: the user's message; the embedding router then keeps only its top-K tools."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The active environments, read per form; ``fields`` is typed as plain fields, this one is the ChoiceField.
        cast(forms.ChoiceField, self.fields["env_id"]).choices = [("", gettext("— none —"))] + [
            (e.env_id, f"{e.env_id} ({e.tier})") for e in policy.environments_active()
        ]


def policy_preview_rows(
    *,
    role: str | None,
    object_type: str | None,
    env_id: str | None,
    question: str | None = None,
    user: User | None = None,
) -> list[dict]:
    """Return one row per tool for the preview table.

    Args:
        question: optional user message; with the router on, tools outside its top-K are not offered and say so.
        user: optional user: their roles replace ``role``, and an env-specific tool where they have no Superset
            identity says so (DESIGN §15).

    Returns:
        ``[{"name", "category", "env_specific", "registered", "roles", "object_types", "offered",
        "reasons": [text]}]`` ordered by name; ``category`` and ``object_types`` are their labels in the active
        language (``Category``, ``ObjectType`` choices), like the rest of the admin.
    """
    context = {"objectType": object_type or None, "envId": env_id or None}
    roles = policy.user_roles(user=user) if user is not None else ([role] if role else [])
    acting_envs = identity_env_ids(user=user) if user is not None else None
    choices = toolset_explain(roles=roles, context=context, question=question or None, acting_envs=acting_envs)
    return [
        {
            "name": c.name,
            "category": _choice_label(Category, c.category),
            "env_specific": c.env_specific,
            "registered": c.registered,
            "roles": ", ".join(c.roles) or "—",
            "object_types": ", ".join(_choice_label(ObjectType, o) for o in c.object_types) or "—",
            "offered": c.offered,
            "reasons": [str(REFUSAL_TEXTS[r]) for r in c.refusals] + (_routed_text(c) if c.routed_out else []),
        }
        for c in choices
    ]


def _choice_label(choices: type[Category] | type[ObjectType], value: str) -> str:
    """The label of ``value`` among ``choices`` in the active language; an unknown value shows itself."""
    return str(dict(choices.choices).get(value, value))


def _routed_text(choice: ToolChoice) -> list[str]:
    text = gettext("not in the router's top-%(k)s for this question (score %(score).3f)")
    return [text % {"k": settings.ROUTER_TOP_K, "score": choice.route_score or 0.0}]


def policy_preview(request: HttpRequest) -> HttpResponse:
    """``GET /admin/policy-preview/?role=&object_type=&env_id=``: staff with ``policies.view_tool`` only."""
    if not request.user.has_perm("policies.view_tool"):
        raise PermissionDenied
    form = PreviewForm(request.GET or None)
    rows = None
    if form.is_bound and form.is_valid():
        role = form.cleaned_data["role"]
        rows = policy_preview_rows(
            role=role.name if role else None,
            object_type=form.cleaned_data["object_type"],
            env_id=form.cleaned_data["env_id"],
            question=form.cleaned_data["question"],
            user=form.cleaned_data["user"],
        )
    context = {
        **admin.site.each_context(request),
        "title": gettext("Policy preview"),
        "form": form,
        "rows": rows,
        "offered": [r for r in rows if r["offered"]] if rows is not None else None,
    }
    return TemplateResponse(request, "admin/policy_preview.html", context)


policy_preview_view = admin.site.admin_view(policy_preview)
