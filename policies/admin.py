"""Admin for policies (DESIGN §4): admins edit policy rows here, without a deploy; the audit log is read-only.

Every look-up of the chat reads these tables on each message, so a saved change applies to the next message.
Tool rows come from the code registry (``manage.py sync_tools``, also run after ``migrate``): they cannot be
added or deleted here, only their policy fields edited; who may use a tool and where it is offered are the two
inlines of its page. A role's tools are also editable on the role (group) page. The "policy preview" page
(linked from the tool list) shows the resulting tool set for any role, object type and environment.
"""

from typing import TYPE_CHECKING

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin as DjangoGroupAdmin
from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # the stubs' name for "a str or a lazy translation" (django-stubs)
    from django.utils.functional import _StrOrPromise as StrOrPromise

from policies.audit_display import json_pretty, outcome_label
from policies.models import AuditEvent, ContextToolAffinity, Environment, RiskRule, RoleMapping, Tool, ToolPermission
from policies.services import tool_title_of, tools_registered


@admin.register(RoleMapping)
class RoleMappingAdmin(admin.ModelAdmin):
    """Superset role → agentchat role, applied at each password sign-in (DESIGN §15)."""

    list_display = ["superset_role", "group", "created_at"]
    list_filter = ["group"]
    search_fields = ["superset_role"]


@admin.register(Environment)
class EnvironmentAdmin(admin.ModelAdmin):
    list_display = [
        "env_id",
        "name",
        "tier",
        "superset_url",
        "auth_mode",
        "login_provider",
        "credentials_env",
        "is_active",
    ]
    list_filter = ["tier", "auth_mode", "is_active"]
    search_fields = ["env_id", "name", "superset_url"]


class ToolPermissionInline(admin.TabularInline):
    """Roles allowed to use the tool (on the tool's page)."""

    model = ToolPermission
    extra = 1
    verbose_name = _("role allowed to use this tool")
    verbose_name_plural = _("Roles allowed to use this tool (role permissions)")


class ContextToolAffinityInline(admin.TabularInline):
    """Object types whose pages offer the tool (on the tool's page)."""

    model = ContextToolAffinity
    extra = 1
    verbose_name = _("object type whose pages offer this tool")
    verbose_name_plural = _("Object types whose pages offer this tool (affinities; none = only without an object)")


class RegisteredFilter(admin.SimpleListFilter):
    """Filter tool rows by whether their name is registered in code."""

    title = _("registered in code")
    parameter_name = "registered"

    def lookups(self, request: HttpRequest, model_admin: "admin.ModelAdmin[Tool]") -> list[tuple[str, "StrOrPromise"]]:
        return [("yes", _("Yes")), ("no", _("No"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Tool]) -> QuerySet[Tool]:
        names = tools_registered()
        if names is None or self.value() not in ("yes", "no"):
            return queryset
        return queryset.filter(name__in=names) if self.value() == "yes" else queryset.exclude(name__in=names)


@admin.register(Tool)
class ToolAdmin(admin.ModelAdmin):
    """Policy fields of a tool; behaviour fields (name, category, env flag) follow the code and are read-only."""

    # What people call the tool above its code name; the timeout is on the tool's page (the list fits 1366 px with
    # the admin's side bar and filters; issue 30 item 5).
    list_display = ["title", "category", "enabled", "env_specific", "roles", "object_types", "registered"]
    list_display_links = ["title"]
    list_editable = ["enabled"]
    list_filter = [
        "category",
        "env_specific",
        "enabled",
        RegisteredFilter,
        "permissions__group",
        "affinities__object_type",
    ]
    search_fields = ["name", "description_ru", "description_en"]
    readonly_fields = ["name", "category", "env_specific", "registered", "roles", "object_types"]
    fieldsets = [
        (None, {"fields": ["name", "category", "env_specific", "registered"]}),
        (_("Policy"), {"fields": ["enabled", "timeout_s", "description_ru", "description_en"]}),
        (_("Currently offered to (saved state; edit below)"), {"fields": ["roles", "object_types"]}),
    ]
    inlines = [ToolPermissionInline, ContextToolAffinityInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tool]:
        return super().get_queryset(request).prefetch_related("permissions__group", "affinities")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # rows come from the code registry (sync_tools)

    def has_delete_permission(self, request: HttpRequest, obj: Tool | None = None) -> bool:
        return False  # switch a tool off with "enabled" instead; the row mirrors code

    @admin.display(description=_("tool"), ordering="name")
    def title(self, obj: Tool) -> SafeString:
        """«Сводка о дашборде» over ``get_health_summary``: the name people read, then the code name."""
        human = tool_title_of(obj.name)
        human = f"{human[:1].upper()}{human[1:]}" if human else obj.name
        return format_html('{}<br><code class="tool-code">{}</code>', human, obj.name)

    @admin.display(boolean=True, description=_("registered in code"))
    def registered(self, obj: Tool) -> bool | None:
        """Whether the code registry has this tool; a row that is not registered is never offered."""
        names = tools_registered()
        return None if names is None else obj.name in names

    @admin.display(description=_("roles"))
    def roles(self, obj: Tool) -> str:
        return ", ".join(sorted(p.group.name for p in obj.permissions.all())) or "—"

    @admin.display(description=_("object types"))
    def object_types(self, obj: Tool) -> str:
        affinities = sorted(obj.affinities.all(), key=lambda a: a.object_type)
        return ", ".join(a.get_object_type_display() for a in affinities) or "—"  # labels, in the admin's language


@admin.register(ToolPermission)
class ToolPermissionAdmin(admin.ModelAdmin):
    list_display = ["group", "tool", "tool_category"]
    list_filter = ["group", "tool__category"]
    search_fields = ["tool__name", "group__name"]
    list_select_related = ["group", "tool"]

    @admin.display(description=_("category"), ordering="tool__category")
    def tool_category(self, obj: ToolPermission) -> str:
        return obj.tool.get_category_display()


@admin.register(ContextToolAffinity)
class ContextToolAffinityAdmin(admin.ModelAdmin):
    list_display = ["object_type", "tool", "tool_category"]
    list_filter = ["object_type", "tool__category"]
    search_fields = ["tool__name"]
    list_select_related = ["tool"]

    @admin.display(description=_("category"), ordering="tool__category")
    def tool_category(self, obj: ContextToolAffinity) -> str:
        return obj.tool.get_category_display()


class RoleToolInline(admin.TabularInline):
    """The tools a role may use (on the role's page)."""

    model = ToolPermission
    extra = 1
    verbose_name = _("tool this role may use")
    verbose_name_plural = _("Tools this role may use (role permissions)")


admin.site.unregister(Group)


@admin.register(Group)
class GroupAdmin(DjangoGroupAdmin):
    """Django's group admin plus the role's tool permissions (roles are groups, DESIGN §4)."""

    list_display = ["name", "tools"]
    inlines = [RoleToolInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Group]:
        return super().get_queryset(request).prefetch_related("tool_permissions")

    @admin.display(description=_("tools"))
    def tools(self, obj: Group) -> str:
        return ", ".join(sorted(p.tool_id for p in obj.tool_permissions.all())) or "—"


class OutcomeFilter(admin.SimpleListFilter):
    """Filter audit rows by outcome, each shown by its meaning (``audit_display.OUTCOME_LABELS``)."""

    title = _("outcome")
    parameter_name = "outcome"

    def lookups(self, request: HttpRequest, model_admin: "admin.ModelAdmin[AuditEvent]") -> list[tuple[str, str]]:
        codes = model_admin.get_queryset(request).order_by().values_list("outcome", flat=True).distinct()
        return sorted(((code, outcome_label(code)) for code in codes if code), key=lambda pair: pair[1])

    def queryset(self, request: HttpRequest, queryset: QuerySet[AuditEvent]) -> QuerySet[AuditEvent]:
        return queryset.filter(outcome=self.value()) if self.value() else queryset


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only for everyone, superusers included (append-only log; the model refuses updates too).

    Shown as people read it (issue 30 item 2): event types and outcomes by their labels, times in ``TIME_ZONE``
    (the row's title too), arguments and details as indented JSON, the conversation as a link to it.
    """

    list_display = (
        "created_at",
        "event_type",
        "actor",
        "conversation",
        "tool",
        "environment",
        "outcome_shown",
        "duration",
    )
    list_filter = ["event_type", OutcomeFilter, "env_id", "tool"]
    search_fields = ["tool", "actor__username", "outcome", "env_id"]
    list_select_related = ["actor"]
    date_hierarchy = "created_at"
    fields = readonly_fields = (
        *list_display[:-1],
        "duration_ms",
        "raw_chars",
        "sent_chars",
        "arguments",
        "details",
    )

    @admin.display(description=_("outcome"), ordering="outcome")
    def outcome_shown(self, obj: AuditEvent) -> str:
        return outcome_label(obj.outcome)

    @admin.display(description=_("environment"), ordering="env_id")
    def environment(self, obj: AuditEvent) -> str:
        return obj.env_id or "—"

    @admin.display(description=_("ms"), ordering="duration_ms")
    def duration(self, obj: AuditEvent) -> str:
        """The call's duration in milliseconds (the column's title says the unit; the field's name is long)."""
        return "—" if obj.duration_ms is None else str(obj.duration_ms)

    @admin.display(description=_("conversation"), ordering="conversation_id")
    def conversation(self, obj: AuditEvent) -> SafeString | str:
        """#12 linked to the conversation's admin page (messages and the rest of its audit), when there is one."""
        if obj.conversation_id is None:
            return "—"
        try:
            url = reverse("admin:agentchat_conversation_change", args=[obj.conversation_id])
        except NoReverseMatch:
            return f"#{obj.conversation_id}"
        return format_html('<a href="{}">#{}</a>', url, obj.conversation_id)

    @admin.display(description=_("arguments"))
    def arguments(self, obj: AuditEvent) -> SafeString | str:
        return _json_block(obj.args)

    @admin.display(description=_("details"))
    def details(self, obj: AuditEvent) -> SafeString | str:
        return _json_block(obj.extra_data)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: AuditEvent | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: AuditEvent | None = None) -> bool:
        return False


def _json_block(value: object) -> SafeString | str:
    text = json_pretty(value)
    return format_html('<pre class="json">{}</pre>', text) if text else "—"


@admin.register(RiskRule)
class RiskRuleAdmin(admin.ModelAdmin):
    list_display = [
        "category",
        "tier",
        "risk_level",
        "tone",
        "requires_confirmation",
        "typed_confirmation",
        "prompt_ru",
    ]
    list_filter = ["category", "tier", "risk_level", "tone"]
    search_fields = ["prompt_ru", "prompt_en"]
