"""Admin of saved migrations (issue 15): plans are listed, filtered and edited (name, mapping, dashboards);
the preview, the runs and the timestamps are what the tools wrote, shown read-only."""

from django.contrib import admin

from agentchat.models import Migration


@admin.register(Migration)
class MigrationAdmin(admin.ModelAdmin):
    """``Migration`` rows: list by status and environments; the database mapping is the editable JSON object
    ``{"source database": "target database"}`` (empty: by name)."""

    list_display = ("name", "source_env_id", "target_env_id", "status", "created_by", "created_at")
    list_filter = ("status", "source_env_id", "target_env_id")
    search_fields = ("name",)
    readonly_fields = ("preview", "previewed_at", "runs", "created_by", "created_at", "updated_at")
    fields = (
        "name",
        "source_env_id",
        "target_env_id",
        "dashboards",
        "database_mapping",
        "status",
        "preview",
        "previewed_at",
        "runs",
        "created_by",
        "created_at",
        "updated_at",
    )
