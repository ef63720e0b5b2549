"""Conversations and their messages (DESIGN §4). Everything a reconnect needs lives here, not in memory."""

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models


class Conversation(models.Model):
    """One chat of one user; ``ui_context`` is the validated UIContext it started with (or null).

    ``context_version`` is the UIContext contract in force when it started (1, also without a context); null marks
    a conversation from before contexts were stored, which the agent answers with «контекст недоступен».
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    ui_context = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    context_version = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at", "-id"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.title}"


class Message(models.Model):
    """One LangChain message of a conversation, stored in order.

    ``tool_calls`` holds the assistant's calls as ``[{"id", "name", "args"}]``; a tool message carries the
    ``tool_call_id`` it answers and its ``status`` (``success|error``). ``ui_context`` is the context snapshot
    the user message was sent with (null in history that predates contexts).
    """

    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        TOOL = "tool"
        SYSTEM = "system"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    content = models.TextField(blank=True)
    tool_calls = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder)
    tool_call_id = models.CharField(max_length=128, blank=True)
    tool_name = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=16, blank=True)
    ui_context = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["conversation", "id"])]

    def __str__(self) -> str:
        return f"{self.role}: {self.content[:40]}"


class TaskRecord(models.Model):
    """A background job started by a tool (backup, migration, validation…), as users and get_task_status see it.

    ``progress`` is 0–100 (percent); ``message`` the latest progress line; ``result`` the JSON result once
    ``succeeded``; ``error`` the failure text once ``failed``. ``task_result_id`` links to django-tasks' own row.
    """

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    kind = models.CharField(max_length=32)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    conversation = models.ForeignKey(Conversation, null=True, blank=True, on_delete=models.SET_NULL)
    env_id = models.CharField(max_length=64, blank=True)
    params = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED, db_index=True)
    progress = models.PositiveSmallIntegerField(default=0)
    message = models.CharField(max_length=500, blank=True)
    result = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    error = models.TextField(blank=True)
    task_result_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} {self.state} {self.progress}%"


class PendingConfirmation(models.Model):
    """A tool call waiting for (or decided by) the user's confirmation; also the record of a refused call.

    ``args`` are exactly the arguments that will run, ``args_sha256`` their hash (checked before execution);
    ``decision`` the GuardrailDecision shown on the card. A status change is one conditional UPDATE from
    ``pending`` (DESIGN §4), so a double click or two tabs execute a write once.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        APPROVED = "approved"
        DENIED = "denied"
        EXPIRED = "expired"
        EXECUTED = "executed"
        FAILED = "failed"
        UNKNOWN = "unknown"
        REFUSED = "refused"  # permission denied before any card could offer a confirmation

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="confirmations")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    assistant_message = models.ForeignKey(Message, null=True, on_delete=models.SET_NULL, related_name="+")
    call_id = models.CharField(max_length=128)
    tool = models.CharField(max_length=64)
    args = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    args_sha256 = models.CharField(max_length=64)
    decision = models.JSONField(default=dict, encoder=DjangoJSONEncoder)
    language = models.CharField(max_length=2, default="ru")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["conversation", "call_id"], name="uniq_confirmation_call")]

    def __str__(self) -> str:
        return f"#{self.pk} {self.tool} {self.status}"


class ValidationRun(models.Model):
    """One LLM (or rule-based) review of a dashboard's metadata, as run_llm_validation/documentation stored it.

    ``findings`` is a list of ``{"rule", "severity", "object_type", "object_id", "object_name", "message_ru",
    "message_en"}`` for a validation, and of ``{"object_type": "chart", "object_id", "object_name",
    "description"}`` (what was written to Superset) for a documentation run. ``engine`` says who reviewed:
    ``llm`` (the configured model) or ``rules`` (offline mode). ``summary`` is one line in the language of the
    user who started the run. ``task`` links to the background job. DESIGN §4, §8.
    """

    class Kind(models.TextChoices):
        VALIDATION = "validation"
        DOCUMENTATION = "documentation"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    env_id = models.CharField(max_length=64)
    dashboard_id = models.PositiveIntegerField()
    dashboard_title = models.CharField(max_length=500, blank=True)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    engine = models.CharField(max_length=16, blank=True)
    language = models.CharField(max_length=8, default="ru")
    findings = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder)
    summary = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    task = models.ForeignKey(TaskRecord, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["env_id", "dashboard_id", "kind", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.kind} of dashboard {self.dashboard_id}@{self.env_id} {self.status}"


class Backup(models.Model):
    """A zip of the exports of every dashboard of one environment, written by run_backup (DESIGN §4, §8).

    ``path`` is the absolute file path (under ``BACKUP_DIR/<env_id>/``); ``size_bytes`` and ``sha256`` describe
    the file as written; ``dashboards`` lists what it holds as ``[{"id", "title", "slug", "uuid"}]``;
    ``task`` is the background job that made it.
    """

    env_id = models.CharField(max_length=64, db_index=True)
    path = models.CharField(max_length=500)
    size_bytes = models.BigIntegerField()
    dashboard_count = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    dashboards = models.JSONField(default=list, blank=True, encoder=DjangoJSONEncoder)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    task = models.OneToOneField(TaskRecord, null=True, blank=True, on_delete=models.SET_NULL, related_name="backup")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.env_id} {self.created_at:%Y-%m-%d %H:%M} ({self.dashboard_count})"
