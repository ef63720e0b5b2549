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
