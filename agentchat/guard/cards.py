"""Server-rendered confirmation, denied, cancelled and expired cards (DESIGN §9; templates in templates/chat/)."""

from typing import Any

from django.template.loader import render_to_string

from agentchat.models import PendingConfirmation
from agentchat.runtime.titles import tool_title

# Impact lines of the card: what happens to each object, in the user's language (DESIGN §9).
IMPACT_ACTIONS = {
    "create": ("будет создан", "will be created"),
    "overwrite": ("будет перезаписан", "will be overwritten"),
    "conflict": ("будет заменён (тот же slug)", "will be replaced (same slug)"),
    "keep": ("без изменений", "kept as is"),
    "exists": ("уже существует", "already exists"),
    "add": ("добавится", "will be added"),
    "modify": ("изменится", "will be modified"),
    "delete": ("удалится", "will be deleted"),
    "backup": ("попадёт в резервную копию", "goes into the backup"),
}
IMPACT_TYPES = {
    "dashboard": ("дашборд", "dashboard"),
    "chart": ("график", "chart"),
    "dataset": ("датасет", "dataset"),
    "database": ("база данных", "database"),
    "file": ("файл", "file"),
    "branch": ("ветка", "branch"),
    "validation_run": ("проверка", "validation run"),
}


def _label(labels: dict[str, tuple[str, str]], key: Any, index: int) -> Any:
    """The label of ``key`` in the language ``index`` (0 ru, 1 en); an unknown key is shown as it is."""
    return labels[key][index] if key in labels else key


def _labelled_impact(decision: dict[str, Any], language: str) -> dict[str, Any]:
    impact = decision.get("impact")
    if not isinstance(impact, dict) or not impact.get("objects"):
        return decision
    index = 1 if language == "en" else 0
    objects = []
    for obj in impact["objects"]:
        if not isinstance(obj, dict):
            continue
        action, kind = obj.get("action"), obj.get("type")
        objects.append(
            {
                **obj,
                "action_label": _label(IMPACT_ACTIONS, action, index),
                "type_label": _label(IMPACT_TYPES, kind, index),
            }
        )
    return {**decision, "impact": {**impact, "objects": objects}}


# Argument names of the tools as a card shows them (the name itself is the hover title, for engineers).
ARG_LABELS: dict[str, tuple[str, str]] = {
    "env_id": ("окружение", "environment"),
    "source_env_id": ("из окружения", "from environment"),
    "target_env_id": ("в окружение", "to environment"),
    "dashboard_id": ("дашборд (id)", "dashboard (id)"),
    "dashboard_ids": ("дашборды (id)", "dashboards (ids)"),
    "dashboard": ("дашборд", "dashboard"),
    "dataset_id": ("датасет (id)", "dataset (id)"),
    "database_id": ("база данных (id)", "database (id)"),
    "database_name": ("база данных", "database"),
    "database": ("база данных", "database"),
    "schema_name": ("схема", "schema"),
    "table_name": ("таблица", "table"),
    "virtual_name": ("имя виртуального датасета", "virtual dataset name"),
    "sql": ("SQL", "SQL"),
    "row_limit": ("предел строк", "row limit"),
    "name": ("название", "name"),
    "base": ("от ветки", "from branch"),
    "branch": ("ветка", "branch"),
    "message": ("сообщение", "message"),
    "language": ("язык", "language"),
    "limit": ("предел", "limit"),
}


def _labelled_args(args: dict[str, Any], language: str) -> list[tuple[str, str, Any]]:
    """``[(name, label, value)]`` in name order (a re-emitted card is byte-identical)."""
    index = 1 if language == "en" else 0
    return [
        (k, ARG_LABELS[k][index] if k in ARG_LABELS else k, ", ".join(map(str, v)) if isinstance(v, list) else v)
        for k, v in sorted(args.items())
    ]


def card_confirm(
    *, confirmation_id: int, tool: str, args: dict[str, Any], decision: dict[str, Any], language: str
) -> str:
    """Render the confirm card (write or «чтение данных» read card) of a pending confirmation."""
    return render_to_string(
        "chat/card_confirm.html",
        {
            "confirmation_id": confirmation_id,
            "tool": tool,
            "args": _labelled_args(args, language),
            "tool_title": tool_title(tool, language),
            "decision": _labelled_impact(decision, language),
            "en": language == "en",
        },
    )


def card_denied(*, tool: str, roles: list[str], language: str, reason: str, card_id: int | None = None) -> str:
    """Render «Недостаточно прав» with the reason, the required roles and only a dismiss button.

    Args:
        reason: ``unknown_tool``, ``disabled``, ``role`` or ``not_offered`` (``toolset.tool_call_refusal``).
        card_id: the refusal's ``PendingConfirmation`` id, sent back by the dismiss button.
    """
    return render_to_string(
        "chat/card_denied.html",
        {
            "tool": tool,
            "title": tool_title(tool, language),
            "roles": roles,
            "language": language,
            "reason": reason,
            "card_id": card_id,
        },
    )


def card_cancelled(*, confirmation_id: int, tool: str, language: str) -> str:
    """Render «Операция отменена»."""
    return render_to_string(
        "chat/card_cancelled.html",
        {"confirmation_id": confirmation_id, "tool": tool, "title": tool_title(tool, language), "en": language == "en"},
    )


def card_expired(*, confirmation_id: int, tool: str, language: str) -> str:
    """Render the card that replaces a confirmation expired by a newer message."""
    return render_to_string(
        "chat/card_expired.html",
        {"confirmation_id": confirmation_id, "tool": tool, "title": tool_title(tool, language), "en": language == "en"},
    )


def card_state(*, confirmation_id: int, tool: str, status: str, language: str) -> str:
    """Render a decided card: approved (running), executed, failed, unknown status or expired."""
    if status == "expired":
        return card_expired(confirmation_id=confirmation_id, tool=tool, language=language)
    return render_to_string(
        "chat/card_state.html",
        {
            "confirmation_id": confirmation_id,
            "tool": tool,
            "title": tool_title(tool, language),
            "status": status,
            "en": language == "en",
        },
    )


def card_decided(row: PendingConfirmation) -> str:
    """Render a decided ``PendingConfirmation`` as the page last showed it (for the conversation history):
    ``refused`` → «Недостаточно прав», ``denied`` → «Операция отменена», others → ``card_state``; ``""`` for a
    pending card (``resume`` sends it as a live card)."""
    if row.status == "pending":
        return ""
    if row.status == "refused":
        decision = row.decision or {}
        return card_denied(
            tool=row.tool,
            roles=list(decision.get("required_roles") or []),
            language=row.language,
            reason=str(decision.get("reason") or ""),
            card_id=row.pk,
        )
    if row.status == "denied":
        return card_cancelled(confirmation_id=row.pk, tool=row.tool, language=row.language)
    return card_state(confirmation_id=row.pk, tool=row.tool, status=row.status, language=row.language)
