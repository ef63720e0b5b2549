"""Admin of the chat app's own rows: users' Superset identities (DESIGN §15), listed without their secrets."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from agentchat.models import SupersetIdentity

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
