"""Server-rendered confirmation, denied, cancelled and expired cards (DESIGN §9; templates in templates/chat/)."""

from collections import Counter
from typing import Any

from django.template.loader import render_to_string
from django.utils.functional import Promise
from django.utils.translation import gettext, ngettext, ngettext_lazy
from django.utils.translation import gettext_lazy as _

from agentchat.guard.not_offered import not_offered_text
from agentchat.language import in_language
from agentchat.models import PendingConfirmation
from agentchat.runtime.titles import tool_title

# Impact lines of the card: what happens to each object (DESIGN §9).
IMPACT_ACTIONS: dict[str, Promise] = {
    "create": _("will be created"),
    "overwrite": _("will be overwritten"),
    "conflict": _("will be replaced (same slug)"),
    "keep": _("kept as is"),
    "exists": _("already exists"),
    "add": _("will be added"),
    "modify": _("will be modified"),
    "delete": _("will be deleted"),
    "backup": _("goes into the backup"),
    "restore": _("will be restored from the copy"),
}
IMPACT_TYPES: dict[str, Promise] = {
    "dashboard": _("dashboard"),
    "chart": _("chart"),
    "dataset": _("dataset"),
    "database": _("database"),
    "file": _("file"),
    "branch": _("branch"),
    "validation_run": _("validation run"),
}
# «21 дашборд, 3 графика» above the list: the counts per object type (the list shows at most SHOWN_OBJECTS).
IMPACT_COUNTS: dict[str, Promise] = {
    "dashboard": ngettext_lazy("%(count)d dashboard", "%(count)d dashboards", "count"),
    "chart": ngettext_lazy("%(count)d chart", "%(count)d charts", "count"),
    "dataset": ngettext_lazy("%(count)d dataset", "%(count)d datasets", "count"),
    "database": ngettext_lazy("%(count)d database", "%(count)d databases", "count"),
    "file": ngettext_lazy("%(count)d file", "%(count)d files", "count"),
    "branch": ngettext_lazy("%(count)d branch", "%(count)d branches", "count"),
    "validation_run": ngettext_lazy("%(count)d validation run", "%(count)d validation runs", "count"),
}
SHOWN_OBJECTS = 20
SHOWN_CHANGES = 4  # changed fields a card lists open; the rest fold under «ещё N изменений»


def _label(labels: dict[str, Promise], key: Any) -> Any:
    """The label of ``key`` in the active language; an unknown key is shown as it is."""
    return str(labels[key]) if key in labels else key


def impact_counts_text(objects: list[dict[str, Any]]) -> str:
    """«Объекты: 21 дашборд, 3 графика» — how many objects of each type the impact names, in order of first
    appearance (a type without a counted noun: «4 × widget»); ``""`` without objects."""
    counts = Counter(str(o.get("type")) for o in objects)
    parts = [
        IMPACT_COUNTS[kind] % {"count": n} if kind in IMPACT_COUNTS else f"{n} × {kind}" for kind, n in counts.items()
    ]
    return gettext("Objects: %(counts)s") % {"counts": ", ".join(parts)} if parts else ""


def impact_more_text(hidden: int) -> str:
    """«… и ещё 5 объектов»: the objects the card's list leaves out (``""`` when none is)."""
    if hidden <= 0:
        return ""
    return ngettext("… and %(count)d more object", "… and %(count)d more objects", hidden) % {"count": hidden}


def _labelled_impact(decision: dict[str, Any]) -> dict[str, Any]:
    impact = decision.get("impact")
    if not isinstance(impact, dict):
        return decision
    objects = []
    for obj in impact.get("objects") or []:
        if not isinstance(obj, dict):
            continue
        action, kind = obj.get("action"), obj.get("type")
        objects.append(
            {**obj, "action_label": _label(IMPACT_ACTIONS, action), "type_label": _label(IMPACT_TYPES, kind)}
        )
    changes = [str(line) for line in impact.get("changes") or []]
    hidden = changes[SHOWN_CHANGES:]
    labelled = {
        **impact,
        "objects": objects[:SHOWN_OBJECTS],
        "counts_text": impact_counts_text(objects),
        "more_text": impact_more_text(len(objects) - SHOWN_OBJECTS),
        "changes_shown": changes[:SHOWN_CHANGES],
        "changes_hidden": hidden,
        "changes_more_text": ngettext("%(count)d more change", "%(count)d more changes", len(hidden))
        % {"count": len(hidden)},
    }
    return {**decision, "impact": labelled}


# Argument names of the tools as a card shows them (the name itself is the hover title, for engineers).
ARG_LABELS: dict[str, str | Promise] = {
    "env_id": _("environment"),
    "source_env_id": _("from environment"),
    "target_env_id": _("to environment"),
    "dashboard_id": _("dashboard (id)"),
    "dashboard_ids": _("dashboards (ids)"),
    "dashboard": _("dashboard"),
    "dataset_id": _("dataset (id)"),
    "database_id": _("database (id)"),
    "database_name": _("database"),
    "database": _("database"),
    "schema_name": _("schema"),
    "table_name": _("table"),
    "virtual_name": _("virtual dataset name"),
    "sql": "SQL",
    "row_limit": _("row limit"),
    "name": _("name"),
    "base": _("from branch"),
    "branch": _("branch"),
    "message": _("message"),
    "language": _("language"),
    "limit": _("limit"),
    "migration_id": _("migration (id)"),
    "backup_id": _("copy (number)"),
    "remove_detached": _("delete the charts left on no dashboard"),
    "other_env_id": _("compared with environment"),
    "object_type": _("object type"),
    "object_id": _("object (id)"),
    "task_id": _("task (id)"),
    "query": _("search text"),
    "owner": _("owner"),
    "dialect": _("SQL dialect"),
    "published": _("published"),
    "certified": _("certified"),
}


def _arg_value(value: Any) -> Any:
    """A card's argument value as people read it: a list joined, a boolean as «да»/«нет»."""
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    return ", ".join(map(str, value)) if isinstance(value, list) else value


def _labelled_args(args: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """``[(name, label, value)]`` in name order (a re-emitted card is byte-identical)."""
    return [(k, str(ARG_LABELS[k]) if k in ARG_LABELS else k, _arg_value(v)) for k, v in sorted(args.items())]


def card_confirm(
    *, confirmation_id: int, tool: str, args: dict[str, Any], decision: dict[str, Any], language: str
) -> str:
    """Render the confirm card (write or «чтение данных» read card) of a pending confirmation, in ``language``
    (the card's stored language, so a re-emitted card is the same)."""
    with in_language(language):
        return render_to_string(
            "chat/card_confirm.html",
            {
                "confirmation_id": confirmation_id,
                "tool": tool,
                "args": _labelled_args(args),
                "tool_title": tool_title(tool),
                "decision": _labelled_impact(decision),
            },
        )


def card_denied(
    *,
    tool: str,
    roles: list[str],
    language: str,
    reason: str,
    card_id: int | None = None,
    detail: dict[str, Any] | None = None,
) -> str:
    """Render the refusal card: the reason and only a dismiss button; the required roles only where the role is
    the reason.

    «Недостаточно прав» with the roles that may use the tool for ``role`` (DESIGN §9); «Недоступно на этой
    странице» with the real reason for ``not_offered`` (``guard.not_offered``: the roles are no reason there,
    second review of issue 16).

    Args:
        reason: ``unknown_tool``, ``disabled``, ``role`` or ``not_offered`` (``toolset.tool_call_refusal``).
        card_id: the refusal's ``PendingConfirmation`` id, sent back by the dismiss button.
        detail: for ``not_offered``, ``toolset.not_offered_detail`` (None: the general reason).
    """
    with in_language(language):
        explanation = not_offered_text(tool, detail) if reason == "not_offered" else ""
        return render_to_string(
            "chat/card_denied.html",
            {
                "tool": tool,
                "title": tool_title(tool),
                "roles": roles,
                "reason": reason,
                "card_id": card_id,
                "explanation": explanation,
            },
        )


def _decided_details(row: PendingConfirmation | None) -> dict[str, Any]:
    """The template context that keeps what was decided on a decided card (issue 28 item 6): the environment, the
    arguments, the impact with its diff (``d``, as the live card showed it), the options ticked, who decided and
    when; empty without a row or a decision with an operation (a refusal has none)."""
    if row is None or not isinstance(row.decision, dict) or "operation" not in row.decision:
        return {}
    d = _labelled_impact(row.decision)
    labels = {o.get("name"): o.get("label") for o in d.get("options") or [] if isinstance(o, dict)}
    chosen = [str(labels.get(name) or name) for name in d.get("chosen") or []]
    user = row.user
    return {
        "d": {**d, "chosen_labels": chosen},
        "args": _labelled_args(row.args),
        "tool_title": tool_title(row.tool),
        "decided_by": (user.get_full_name() or user.get_username()) if user else "",
        "decided_at": row.decided_at,
    }


def card_cancelled(*, confirmation_id: int, tool: str, language: str, row: PendingConfirmation | None = None) -> str:
    """Render «Операция отменена»; with the denied ``row``, also what was declined, by whom and when (folded)."""
    with in_language(language):
        context = {"confirmation_id": confirmation_id, "tool": tool, "title": tool_title(tool)}
        return render_to_string("chat/card_cancelled.html", context | _decided_details(row))


def card_expired(*, confirmation_id: int, tool: str, language: str) -> str:
    """Render the card that replaces a confirmation expired by a newer message."""
    with in_language(language):
        return render_to_string(
            "chat/card_expired.html", {"confirmation_id": confirmation_id, "tool": tool, "title": tool_title(tool)}
        )


def card_state(
    *, confirmation_id: int, tool: str, status: str, language: str, row: PendingConfirmation | None = None
) -> str:
    """Render a decided card: approved (running), executed, failed, unknown status or expired; with its ``row``,
    also what was confirmed — environment, objects, the diff summary, options, who and when — with the details
    folded (issue 28 item 6)."""
    if status == "expired":
        return card_expired(confirmation_id=confirmation_id, tool=tool, language=language)
    with in_language(language):
        context = {"confirmation_id": confirmation_id, "tool": tool, "title": tool_title(tool), "status": status}
        return render_to_string("chat/card_state.html", context | _decided_details(row))


def card_decided(row: PendingConfirmation) -> str:
    """Render a decided ``PendingConfirmation`` as the page last showed it (live and for the conversation
    history): ``refused`` → «Недостаточно прав», ``denied`` → «Операция отменена», others → ``card_state``, each
    keeping what was decided; ``""`` for a pending card (``resume`` sends it as a live card)."""
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
            detail=decision.get("not_offered"),
        )
    if row.status == "denied":
        return card_cancelled(confirmation_id=row.pk, tool=row.tool, language=row.language, row=row)
    return card_state(confirmation_id=row.pk, tool=row.tool, status=row.status, language=row.language, row=row)
