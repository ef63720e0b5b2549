"""Admin for policies (DESIGN §4): admins edit policy rows here, without a deploy; the audit log is read-only."""

from django.contrib import admin

from .models import AuditEvent, ContextToolAffinity, Environment, RiskRule, Tool, ToolPermission


@admin.register(Environment)
class EnvironmentAdmin(admin.ModelAdmin):
    list_display = ["env_id", "name", "tier", "superset_url", "credentials_env", "is_active"]
    list_filter = ["tier", "is_active"]
    search_fields = ["env_id", "name", "superset_url"]


class ToolPermissionInline(admin.TabularInline):
    model = ToolPermission
    extra = 0


class ContextToolAffinityInline(admin.TabularInline):
    model = ContextToolAffinity
    extra = 0


@admin.register(Tool)
class ToolAdmin(admin.ModelAdmin):
    list_display = ["name", "category", "env_specific", "enabled", "timeout_s"]
    list_filter = ["category", "env_specific", "enabled"]
    search_fields = ["name", "description_ru", "description_en"]
    readonly_fields = ["name", "category", "env_specific"]
    inlines = [ToolPermissionInline, ContextToolAffinityInline]


@admin.register(ToolPermission)
class ToolPermissionAdmin(admin.ModelAdmin):
    list_display = ["group", "tool"]
    list_filter = ["group", "tool__category"]
    search_fields = ["tool__name", "group__name"]


@admin.register(ContextToolAffinity)
class ContextToolAffinityAdmin(admin.ModelAdmin):
    list_display = ["object_type", "tool"]
    list_filter = ["object_type"]
    search_fields = ["tool__name"]


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """Read-only for everyone, superusers included (append-only log)."""

    list_display = ["created_at", "event_type", "actor", "tool", "env_id", "outcome", "duration_ms"]
    list_filter = ["event_type", "tool", "env_id", "outcome"]
    search_fields = ["tool", "actor__username", "outcome"]
    date_hierarchy = "created_at"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
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
