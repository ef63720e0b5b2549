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
from django.utils.formats import date_format
from django.utils.timezone import localtime
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy


class Tier(models.TextChoices):
    DEV = "dev", pgettext_lazy("tier", "dev (development)")
    STAGING = "staging", pgettext_lazy("tier", "staging")
    PROD = "prod", pgettext_lazy("tier", "prod (production)")


class Category(models.TextChoices):
    READ = "read", pgettext_lazy("tool category", "read")
    WRITE = "write", pgettext_lazy("tool category", "write")
    DANGEROUS = "dangerous", pgettext_lazy("tool category", "dangerous")


class ObjectType(models.TextChoices):
    DASHBOARD = "dashboard", pgettext_lazy("object type", "dashboard")
    DATASET = "dataset", pgettext_lazy("object type", "dataset")
    MIGRATION = "migration", pgettext_lazy("object type", "migration")


class AuthMode(models.TextChoices):
    PASSWORD = "password", pgettext_lazy("auth mode", "as the signed-in user (their own Superset identity)")
    SERVICE = "service", pgettext_lazy("auth mode", "as the shared service account")


class LoginProvider(models.TextChoices):
    DB = "db", pgettext_lazy("login provider", "Superset database")
    LDAP = "ldap", pgettext_lazy("login provider", "LDAP")


class Environment(models.Model):
    """A Superset environment the agent may act on.

    ``auth_mode`` says whose Superset identity a tool call uses there (DESIGN §15): ``password`` (the default)
    the requesting user's own (``SupersetIdentity``: tokens from agentchat's sign-in with ``login_provider``, or a
    personal API key); ``service`` the shared account, whose credentials are never stored here:
    ``credentials_env`` names the prefix of two process environment variables, ``<prefix>_USERNAME`` and
    ``<prefix>_PASSWORD`` (e.g. ``SUPERSET_SS_DEV``).
    """

    env_id = models.SlugField(
        max_length=64,
        unique=True,
        help_text=_("Stable id used in URLs and tool args."),
        verbose_name=_("environment id"),
    )
    name = models.CharField(max_length=128, verbose_name=_("name"))
    tier = models.CharField(max_length=16, choices=Tier.choices, verbose_name=_("tier"))
    superset_url = models.URLField(
        help_text=_("Base URL of the Superset instance, e.g. http://127.0.0.1:8088"), verbose_name=_("Superset URL")
    )
    credentials_env = models.CharField(
        max_length=64,
        validators=[RegexValidator(r"^[A-Z][A-Z0-9_]*$", _("Upper-case environment variable prefix."))],
        help_text=_("Prefix of the variables <PREFIX>_USERNAME and <PREFIX>_PASSWORD."),
        verbose_name=_("credentials variable prefix"),
    )
    auth_mode = models.CharField(
        max_length=16,
        choices=AuthMode.choices,
        default=AuthMode.PASSWORD,
        help_text=_(
            "Whom the agent acts as in this Superset. Service: every user acts as the shared account, so "
            "Superset's own permissions and audit no longer tell people apart."
        ),
        verbose_name=_("acts as"),
    )
    login_provider = models.CharField(
        max_length=16,
        choices=LoginProvider.choices,
        default=LoginProvider.DB,
        help_text=_("The provider of Superset's /api/v1/security/login that agentchat's sign-in uses."),
        verbose_name=_("Superset sign-in provider"),
    )
    is_active = models.BooleanField(default=True, verbose_name=_("active"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("environment")
        verbose_name_plural = _("environments")
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

    name = models.CharField(
        max_length=64, primary_key=True, help_text=_("The name the LLM calls; set by the code."), verbose_name=_("name")
    )
    category = models.CharField(
        max_length=16,
        choices=Category.choices,
        help_text=_("read: no state change; write/dangerous: change state and need a confirmation. Set by the code."),
        verbose_name=_("category"),
    )
    env_specific = models.BooleanField(
        default=True,
        help_text=_("Needs an environment id to run; not offered without envId. Set by the code."),
        verbose_name=_("needs an environment"),
    )
    description_ru = models.TextField(
        blank=True,
        help_text=_("Read by the LLM and shown in «что ты умеешь?»; empty = the code's text."),
        verbose_name=_("description (Russian)"),
    )
    description_en = models.TextField(
        blank=True,
        help_text=_("Read by the LLM and shown in “what can you do?”; empty = the code's text."),
        verbose_name=_("description (English)"),
    )
    enabled = models.BooleanField(
        default=True,
        help_text=_("Off: offered to nobody and refused when called; applies from the next message."),
        verbose_name=_("enabled"),
    )
    timeout_s = models.FloatField(
        null=True,
        blank=True,
        validators=[MinValueValidator(0.1), MaxValueValidator(3600)],
        help_text=_("Whole-call deadline in seconds; empty = TOOL_TIMEOUT_S (30)."),
        verbose_name=_("timeout, s"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("tool")
        verbose_name_plural = _("tools")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ToolPermission(models.Model):
    """Role (a Django ``Group``) → a tool it may use (DESIGN §4; seed AGTL-FR-001/005)."""

    group = models.ForeignKey(
        Group, on_delete=models.CASCADE, related_name="tool_permissions", verbose_name=_("role"), help_text=_("A role.")
    )
    tool = models.ForeignKey(Tool, on_delete=models.CASCADE, related_name="permissions", verbose_name=_("tool"))

    class Meta:
        ordering = ["group__name", "tool__name"]
        verbose_name = _("role permission")
        verbose_name_plural = _("role permissions")
        constraints = [models.UniqueConstraint(fields=["group", "tool"], name="uniq_tool_permission")]

    def __str__(self) -> str:
        return f"{self.group.name} → {self.tool_id}"


class ContextToolAffinity(models.Model):
    """Object type of the page the user came from → a tool offered there (seed AGCTX-FR-005)."""

    object_type = models.CharField(
        max_length=16,
        choices=ObjectType.choices,
        help_text=_("Pages of this object type offer the tool; without an object type every permitted tool is."),
        verbose_name=_("object type"),
    )
    tool = models.ForeignKey(Tool, on_delete=models.CASCADE, related_name="affinities", verbose_name=_("tool"))

    class Meta:
        ordering = ["object_type", "tool__name"]
        verbose_name = _("object-type affinity")
        verbose_name_plural = _("object-type affinities")
        constraints = [models.UniqueConstraint(fields=["object_type", "tool"], name="uniq_affinity")]

    def __str__(self) -> str:
        return f"{self.object_type} → {self.tool_id}"


class RiskRule(models.Model):
    """How risky a tool category is in an environment tier, and how the confirmation card looks (DESIGN §9).

    ``tier`` ``none`` is a call without an environment. ``typed_confirmation``: the card's confirm button enables
    only after the user types the environment id (prod + dangerous by default).
    """

    class RiskLevel(models.TextChoices):
        SAFE = "safe", pgettext_lazy("risk level", "safe")
        GUARDED = "guarded", pgettext_lazy("risk level", "guarded")
        DANGEROUS = "dangerous", pgettext_lazy("risk level", "dangerous")

    class Tone(models.TextChoices):
        SUCCESS = "success", pgettext_lazy("card tone", "success (green)")
        INFO = "info", pgettext_lazy("card tone", "info (blue)")
        WARNING = "warning", pgettext_lazy("card tone", "warning (yellow)")
        DESTRUCTIVE = "destructive", pgettext_lazy("card tone", "destructive (red)")

    TIER_NONE = "none"
    TIER_CHOICES = [*Tier.choices, (TIER_NONE, pgettext_lazy("tier", "no environment"))]

    category = models.CharField(max_length=16, choices=Category.choices, verbose_name=_("category"))
    tier = models.CharField(max_length=16, choices=TIER_CHOICES, verbose_name=_("tier"))
    risk_level = models.CharField(max_length=16, choices=RiskLevel.choices, verbose_name=_("risk level"))
    tone = models.CharField(max_length=16, choices=Tone.choices, verbose_name=_("tone"))
    requires_confirmation = models.BooleanField(default=True, verbose_name=_("requires confirmation"))
    typed_confirmation = models.BooleanField(default=False, verbose_name=_("typed confirmation"))
    prompt_ru = models.CharField(
        max_length=300,
        blank=True,
        help_text=_("Card text, e.g. «Изменения в dev-окружении»."),
        verbose_name=_("card text (Russian)"),
    )
    prompt_en = models.CharField(max_length=300, blank=True, verbose_name=_("card text (English)"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=_("updated at"))

    class Meta:
        verbose_name = _("risk rule")
        verbose_name_plural = _("risk rules")
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
        CONTEXT_REJECTED = "context_rejected", pgettext_lazy("audit event", "context rejected")
        CONTEXT_DISCARDED = "context_discarded", pgettext_lazy("audit event", "context discarded")
        TOOL_OFFERED = "tool_offered", pgettext_lazy("audit event", "tool offered")
        TOOL_CALL = "tool_call", pgettext_lazy("audit event", "tool call")
        PERMISSION_DENIED = "permission_denied", pgettext_lazy("audit event", "permission denied")
        CONFIRM_REQUIRED = "confirm_required", pgettext_lazy("audit event", "confirm required")
        CONFIRMED = "confirmed", pgettext_lazy("audit event", "confirmed")
        DENIED = "denied", pgettext_lazy("audit event", "denied")
        CANCELLED = "cancelled", pgettext_lazy("audit event", "cancelled")
        EXPIRED = "expired", pgettext_lazy("audit event", "expired")
        TOOL_RESULT = "tool_result", pgettext_lazy("audit event", "tool result")
        TOOL_ERROR = "tool_error", pgettext_lazy("audit event", "tool error")
        TIMEOUT = "timeout", pgettext_lazy("audit event", "timeout")
        RETRY = "retry", pgettext_lazy("audit event", "retry")
        SUMMARISED = "summarised", pgettext_lazy("audit event", "summarised")
        SESSION_EXPIRED = "session_expired", pgettext_lazy("audit event", "session expired")
        TURN_BUSY = "turn_busy", pgettext_lazy("audit event", "refused: server busy")
        USER_LIMITED = "user_limited", pgettext_lazy("audit event", "refused: per-user limit")
        FORBIDDEN_REFERENCE = "forbidden_reference", pgettext_lazy("audit event", "forbidden reference")

    created_at = models.DateTimeField(auto_now_add=True, db_index=True, verbose_name=_("created at"))
    event_type = models.CharField(max_length=32, choices=EventType.choices, db_index=True, verbose_name=_("event type"))
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        verbose_name=_("actor"),
    )
    conversation_id = models.BigIntegerField(null=True, blank=True, db_index=True, verbose_name=_("conversation id"))
    tool = models.CharField(max_length=64, blank=True, db_index=True, verbose_name=_("tool"))
    env_id = models.CharField(max_length=64, blank=True, verbose_name=_("environment id"))
    args = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("arguments"))
    raw_chars = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("raw size, characters"))
    sent_chars = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("size sent to the LLM, characters"))
    duration_ms = models.PositiveIntegerField(null=True, blank=True, verbose_name=_("duration, ms"))
    outcome = models.CharField(max_length=32, blank=True, verbose_name=_("outcome"))
    extra_data = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder, verbose_name=_("details"))

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        verbose_name = _("audit event")
        verbose_name_plural = _("audit events")
        ordering = ["-created_at", "-id"]
        # The audit report filters by type or environment within a time window (policies.reports).
        indexes = [
            models.Index(fields=["event_type", "created_at"], name="audit_type_time_idx"),
            models.Index(fields=["env_id", "created_at"], name="audit_env_time_idx"),
        ]

    def __str__(self) -> str:
        """«06.12.2026 07:17 MSK · вызов инструмента · get_health_summary»: the time in ``TIME_ZONE`` as the admin's
        list shows it (issue 30: the row's page was titled in UTC), the event type by its label."""
        when = date_format(localtime(self.created_at), "DATETIME_FORMAT") if self.created_at else "—"
        return " · ".join(part for part in (when, self.get_event_type_display(), self.tool) if part)

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


class RoleMapping(models.Model):
    """Superset role → agentchat role (a Django group), applied at each password sign-in (DESIGN §15).

    At sign-in the user is put in every group mapped from one of their Superset roles (in any environment they
    signed in to) and taken out of every other mapped group; groups no mapping names stay as an admin set them.
    """

    superset_role = models.CharField(
        max_length=150, help_text=_("Role name as Superset has it, e.g. Gamma."), verbose_name=_("Superset role")
    )
    group = models.ForeignKey(Group, on_delete=models.CASCADE, related_name="+", verbose_name=_("agentchat role"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=_("created at"))

    class Meta:
        verbose_name = _("role mapping")
        verbose_name_plural = _("role mappings")
        ordering = ["superset_role", "group__name"]
        constraints = [models.UniqueConstraint(fields=["superset_role", "group"], name="role_mapping_unique")]

    def __str__(self) -> str:
        return f"{self.superset_role} → {self.group}"
