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
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:  # the stubs' name for "a str or a lazy translation" (django-stubs)
    from django.utils.functional import _StrOrPromise as StrOrPromise

from policies.models import AuditEvent, ContextToolAffinity, Environment, RiskRule, RoleMapping, Tool, ToolPermission
from policies.services import tools_registered


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

    list_display = ["name", "category", "env_specific", "enabled", "timeout_s", "registered", "roles", "object_types"]
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


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only for everyone, superusers included (append-only log; the model refuses updates too)."""

    list_display = ["created_at", "event_type", "actor", "conversation_id", "tool", "env_id", "outcome", "duration_ms"]
    list_filter = ["event_type", "outcome", "env_id", "tool"]
    search_fields = ["tool", "actor__username", "outcome", "env_id"]
    list_select_related = ["actor"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: AuditEvent | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: AuditEvent | None = None) -> bool:
        return False


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
