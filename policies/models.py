"""Policy and audit data (DESIGN §4): who may use which tool, where it is offered, which environment is prod.

Policy is data, behaviour is code: tool behaviour lives in ``agentchat.tools``; these rows decide whether a
tool is offered and to whom. ``policies`` never imports ``agentchat``.
"""

from typing import Any, NoReturn

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.serializers.json import DjangoJSONEncoder
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils import translation


class Tier(models.TextChoices):
    DEV = "dev", "dev"
    STAGING = "staging", "staging"
    PROD = "prod", "prod"


class Category(models.TextChoices):
    READ = "read", "read"
    WRITE = "write", "write"
    DANGEROUS = "dangerous", "dangerous"


class ObjectType(models.TextChoices):
    DASHBOARD = "dashboard", "dashboard"
    DATASET = "dataset", "dataset"
    MIGRATION = "migration", "migration"


class Environment(models.Model):
    """A Superset environment the agent may act on.

    Credentials are never stored here: ``credentials_env`` names the prefix of two process environment
    variables, ``<prefix>_USERNAME`` and ``<prefix>_PASSWORD`` (e.g. ``SUPERSET_SS_DEV``).
    """

    env_id = models.SlugField(max_length=64, unique=True, help_text="Stable id used in URLs and tool args.")
    name = models.CharField(max_length=128)
    tier = models.CharField(max_length=16, choices=Tier.choices)
    superset_url = models.URLField(help_text="Base URL of the Superset instance, e.g. http://127.0.0.1:8088")
    credentials_env = models.CharField(
        max_length=64,
        validators=[RegexValidator(r"^[A-Z][A-Z0-9_]*$", "Upper-case environment variable prefix.")],
        help_text="Prefix of the variables <PREFIX>_USERNAME and <PREFIX>_PASSWORD.",
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["env_id"]

    def __str__(self) -> str:
        return f"{self.env_id} ({self.tier})"


class Tool(models.Model):
    """A tool of the code registry as policy sees it; rows are synced from the registry (``sync_tools``).

    Admins edit ``enabled``, descriptions and ``timeout_s``; ``category`` and ``env_specific`` follow the code.
    A row whose name is not registered in code (a retired tool, or one not merged yet) is never offered.
    A tool that appears in the registry gets a row with no roles and no object types: nobody is offered it
    until an admin grants it (DESIGN §4).
    """

    name = models.CharField(max_length=64, primary_key=True, help_text="The name the LLM calls; set by the code.")
    category = models.CharField(
        max_length=16,
        choices=Category.choices,
        help_text="read: no state change; write/dangerous: change state and need a confirmation. Set by the code.",
    )
    env_specific = models.BooleanField(
        default=True, help_text="Needs an environment id to run; not offered without envId. Set by the code."
    )
    description_ru = models.TextField(
        blank=True, help_text="Read by the LLM and shown in «что ты умеешь?»; empty = the code's text."
    )
    description_en = models.TextField(
        blank=True, help_text="Read by the LLM and shown in “what can you do?”; empty = the code's text."
    )
    enabled = models.BooleanField(
        default=True, help_text="Off: offered to nobody and refused when called; applies from the next message."
    )
    timeout_s = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.1), MaxValueValidator(3600)],
        help_text="Whole-call deadline in seconds; empty = TOOL_TIMEOUT_S (30).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ToolPermission(models.Model):
    """Role (a Django ``Group``) → a tool it may use (DESIGN §4; seed AGTL-FR-001/005)."""

    group = models.ForeignKey(
        Group, on_delete=models.CASCADE, related_name="tool_permissions", verbose_name="role", help_text="A role."
    )
    tool = models.ForeignKey(Tool, on_delete=models.CASCADE, related_name="permissions")

    class Meta:
        ordering = ["group__name", "tool__name"]
        verbose_name = "role permission"
        constraints = [models.UniqueConstraint(fields=["group", "tool"], name="uniq_tool_permission")]

    def __str__(self) -> str:
        return f"{self.group.name} → {self.tool_id}"


class ContextToolAffinity(models.Model):
    """Object type of the page the user came from → a tool offered there (seed AGCTX-FR-005)."""

    object_type = models.CharField(
        max_length=16,
        choices=ObjectType.choices,
        help_text="Pages of this object type offer the tool; without an object type every permitted tool is.",
    )
    tool = models.ForeignKey(Tool, on_delete=models.CASCADE, related_name="affinities")

    class Meta:
        ordering = ["object_type", "tool__name"]
        verbose_name = "object-type affinity"
        verbose_name_plural = "object-type affinities"
        constraints = [models.UniqueConstraint(fields=["object_type", "tool"], name="uniq_affinity")]

    def __str__(self) -> str:
        return f"{self.object_type} → {self.tool_id}"


class RiskRule(models.Model):
    """How risky a tool category is in an environment tier, and how the confirmation card looks (DESIGN §9).

    ``tier`` ``none`` is a call without an environment. ``typed_confirmation``: the card's confirm button enables
    only after the user types the environment id (prod + dangerous by default).
    """

    class RiskLevel(models.TextChoices):
        SAFE = "safe"
        GUARDED = "guarded"
        DANGEROUS = "dangerous"

    class Tone(models.TextChoices):
        SUCCESS = "success"
        INFO = "info"
        WARNING = "warning"
        DESTRUCTIVE = "destructive"

    TIER_NONE = "none"
    TIER_CHOICES = [*Tier.choices, (TIER_NONE, "no environment")]

    category = models.CharField(max_length=16, choices=Category.choices)
    tier = models.CharField(max_length=16, choices=TIER_CHOICES)
    risk_level = models.CharField(max_length=16, choices=RiskLevel.choices)
    tone = models.CharField(max_length=16, choices=Tone.choices)
    requires_confirmation = models.BooleanField(default=True)
    typed_confirmation = models.BooleanField(default=False)
    prompt_ru = models.CharField(max_length=300, blank=True, help_text="Card text, e.g. «Изменения в dev-окружении».")
    prompt_en = models.CharField(max_length=300, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["category", "tier"]
        constraints = [models.UniqueConstraint(fields=["category", "tier"], name="uniq_risk_rule")]

    def __str__(self) -> str:
        return f"{self.category} × {self.tier} → {self.risk_level}/{self.tone}"

    def prompt(self, language: str | None = None) -> str:
        """The card text in ``language`` (``ru``/``en``; None: the active language): the admin's English text for
        English, the Russian one otherwise; an empty one falls back to the other."""
        english = (language or translation.get_language() or "").startswith("en")
        return (self.prompt_en or self.prompt_ru) if english else (self.prompt_ru or self.prompt_en)


class AuditAppendOnly(PermissionError):
    """An attempt to change or delete audit rows (the log is append-only, DESIGN §4)."""


class AuditEventQuerySet(models.QuerySet):
    """Queries of the audit log: rows can be inserted and read, never updated or deleted in bulk.

    ``update()`` and ``delete()`` raise, so ORM helpers (``bulk_update``, ``update_or_create`` on a found row,
    admin actions) cannot rewrite the log. Cascades from other models use Django's plain base manager: deleting
    a user still sets ``actor`` to NULL, which keeps the row.
    """

    def update(self, **kwargs: Any) -> NoReturn:
        """Refused.

        Raises:
            AuditAppendOnly: always.
        """
        raise AuditAppendOnly("AuditEvent is append-only: rows cannot be updated")

    def delete(self) -> NoReturn:
        """Refused.

        Raises:
            AuditAppendOnly: always.
        """
        raise AuditAppendOnly("AuditEvent is append-only: rows cannot be deleted")


class AuditEvent(models.Model):
    """One append-only audit record (DESIGN §4), in Zulip's RealmAuditLog shape.

    Fields: ``created_at`` event time (indexed); ``event_type`` what happened; ``actor`` the user (null for
    system events); ``conversation_id`` the chat it belongs to (a plain id: policies does not import the chat
    app); ``tool``/``env_id`` targets; ``args`` tool arguments (no tool takes a secret); ``raw_chars``/``sent_chars``
    tool output size before/after summarisation (characters); ``duration_ms``; ``outcome`` a short code
    (``ok``, ``timeout``, …); ``extra_data`` anything else (decision, payload, error).
    """

    class EventType(models.TextChoices):
        CONTEXT_REJECTED = "context_rejected"
        CONTEXT_DISCARDED = "context_discarded"
        TOOL_OFFERED = "tool_offered"
        TOOL_CALL = "tool_call"
        PERMISSION_DENIED = "permission_denied"
        CONFIRM_REQUIRED = "confirm_required"
        CONFIRMED = "confirmed"
        DENIED = "denied"
        CANCELLED = "cancelled"
        EXPIRED = "expired"
        TOOL_RESULT = "tool_result"
        TOOL_ERROR = "tool_error"
        TIMEOUT = "timeout"
        RETRY = "retry"
        SUMMARISED = "summarised"
        SESSION_EXPIRED = "session_expired"

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    event_type = models.CharField(max_length=32, choices=EventType.choices, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    conversation_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    tool = models.CharField(max_length=64, blank=True, db_index=True)
    env_id = models.CharField(max_length=64, blank=True)
    args = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    raw_chars = models.PositiveIntegerField(null=True, blank=True)
    sent_chars = models.PositiveIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    outcome = models.CharField(max_length=32, blank=True)
    extra_data = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-id"]
        # The audit report filters by type or environment within a time window (policies.reports).
        indexes = [
            models.Index(fields=["event_type", "created_at"], name="audit_type_time_idx"),
            models.Index(fields=["env_id", "created_at"], name="audit_env_time_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M:%S} {self.event_type} {self.tool}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Insert only: an existing audit row is never rewritten.

        Raises:
            AuditAppendOnly: the row was already saved.
        """
        if self.pk is not None and not self._state.adding:
            raise AuditAppendOnly("AuditEvent is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Refused: the audit log is append-only.

        Raises:
            AuditAppendOnly: always.
        """
        raise AuditAppendOnly("AuditEvent is append-only")
