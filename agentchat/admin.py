"""Admin of the chat app's own rows: saved migrations (issue 15) — plans are listed, filtered and edited (name,
mapping, dashboards), the preview, the runs and the timestamps are what the tools wrote, shown read-only —,
users' Superset identities (DESIGN §15), listed without their secrets, and conversations (read-only: the audit
log links each row to its conversation). The site is branded agentchat, and django-tasks' task results are
shown with translated names (issue 30 item 2)."""

from typing import Any

from django.contrib import admin
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext_lazy as _
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult

from agentchat.models import Conversation, Message, Migration, SupersetIdentity

admin.site.site_header = _("agentchat administration")
admin.site.site_title = _("agentchat administration")
admin.site.index_title = _("Policies, audit and people")
# The lists (tools, audit) need the width at 1366 px: the side bar of every model took a quarter of it and the
# last columns were cut off; the breadcrumbs and the index lead to every list instead.
admin.site.enable_nav_sidebar = False


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


class MessageInline(admin.TabularInline):
    """A conversation's messages, in order, read-only."""

    model = Message
    fields = readonly_fields = ("created_at", "role", "tool_name", "content")
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    """Conversations as the audit log links them: who, when, on which page, the messages, and the link back to
    the conversation's audit rows. Read-only: the chat writes them."""

    list_display = ["id", "title", "user", "created_at", "updated_at"]
    list_filter = ["user"]
    search_fields = ["title", "user__username"]
    list_select_related = ["user"]
    fields = readonly_fields = ("user", "title", "ui_context", "created_at", "updated_at", "audit")
    inlines = [MessageInline]

    @admin.display(description=_("audit log"))
    def audit(self, obj: Conversation) -> SafeString:
        url = reverse("admin:policies_auditevent_changelist") + f"?conversation_id={obj.pk}"
        return format_html('<a href="{}">{}</a>', url, _("Audit rows of this conversation"))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


admin.site.unregister(DBTaskResult)


@admin.register(DBTaskResult)
class TaskResultAdmin(DBTaskResultAdmin):
    """django-tasks' results with names people read: its column and field names come from its models' verbose
    names, translated in ``locale/ru`` (``agentchat.web.admin_wording``); what it names by attribute is named here."""

    # django-tasks' own list is typed as its exact tuple of eight names; this one has seven.
    list_display = ("task", "status", "enqueued_at", "started_at", "finished_at", "priority", "queue_name")  # type: ignore[assignment]

    @admin.display(description=_("task"), ordering="task_path")
    def task(self, obj: DBTaskResult) -> str:
        """The task's function name (``agentchat.runtime.background.run_job`` → ``run_job``)."""
        return str(obj.task_path).rsplit(".", 1)[-1]

    @admin.display(description=_("traceback"))
    def formatted_traceback(self, obj: DBTaskResult) -> str:
        return super().formatted_traceback(obj)

    @admin.display(description=_("run after"))
    def display_run_after(self, obj: DBTaskResult) -> Any:
        return super().display_run_after(obj)
