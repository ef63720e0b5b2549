"""Admin of the chat app's own rows: saved migrations (issue 15) — plans are listed, filtered and edited (name,
mapping, dashboards), the preview, the runs and the timestamps are what the tools wrote, shown read-only — and
users' Superset identities (DESIGN §15), listed without their secrets."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from agentchat.models import Migration, SupersetIdentity


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


_FIELDS = [
    "user",
    "environment",
    "kind",
    "superset_user_id",
    "superset_username",
    "state",
    "hint",
    "expires_at",
    "last_used_at",
    "created_at",
]


@admin.register(SupersetIdentity)
class SupersetIdentityAdmin(admin.ModelAdmin):
    """Each user's identities: environment, kind, Superset username, state — never the secret (not a field here).

    Read-only: identities come from sign-in and ``/settings/``; an admin may delete one (the user then signs in
    again or adds a key).
    """

    list_display = ["user", "environment", "kind", "superset_username", "state", "hint", "expires_at", "last_used_at"]
    list_filter = ["environment", "kind", "state"]
    search_fields = ["user__username", "superset_username"]
    fields = tuple(_FIELDS)
    readonly_fields = tuple(_FIELDS)

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Identities are never typed in by an admin (a secret would pass through the admin)."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Viewing only; see the class docstring."""
        return False
