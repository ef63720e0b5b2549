"""Conversations and their messages (DESIGN §4). Everything a reconnect needs lives here, not in memory."""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Conversation(models.Model):
    """One chat of one user; ``ui_context`` is the validated UIContext it started with (or null).

    ``context_version`` is the UIContext contract in force when it started (1, also without a context); null marks
    a conversation from before contexts were stored, which the agent answers with «контекст недоступен».
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations", verbose_name=_("user")
    )
    title = models.CharField(max_length=200, blank=True, verbose_name=_("title"))
    ui_context = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("page context"))
    context_version = models.PositiveSmallIntegerField(null=True, blank=True, verbose_name=_("context version"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("conversation")
        verbose_name_plural = _("conversations")
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title}"


class Message(models.Model):
    """One LangChain message of a conversation, stored in order.

    ``tool_calls`` holds the assistant's calls as ``[{"id", "name", "args"}]``; a tool message carries the
    ``tool_call_id`` it answers and its ``status`` (``success|error``). ``ui_context`` is the context snapshot
    the user message was sent with (null in history that predates contexts).

    A user message's turn (issue 31): ``client_id`` is the page's id of the message (empty when the client sent
    none), by which a page that lost its socket asks what became of it (``resume``); ``lease_until`` is when the
    turn answering it counts as gone unless renewed (``turn.lease``): set when it starts, renewed while it runs,
    null once it failed with an error the user was sent. A turn whose lease ran out without an answer was
    interrupted (its process stopped).
    """

    class Role(models.TextChoices):
        USER = "user", pgettext_lazy("message role", "user")
        ASSISTANT = "assistant", pgettext_lazy("message role", "assistant")
        TOOL = "tool", pgettext_lazy("message role", "tool")
        SYSTEM = "system", pgettext_lazy("message role", "system")

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages", verbose_name=_("conversation")
    )
    role = models.CharField(max_length=16, choices=Role.choices, verbose_name=_("role"))
    content = models.TextField(blank=True, verbose_name=_("content"))
    tool_calls = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("tool calls"))
    tool_call_id = models.CharField(max_length=128, blank=True, verbose_name=_("tool call id"))
    tool_name = models.CharField(max_length=64, blank=True, verbose_name=_("tool name"))
    status = models.CharField(max_length=16, blank=True, verbose_name=_("status"))
    ui_context = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("page context"))
    client_id = models.CharField(max_length=64, blank=True, verbose_name=_("client message id"))
    lease_until = models.DateTimeField(null=True, blank=True, verbose_name=_("turn lease until"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("message")
        verbose_name_plural = _("messages")
        ordering = ["id"]
        indexes = [
            models.Index(fields=["conversation", "id"]),
            models.Index(fields=["client_id"], condition=~models.Q(client_id=""), name="message_client_id"),
        ]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:40]}"


class TaskRecord(models.Model):
    """A background job started by a tool (backup, migration, validation…), as users and get_task_status see it.

    ``progress`` is 0–100 (percent); ``message`` the latest progress line; ``result`` the JSON result once
    ``succeeded`` (a migration's per-dashboard outcome as it goes); ``error`` the failure text once ``failed``.
    ``task_result_id`` links to django-tasks' own row. ``lease_until``: while ``running``, when the job counts as
    gone unless its worker renews it (``runtime.background``); a run whose lease ran out ends ``failed`` with where
    it stopped (issue 31: a worker killed mid-migration).
    """

    class State(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("task state", "queued")
        RUNNING = "running", pgettext_lazy("task state", "running")
        SUCCEEDED = "succeeded", pgettext_lazy("task state", "succeeded")
        FAILED = "failed", pgettext_lazy("task state", "failed")

    kind = models.CharField(max_length=32, verbose_name=_("kind"))
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("user")
    )
    conversation = models.ForeignKey(
        Conversation, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("conversation")
    )
    env_id = models.CharField(max_length=64, blank=True, verbose_name=_("environment id"))
    params = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("parameters"))
    state = models.CharField(
        max_length=16, choices=State.choices, default=State.QUEUED, db_index=True, verbose_name=_("state")
    )
    progress = models.PositiveSmallIntegerField(default=0, verbose_name=_("progress, %"))
    message = models.CharField(max_length=500, blank=True, verbose_name=_("message"))
    result = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("result"))
    error = models.TextField(blank=True, verbose_name=_("error"))
    task_result_id = models.CharField(max_length=64, blank=True, verbose_name=_("task result id"))
    lease_until = models.DateTimeField(null=True, blank=True, verbose_name=_("lease until"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("background task")
        verbose_name_plural = _("background tasks")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} {self.state} {self.progress}%"


# What people read for a ``TaskRecord.kind`` the tools start («Задача #3 (резервная копия)»); ``kind`` itself stays
# free text, and an unknown one shows itself (``task_kind_label``).
TASK_KINDS = {
    "backup": pgettext_lazy("task kind", "backup"),
    "migration": pgettext_lazy("task kind", "migration"),
    "validation": pgettext_lazy("task kind", "validation"),
    "documentation": pgettext_lazy("task kind", "documentation"),
}


def task_kind_label(kind: str | None) -> str:
    """The label of a task ``kind`` (``backup``, ``migration``, ``validation``, ``documentation``) in the active
    language; another kind is returned as it is, None as an empty string."""
    return str(TASK_KINDS[kind]) if kind in TASK_KINDS else str(kind or "")


class PendingConfirmation(models.Model):
    """A tool call waiting for (or decided by) the user's confirmation; also the record of a refused call.

    ``args`` are exactly the arguments that will run, ``args_sha256`` their hash (checked before execution);
    ``decision`` the GuardrailDecision shown on the card. A status change is one conditional UPDATE from
    ``pending`` (DESIGN §4), so a double click or two tabs execute a write once.
    """

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("confirmation status", "pending")
        APPROVED = "approved", pgettext_lazy("confirmation status", "approved")
        DENIED = "denied", pgettext_lazy("confirmation status", "denied")
        EXPIRED = "expired", pgettext_lazy("confirmation status", "expired")
        EXECUTED = "executed", pgettext_lazy("confirmation status", "executed")
        FAILED = "failed", pgettext_lazy("confirmation status", "failed")
        UNKNOWN = "unknown", pgettext_lazy("confirmation status", "unknown")
        REFUSED = (
            "refused",
            pgettext_lazy("confirmation status", "refused"),
        )  # permission denied before any card could offer a confirmation

    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="confirmations", verbose_name=_("conversation")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", verbose_name=_("user")
    )
    assistant_message = models.ForeignKey(
        Message, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("assistant message")
    )
    call_id = models.CharField(max_length=128, verbose_name=_("call id"))
    tool = models.CharField(max_length=64, verbose_name=_("tool"))
    args = models.JSONField(default=dict, encoder=DjangoJSONEncoder, verbose_name=_("arguments"))
    args_sha256 = models.CharField(max_length=64, verbose_name=_("arguments sha256"))
    decision = models.JSONField(default=dict, encoder=DjangoJSONEncoder, verbose_name=_("decision"))
    language = models.CharField(max_length=2, default="ru", verbose_name=_("language"))
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True, verbose_name=_("status")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    decided_at = models.DateTimeField(null=True, blank=True, verbose_name=_("decided at"))

    class Meta:
        verbose_name = _("confirmation")
        verbose_name_plural = _("confirmations")
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["conversation", "call_id"], name="uniq_confirmation_call")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.tool} {self.status}"


class ValidationRun(models.Model):
    """One LLM (or rule-based) review of a dashboard's metadata, as run_llm_validation/documentation stored it.

    ``findings`` is a list of ``{"rule", "severity", "object_type", "object_id", "object_name", "message",
    "language"}`` (the message in the language of the dashboard's names) for a validation, and of
    ``{"object_type": "chart", "object_id", "object_name", "description"}`` (what was written to Superset) for a
    documentation run. ``engine`` says who reviewed: ``llm`` (the configured model) or ``rules`` (offline mode).
    ``summary`` is one line in the language of the user who started the run. ``task`` links to the background job.
    DESIGN §4, §8.
    """

    class Kind(models.TextChoices):
        VALIDATION = "validation", pgettext_lazy("review kind", "validation")
        DOCUMENTATION = "documentation", pgettext_lazy("review kind", "documentation")

    class Status(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("review status", "queued")
        RUNNING = "running", pgettext_lazy("review status", "running")
        SUCCEEDED = "succeeded", pgettext_lazy("review status", "succeeded")
        FAILED = "failed", pgettext_lazy("review status", "failed")

    env_id = models.CharField(max_length=64, verbose_name=_("environment id"))
    dashboard_id = models.PositiveIntegerField(verbose_name=_("dashboard id"))
    dashboard_title = models.CharField(max_length=500, blank=True, verbose_name=_("dashboard title"))
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED, verbose_name=_("status"))
    engine = models.CharField(max_length=16, blank=True, verbose_name=_("engine"))
    language = models.CharField(max_length=8, default="ru", verbose_name=_("language"))
    findings = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("findings"))
    summary = models.TextField(blank=True, verbose_name=_("summary"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("created by")
    )
    task = models.ForeignKey(
        TaskRecord, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("task")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("dashboard review")
        verbose_name_plural = _("dashboard reviews")
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["env_id", "dashboard_id", "kind", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.kind} of dashboard {self.dashboard_id}@{self.env_id} {self.status}"


class Backup(models.Model):
    """A zip of Superset exports of one environment (DESIGN §4, §8): ``full``, every dashboard, written by
    run_backup; ``pre_change``, the current versions of what a deploy, migration or rollback is about to overwrite
    outside dev, written before it (issue 28: a copy before every overwrite; ``tools.copies``).

    ``path`` is the absolute file path (under ``BACKUP_DIR/<env_id>/``); ``size_bytes`` and ``sha256`` describe
    the file as written; ``dashboards`` lists what it holds as ``[{"id", "title", "slug", "uuid"}]``;
    ``task`` is the background job that made it. ``change`` (``pre_change`` only) describes the write the copy was
    made for: ``{"tool", "source_env_id", "dashboards": [source titles], "charts": [target chart uuids saved],
    "created": [{"type", "uuid", "name"}]}``.
    """

    class Kind(models.TextChoices):
        FULL = "full", pgettext_lazy("backup kind", "full backup")
        PRE_CHANGE = "pre_change", pgettext_lazy("backup kind", "copy before a change")

    kind = models.CharField(
        max_length=16, choices=Kind.choices, default=Kind.FULL, db_index=True, verbose_name=_("kind")
    )
    change = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("change"))
    env_id = models.CharField(max_length=64, db_index=True, verbose_name=_("environment id"))
    path = models.CharField(max_length=500, verbose_name=_("path"))
    size_bytes = models.BigIntegerField(verbose_name=_("size, bytes"))
    dashboard_count = models.PositiveIntegerField(verbose_name=_("dashboard count"))
    sha256 = models.CharField(max_length=64, verbose_name=_("sha256"))
    dashboards = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("dashboards"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("created by")
    )
    task = models.OneToOneField(
        TaskRecord, null=True, blank=True, on_delete=models.SET_NULL, related_name="backup", verbose_name=_("task")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("backup")
        verbose_name_plural = _("backups")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.env_id} {self.created_at:%Y-%m-%d %H:%M} ({self.dashboard_count})"


class SupersetIdentity(models.Model):
    """Who the agent acts as for ``user`` in ``environment`` (DESIGN §15).

    ``kind``: ``password`` (tokens from agentchat's sign-in against Superset's ``/api/v1/security/login``) or
    ``api_key`` (a personal Superset API key added on ``/settings/``). ``secret`` is the Fernet token (MultiFernet,
    ``AGENTCHAT_ENCRYPTION_KEYS``) of a JSON object — ``{"access", "refresh"}`` or ``{"key"}`` — and nothing
    else stores it; ``hint`` is what may be shown (``sst_…AbCd``). ``superset_user_id``/``superset_username`` are
    what Superset's ``GET /api/v1/me/`` reported. ``state`` turns ``expired`` when Superset refuses the refresh
    token or the key; signing in again (or a new key) makes it ``active``. ``expires_at``: when the refresh token
    or the key stops working, if known.
    """

    class Kind(models.TextChoices):
        PASSWORD = "password", pgettext_lazy("identity kind", "sign-in (password)")
        API_KEY = "api_key", pgettext_lazy("identity kind", "API key")

    class State(models.TextChoices):
        ACTIVE = "active", pgettext_lazy("identity state", "active")
        EXPIRED = "expired", pgettext_lazy("identity state", "expired")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="superset_identities",
        verbose_name=_("user"),
    )
    environment = models.ForeignKey(
        "policies.Environment", on_delete=models.CASCADE, related_name="identities", verbose_name=_("environment")
    )
    kind = models.CharField(max_length=16, choices=Kind.choices, verbose_name=_("kind"))
    secret = models.TextField(verbose_name=_("encrypted secret"))
    hint = models.CharField(max_length=32, blank=True, verbose_name=_("shown as"))
    superset_user_id = models.IntegerField(null=True, blank=True, verbose_name=_("Superset user id"))
    superset_username = models.CharField(max_length=150, blank=True, verbose_name=_("Superset username"))
    state = models.CharField(max_length=16, choices=State.choices, default=State.ACTIVE, verbose_name=_("state"))
    expires_at = models.DateTimeField(null=True, blank=True, verbose_name=_("expires at"))
    last_used_at = models.DateTimeField(null=True, blank=True, verbose_name=_("last used at"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("Superset identity")
        verbose_name_plural = _("Superset identities")
        ordering = ["user_id", "environment_id", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["user", "environment", "kind"], name="identity_user_env_kind_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user_id}@{self.environment_id} {self.kind} ({self.superset_username or '?'}, {self.state})"


class Migration(models.Model):
    """A saved plan to move dashboards from one environment to another (issue 15; DESIGN §8 migrations).

    ``dashboards`` lists the source dashboards as ``[{"id", "uuid", "title"}]`` (Superset ids in the source
    environment, the uuids the import matches by). ``database_mapping`` maps a source database name to the target
    database name the import uses; an empty mapping (or a name missing from it) means «the same name», the
    default. ``preview`` is the last ``preview_migration`` result (``plan_impact``), ``runs`` the background task
    records of ``execute_migration`` (each with its per-dashboard outcome in ``result``). ``status`` follows the
    plan: ``draft`` → ``previewed`` → ``running`` → ``done`` | ``failed``.
    """

    class Status(models.TextChoices):
        DRAFT = "draft", pgettext_lazy("migration status", "draft")
        PREVIEWED = "previewed", pgettext_lazy("migration status", "previewed")
        RUNNING = "running", pgettext_lazy("migration status", "running")
        DONE = "done", pgettext_lazy("migration status", "done")
        FAILED = "failed", pgettext_lazy("migration status", "failed")

    name = models.CharField(max_length=200, verbose_name=_("name"))
    source_env_id = models.CharField(max_length=64, verbose_name=_("source environment"))
    target_env_id = models.CharField(max_length=64, verbose_name=_("target environment"))
    dashboards = models.JSONField(default=list, encoder=DjangoJSONEncoder, verbose_name=_("dashboards"))
    database_mapping = models.JSONField(
        default=dict,
        blank=True,
        encoder=DjangoJSONEncoder,
        verbose_name=_("database mapping"),
        help_text=_("Source database name → target database name; a database not listed keeps its name."),
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.DRAFT, db_index=True, verbose_name=_("status")
    )
    preview = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("last preview"))
    previewed_at = models.DateTimeField(null=True, blank=True, verbose_name=_("previewed at"))
    runs = models.ManyToManyField(TaskRecord, blank=True, related_name="migrations", verbose_name=_("runs"))
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+", verbose_name=_("created by")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("migration")
        verbose_name_plural = _("migrations")
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.name} ({self.source_env_id} → {self.target_env_id})"

    @property
    def dashboard_ids(self) -> list[int]:
        """The source Superset ids of the plan's dashboards, in plan order."""
        return [int(d["id"]) for d in self.dashboards]
