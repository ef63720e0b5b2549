"""Audit reports (DESIGN §4 "manage.py audit reports"; seed SC-003, SC-004): figures computed from ``AuditEvent``.

Every figure is aggregated in SQL (``COUNT``/``AVG`` with filters, ``GROUP BY``; percentiles with PostgreSQL's
``percentile_cont``, or two ``ORDER BY … LIMIT 1 OFFSET k`` look-ups per percentile on other databases), so a log of
100,000 rows reports in well under a second. Only the grouped rows (a few dozen) reach Python.

What the agent writes, and so what is counted (``agentchat.turn.recording.tool_result_record``,
``agentchat.guard.confirmations``, ``agentchat.chat.consumer``):

- a tool call's own row: ``tool_result`` (outcome ``ok``), ``timeout`` (outcome ``timeout`` for reads,
  ``status_unknown`` for writes), ``session_expired`` or ``tool_error`` (outcome = the error code:
  ``upstream_unavailable``, ``status_unknown``, ``rate_limited``, ``invalid_args``, ``permission_denied``, …), with
  ``duration_ms``, ``raw_chars``/``sent_chars`` and ``extra_data`` ``{"category", "retries", …}``;
- ``retry`` (one per retry) and ``summarised`` (raw/sent characters of a summarised result) beside it;
- ``tool_call`` when a call starts; ``permission_denied`` (``extra_data.actor_roles`` since the ops issue, else the
  actor's roles now), ``confirm_required``, ``confirmed``, ``denied``, ``cancelled``, ``expired``;
- ``session_expired`` with no tool (a dead Django session on the socket), ``context_rejected``, ``tool_offered``.
"""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import Group
from django.db import connection
from django.db.models import Aggregate, Avg, Count, FloatField, Q, QuerySet
from django.db.models.expressions import Combinable

from policies.models import AuditEvent

Event = AuditEvent.EventType
# A tool call's own row: exactly one per executed (or refused-at-argument-check) call.
CALL_RESULT_EVENTS = (Event.TOOL_RESULT, Event.TOOL_ERROR, Event.TIMEOUT, Event.SESSION_EXPIRED)
# outcome code of a failed call → error class of the report (DESIGN §6 codes; anything else is ``other``).
ERROR_CLASSES = {
    "timeout": "timeout",
    "upstream_unavailable": "transient",
    "status_unknown": "status_unknown",
    "session_expired": "session_expired",
    "rate_limited": "rate_limited",
}
ERROR_CLASS_ORDER = ("timeout", "transient", "status_unknown", "session_expired", "rate_limited", "other")
NO_ROLE = "(no role)"
NO_ACTOR = "(deleted user)"


class PercentileCont(Aggregate):
    """PostgreSQL ``percentile_cont(p) WITHIN GROUP (ORDER BY expr)``: the interpolated ``p`` quantile.

    Args:
        expression: the ordered column.
        fraction: the quantile, 0 ≤ p ≤ 1 (a constant of the code, rendered into the SQL).
    """

    function = "PERCENTILE_CONT"
    template = "%(function)s(%(fraction)s) WITHIN GROUP (ORDER BY %(expressions)s)"
    output_field = FloatField()

    def __init__(self, expression: str | Combinable, fraction: float, **extra: Any):
        if not 0 <= fraction <= 1:
            raise ValueError(f"fraction must be within [0, 1], got {fraction}")
        super().__init__(expression, fraction=repr(float(fraction)), **extra)


@dataclass(frozen=True)
class ReportFilter:
    """Which rows a report covers; None/'' means no restriction.

    Attributes:
        since / until: aware datetimes, ``since ≤ created_at < until``.
        username: the actor's username.
        tool: the tool name.
        env_id: the environment id.
    """

    since: datetime | None = None
    until: datetime | None = None
    username: str = ""
    tool: str = ""
    env_id: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
            "user": self.username or None,
            "tool": self.tool or None,
            "env": self.env_id or None,
        }


def audit_events_filtered(*, where: ReportFilter) -> QuerySet:
    """Return the audit rows ``where`` selects, unordered (for aggregation)."""
    rows = AuditEvent.objects.order_by()
    if where.since:
        rows = rows.filter(created_at__gte=where.since)
    if where.until:
        rows = rows.filter(created_at__lt=where.until)
    if where.username:
        rows = rows.filter(actor__username=where.username)
    if where.tool:
        rows = rows.filter(tool=where.tool)
    if where.env_id:
        rows = rows.filter(env_id=where.env_id)
    return rows


def audit_report(*, where: ReportFilter) -> dict[str, Any]:
    """Compute the audit report of the rows ``where`` selects.

    Returns:
        ``{"filters", "events", "permission_denials", "confirmations", "tool_errors", "reads", "output_chars",
        "duration_ms"}``; see the ``_events`` … ``_durations`` helpers for each section's keys. Counts are ints,
        averages and percentiles floats (None when there is nothing to average), durations in milliseconds, sizes
        in characters.
    """
    rows = audit_events_filtered(where=where)
    calls = rows.filter(event_type__in=CALL_RESULT_EVENTS).exclude(tool="")
    return {
        "filters": where.as_dict(),
        "events": _events(rows),
        "permission_denials": _denials(rows.filter(event_type=Event.PERMISSION_DENIED)),
        "confirmations": _confirmations(rows),
        "tool_errors": _tool_errors(calls.exclude(outcome="ok")),
        "reads": _reads(calls.filter(extra_data__category="read"), rows),
        "output_chars": _output_chars(rows),
        "duration_ms": _durations(calls.filter(duration_ms__isnull=False)),
    }


def _events(rows: QuerySet) -> dict[str, Any]:
    """``{"total": n, "by_type": {event_type: n}}``, every known type listed (0 when absent)."""
    counted = dict(rows.values_list("event_type").annotate(n=Count("id")).order_by())
    by_type = {value: counted.pop(value, 0) for value in Event.values}
    by_type.update(counted)  # types written by newer code than this report
    return {"total": sum(by_type.values()), "by_type": by_type}


def _denials(denials: QuerySet) -> dict[str, Any]:
    """``{"total": n, "by_role_tool": [{"role", "tool", "count"}]}``, largest first.

    The role is the actor's role set recorded in the row (``extra_data.actor_roles``) or, for older rows, the
    actor's roles now; several roles are joined with ``+`` so that each denial is counted once.
    """
    grouped = list(denials.values("actor_id", "tool", "extra_data__actor_roles").annotate(n=Count("id")).order_by())
    missing = {g["actor_id"] for g in grouped if g["extra_data__actor_roles"] is None and g["actor_id"] is not None}
    current: dict[int, list[str]] = {}
    for user_id, name in Group.objects.filter(user__in=missing).values_list("user__id", "name"):
        current.setdefault(user_id, []).append(name)
    counts: dict[tuple[str, str], int] = {}
    for g in grouped:
        recorded = g["extra_data__actor_roles"]
        if isinstance(recorded, list):
            role = "+".join(sorted(map(str, recorded))) or NO_ROLE
        elif g["actor_id"] is None:
            role = NO_ACTOR
        else:
            role = "+".join(sorted(current.get(g["actor_id"], []))) or NO_ROLE
        key = (role, g["tool"] or "")
        counts[key] = counts.get(key, 0) + g["n"]
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return {
        "total": sum(counts.values()),
        "by_role_tool": [{"role": role, "tool": tool, "count": n} for (role, tool), n in ordered],
    }


def _confirmations(rows: QuerySet) -> dict[str, int]:
    """``{"required", "approved", "denied", "expired", "unknown"}``: cards shown and how they ended.

    ``unknown`` counts approved calls whose result is ``status_unknown`` (a ``tool_error`` or ``timeout`` row).
    """
    return rows.aggregate(
        required=Count("id", filter=Q(event_type=Event.CONFIRM_REQUIRED)),
        approved=Count("id", filter=Q(event_type=Event.CONFIRMED)),
        denied=Count("id", filter=Q(event_type=Event.DENIED)),
        expired=Count("id", filter=Q(event_type=Event.EXPIRED)),
        unknown=Count("id", filter=Q(event_type__in=[Event.TOOL_ERROR, Event.TIMEOUT], outcome="status_unknown")),
    )


def _tool_errors(failed: QuerySet) -> dict[str, Any]:
    """``{"total": n, "by_class": {class: n}, "other_codes": {outcome: n}}`` of failed tool calls."""
    by_class = dict.fromkeys(ERROR_CLASS_ORDER, 0)
    other: dict[str, int] = {}
    for outcome, n in failed.values_list("outcome").annotate(n=Count("id")).order_by():
        kind = ERROR_CLASSES.get(outcome, "other")
        by_class[kind] += n
        if kind == "other":
            other[outcome or "(none)"] = n
    return {"total": sum(by_class.values()), "by_class": by_class, "other_codes": dict(sorted(other.items()))}


def _reads(reads: QuerySet, rows: QuerySet) -> dict[str, Any]:
    """SC-003: transient failures of read calls and what the one retry did.

    Returns:
        ``{"calls", "transient_failures", "transient_failure_rate", "retried", "retried_succeeded",
        "retried_failed", "retry_rows"}``: read calls (their own rows); of them failed as ``upstream_unavailable``
        (after the retry, if any) and that share; calls that retried, and of those how many then succeeded or
        still failed; ``retry`` rows (one per retry; only reads retry).
    """
    retried = Q(extra_data__retries__gt=0)
    figures = reads.aggregate(
        calls=Count("id"),
        transient_failures=Count("id", filter=Q(outcome="upstream_unavailable")),
        retried=Count("id", filter=retried),
        retried_succeeded=Count("id", filter=retried & Q(outcome="ok")),
    )
    figures["retried_failed"] = figures["retried"] - figures["retried_succeeded"]
    figures["transient_failure_rate"] = _ratio(figures["transient_failures"], figures["calls"])
    figures["retry_rows"] = rows.filter(event_type=Event.RETRY).count()  # only reads retry (DESIGN §10)
    return figures


def _output_chars(rows: QuerySet) -> dict[str, Any]:
    """SC-004: average characters of successful tool output, raw (full JSON) vs sent to the LLM.

    Returns:
        ``{"results", "avg_raw_chars", "avg_sent_chars", "sent_share", "summarised",
        "summarised_avg_raw_chars", "summarised_avg_sent_chars"}`` over ``tool_result`` rows and, separately,
        over the ``summarised`` rows (results above ``TOOL_RESPONSE_MAX_CHARS``).
    """
    results = rows.filter(event_type=Event.TOOL_RESULT, raw_chars__isnull=False).aggregate(
        results=Count("id"), avg_raw_chars=Avg("raw_chars"), avg_sent_chars=Avg("sent_chars")
    )
    summarised = rows.filter(event_type=Event.SUMMARISED).aggregate(
        summarised=Count("id"), summarised_avg_raw_chars=Avg("raw_chars"), summarised_avg_sent_chars=Avg("sent_chars")
    )
    figures = {k: _round(v) for k, v in {**results, **summarised}.items()}
    figures["sent_share"] = _ratio(results["avg_sent_chars"], results["avg_raw_chars"])
    return figures


def _durations(timed: QuerySet) -> dict[str, Any]:
    """p50/p95 of ``duration_ms`` over tool calls' own rows, overall and per tool (busiest first).

    Returns:
        ``{"calls", "p50", "p95", "by_tool": [{"tool", "calls", "p50", "p95"}]}``; percentiles are
        ``percentile_cont`` (linear interpolation between neighbouring rows), None without rows.
    """
    if connection.vendor == "postgresql":
        overall = timed.aggregate(
            calls=Count("id"), p50=PercentileCont("duration_ms", 0.5), p95=PercentileCont("duration_ms", 0.95)
        )
        per_tool = list(
            timed.values("tool")
            .annotate(
                calls=Count("id"), p50=PercentileCont("duration_ms", 0.5), p95=PercentileCont("duration_ms", 0.95)
            )
            .order_by()
        )
    else:
        overall = _percentiles_by_offset(timed)
        per_tool = [
            {"tool": tool, **_percentiles_by_offset(timed.filter(tool=tool))}
            for tool in timed.values_list("tool", flat=True).distinct().order_by()
        ]
    per_tool.sort(key=lambda row: (-row["calls"], row["tool"]))
    rounded = [{k: _round(v) for k, v in row.items()} for row in per_tool]
    return {**{k: _round(v) for k, v in overall.items()}, "by_tool": rounded}


def _percentiles_by_offset(timed: QuerySet) -> dict[str, Any]:
    """``{"calls", "p50", "p95"}`` without ``percentile_cont``: the same interpolation from the rows at offsets
    ⌊p·(n−1)⌋ and ⌈p·(n−1)⌉ of the ordered column (two indexed look-ups per percentile)."""
    n = timed.count()
    figures: dict[str, Any] = {"calls": n}
    ordered = timed.order_by("duration_ms").values_list("duration_ms", flat=True)
    for name, fraction in (("p50", 0.5), ("p95", 0.95)):
        if n == 0:
            figures[name] = None
            continue
        position = fraction * (n - 1)
        low = int(position)
        values = list(ordered[low : low + 2])
        high = values[1] if len(values) > 1 else values[0]
        figures[name] = values[0] + (high - values[0]) * (position - low)
    return figures


def _ratio(part: float, whole: float | None) -> float | None:
    return round(part / whole, 4) if whole else None


def _round(value: Any) -> Any:
    return round(value, 1) if isinstance(value, float) else value


def report_rows(report: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """Flatten a report into ``(section, name, value)`` rows (the table and CSV formats).

    Nested keys are joined with ``.``; list entries are named by their identifying fields (``role/tool``,
    ``tool``), e.g. ``("permission_denials", "analyst/deploy_dashboard", 3)``, ``("duration_ms",
    "get_health_summary.p95", 812.0)``.
    """
    out: list[tuple[str, str, Any]] = []
    for section, body in report.items():
        for name, value in _flatten(body, ""):
            out.append((section, name, value))
    return out


def _flatten(value: Any, prefix: str):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _flatten(inner, f"{prefix}.{key}" if prefix else str(key))
    elif isinstance(value, list):
        for entry in value:
            label = "/".join(str(entry[k]) for k in ("role", "tool") if k in entry)
            rest = {k: v for k, v in entry.items() if k not in ("role", "tool")}
            if list(rest) == ["count"]:
                yield label, rest["count"]
            else:
                yield from _flatten(rest, label)
    else:
        yield prefix, value
