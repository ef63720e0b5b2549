"""``manage.py audit_report`` (DESIGN §4; seed SC-003, SC-004): each section's figures from seeded audit rows, in
every format, with every filter; both percentile paths (PostgreSQL ``percentile_cont`` and the offset fallback)."""

import csv
import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from policies.management.commands.audit_report import parse_moment
from policies.models import AuditEvent
from policies.reports import CALL_RESULT_EVENTS, ReportFilter, _percentiles_by_offset, audit_events_filtered
from policies.services import audit_record
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
Event = AuditEvent.EventType


def call(user, tool, event, outcome, *, ms, category="read", retries=0, raw=None, sent=None, env="ss-dev"):
    """A tool call's own row, as ``agentchat.turn.recording.tool_result_record`` writes it."""
    return audit_record(
        event_type=event,
        actor=user,
        tool=tool,
        env_id=env,
        duration_ms=ms,
        raw_chars=raw,
        sent_chars=sent,
        outcome=outcome,
        extra={"category": category, "retries": retries, "call_id": f"c{ms}"},
    )


@pytest.fixture
def seeded(policy_defaults):
    """A small log with a known answer for every section (the figures asserted below are derived from it)."""
    analyst, engineer = make_user("analyst"), make_user("engineer")
    # permission denials: roles recorded in the row, or the actor's roles now, or a joined role set
    for _ in range(2):
        audit_record(
            event_type=Event.PERMISSION_DENIED,
            actor=analyst,
            tool="deploy_dashboard",
            outcome="denied",
            extra={"actor_roles": ["analyst"]},
        )
    audit_record(event_type=Event.PERMISSION_DENIED, actor=engineer, tool="execute_migration", outcome="denied")
    audit_record(
        event_type=Event.PERMISSION_DENIED,
        actor=engineer,
        tool="run_backup",
        outcome="denied",
        extra={"actor_roles": ["engineer", "admin"]},
    )
    # confirmations: 4 cards; approved 2, denied 1, expired 1; both approved calls end status_unknown
    for _ in range(4):
        audit_record(event_type=Event.CONFIRM_REQUIRED, actor=engineer, tool="create_branch", outcome="pending")
    for event, outcome in [(Event.CONFIRMED, "approved")] * 2 + [(Event.DENIED, "denied"), (Event.EXPIRED, "expired")]:
        audit_record(event_type=event, actor=engineer, tool="create_branch", outcome=outcome)
    audit_record(event_type=Event.CANCELLED, actor=engineer, tool="create_branch", outcome="cancelled")
    # reads (durations 10…80 ms) and writes (90, 100 ms); one retry succeeded, one did not
    call(analyst, "get_health_summary", Event.TOOL_RESULT, "ok", ms=10, raw=1000, sent=1000)
    call(analyst, "get_health_summary", Event.TOOL_RESULT, "ok", ms=20, raw=2000, sent=2000)
    call(analyst, "search_dashboards", Event.TOOL_RESULT, "ok", ms=30, raw=12000, sent=4000)
    audit_record(event_type=Event.SUMMARISED, actor=analyst, tool="search_dashboards", raw_chars=12000, sent_chars=4000)
    call(analyst, "get_health_summary", Event.TOOL_RESULT, "ok", ms=40, retries=1, raw=3000, sent=3000)
    call(analyst, "get_health_summary", Event.TOOL_ERROR, "upstream_unavailable", ms=50, retries=1)
    for _ in range(3):
        audit_record(event_type=Event.RETRY, actor=analyst, tool="get_health_summary", outcome="retry")
    call(analyst, "get_health_summary", Event.TIMEOUT, "timeout", ms=60)
    call(analyst, "search_dashboards", Event.TOOL_ERROR, "rate_limited", ms=70)
    call(analyst, "search_dashboards", Event.SESSION_EXPIRED, "session_expired", ms=80)
    call(engineer, "create_branch", Event.TOOL_ERROR, "status_unknown", ms=90, category="write")
    call(engineer, "deploy_dashboard", Event.TIMEOUT, "status_unknown", ms=100, category="dangerous", env="prod")
    call(engineer, "create_branch", Event.TOOL_ERROR, "invalid_args", ms=0, category="write")
    # a dead Django session on the socket: an event, but no tool call
    audit_record(event_type=Event.SESSION_EXPIRED, actor=analyst, outcome="session_expired")
    return {"analyst": analyst, "engineer": engineer}


def report_json(**options) -> dict:
    out = io.StringIO()
    call_command("audit_report", format="json", stdout=out, **options)
    return json.loads(out.getvalue())


def test_json_report_has_every_section_right(seeded):
    """Each section's figures follow from the seeded rows."""
    report = report_json()

    by_type = report["events"]["by_type"]
    assert report["events"]["total"] == AuditEvent.objects.count() == 29
    assert (by_type["permission_denied"], by_type["confirm_required"], by_type["retry"]) == (4, 4, 3)
    assert (by_type["tool_result"], by_type["tool_error"], by_type["timeout"]) == (4, 4, 2)
    assert (by_type["session_expired"], by_type["summarised"], by_type["tool_call"]) == (2, 1, 0)

    assert report["permission_denials"] == {
        "total": 4,
        "by_role_tool": [
            {"role": "analyst", "tool": "deploy_dashboard", "count": 2},
            {"role": "admin+engineer", "tool": "run_backup", "count": 1},
            {"role": "engineer", "tool": "execute_migration", "count": 1},
        ],
    }
    assert report["confirmations"] == {"required": 4, "approved": 2, "denied": 1, "expired": 1, "unknown": 2}
    assert report["tool_errors"] == {
        "total": 7,
        "by_class": {
            "timeout": 1,
            "transient": 1,
            "status_unknown": 2,
            "session_expired": 1,
            "rate_limited": 1,
            "other": 1,
        },
        "other_codes": {"invalid_args": 1},
    }
    # reads: 8 calls, 1 failed transiently after its retry; 2 retried, 1 of them then succeeded
    assert report["reads"] == {
        "calls": 8,
        "transient_failures": 1,
        "transient_failure_rate": 0.125,
        "retried": 2,
        "retried_succeeded": 1,
        "retried_failed": 1,
        "retry_rows": 3,
    }
    # SC-004: 4 results, raw (1000+2000+12000+3000)/4, sent (1000+2000+4000+3000)/4
    assert report["output_chars"] == {
        "results": 4,
        "avg_raw_chars": 4500.0,
        "avg_sent_chars": 2500.0,
        "sent_share": 0.5556,
        "summarised": 1,
        "summarised_avg_raw_chars": 12000.0,
        "summarised_avg_sent_chars": 4000.0,
    }


def test_durations_are_interpolated_percentiles_overall_and_per_tool(seeded):
    """Durations 0, 10, …, 100 ms: p50 = 50, p95 = 95 (linear interpolation, ``percentile_cont``)."""
    durations = report_json()["duration_ms"]

    assert (durations["calls"], durations["p50"], durations["p95"]) == (11, 50.0, 95.0)
    by_tool = {row["tool"]: row for row in durations["by_tool"]}
    assert [row["tool"] for row in durations["by_tool"]][0] == "get_health_summary"  # busiest first
    assert by_tool["get_health_summary"] == {"tool": "get_health_summary", "calls": 5, "p50": 40.0, "p95": 58.0}
    assert by_tool["search_dashboards"] == {"tool": "search_dashboards", "calls": 3, "p50": 70.0, "p95": 79.0}
    assert by_tool["create_branch"]["p50"] == 45.0  # 0 and 90


def test_offset_percentiles_match_percentile_cont(seeded):
    """The fallback for databases without ``percentile_cont`` gives PostgreSQL's figures on the same rows."""
    assert connection.vendor == "postgresql"  # the test suite runs on PostgreSQL (make test)
    timed = audit_events_filtered(where=ReportFilter()).filter(event_type__in=CALL_RESULT_EVENTS).exclude(tool="")
    timed = timed.filter(duration_ms__isnull=False)
    sql = report_json()["duration_ms"]

    assert _percentiles_by_offset(timed) == {"calls": 11, "p50": 50.0, "p95": 95.0}
    assert _percentiles_by_offset(timed.filter(tool="get_health_summary")) == {"calls": 5, "p50": 40.0, "p95": 58.0}
    assert (sql["p50"], sql["p95"]) == (50.0, 95.0)
    assert _percentiles_by_offset(timed.none()) == {"calls": 0, "p50": None, "p95": None}


def test_csv_and_table_carry_the_same_figures(seeded):
    out = io.StringIO()
    call_command("audit_report", format="csv", stdout=out)
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    values = {(section, name): value for section, name, value in rows[1:]}

    assert rows[0] == ["section", "name", "value"]
    assert values[("events", "by_type.confirm_required")] == "4"
    assert values[("permission_denials", "analyst/deploy_dashboard")] == "2"
    assert values[("confirmations", "unknown")] == "2"
    assert values[("tool_errors", "by_class.transient")] == "1"
    assert values[("reads", "retried_succeeded")] == "1"
    assert values[("output_chars", "avg_raw_chars")] == "4500.0"
    assert values[("duration_ms", "get_health_summary.p95")] == "58.0"
    assert values[("filters", "since")] == ""

    table = io.StringIO()
    call_command("audit_report", stdout=table)
    lines = [line.split() for line in table.getvalue().splitlines()]
    assert ["==", "confirmations", "=="] in lines
    assert ["approved", "2"] in lines
    assert ["admin+engineer/run_backup", "1"] in lines
    assert ["p95", "95.0"] in lines
    assert ["since", "—"] in lines


def test_filters_by_user_tool_and_environment(seeded):
    mine = report_json(user="engineer")
    assert mine["events"]["total"] == 14
    assert mine["confirmations"]["approved"] == 2
    assert mine["reads"]["calls"] == 0
    assert mine["filters"]["user"] == "engineer"

    health = report_json(tool="get_health_summary")
    assert health["events"]["total"] == 8  # 5 calls + 3 retries
    assert health["reads"]["retried"] == 2
    assert health["duration_ms"]["p50"] == 40.0

    prod = report_json(env="prod")
    assert prod["events"]["total"] == 1
    assert prod["tool_errors"]["by_class"]["status_unknown"] == 1
    assert prod["confirmations"]["unknown"] == 1


def test_time_window_with_dates_datetimes_and_relative_spans(seeded):
    """``--since`` is inclusive, ``--until`` exclusive; a bare ``--until`` date includes that day."""
    boundary = timezone.now()
    audit_record(event_type=Event.TOOL_OFFERED, tool="", outcome="")
    today = timezone.localdate().isoformat()
    yesterday = (timezone.localdate() - timedelta(days=1)).isoformat()

    assert report_json(since=boundary.isoformat())["events"]["total"] == 1
    assert report_json(until=boundary.isoformat())["events"]["total"] == 29
    assert report_json(since="1h")["events"]["total"] == 30
    assert report_json(until=yesterday)["events"]["total"] == 0
    assert report_json(since=today, until=today)["events"]["total"] == 30
    assert report_json(since="2d", until=yesterday)["events"]["total"] == 0


def test_relative_and_absolute_moments_parse():
    now = timezone.now()
    assert parse_moment("7d", now=now) == now - timedelta(days=7)
    assert parse_moment("12h", now=now) == now - timedelta(hours=12)
    assert parse_moment("30m", now=now) == now - timedelta(minutes=30)
    start = parse_moment("2026-01-31", now=now)
    end = parse_moment("2026-01-31", now=now, end=True)
    assert end - start == timedelta(days=1)
    assert timezone.localtime(start).hour == 0
    with pytest.raises(ValueError, match="Invalid isoformat"):
        parse_moment("last week", now=now)


def test_bad_options_are_refused(seeded):
    with pytest.raises(CommandError, match="since/--until"):
        call_command("audit_report", since="yesterday")
    with pytest.raises(CommandError, match="before"):
        call_command("audit_report", since="2026-02-01", until="2026-01-01")
    with pytest.raises(CommandError, match="no user"):
        call_command("audit_report", user="nobody")
    with pytest.raises(CommandError, match="no tool 'nosuch'"):
        call_command("audit_report", tool="nosuch")
    with pytest.raises(CommandError, match="no environment 'nope'"):
        call_command("audit_report", env="nope")


def test_empty_log_reports_zeros_and_no_averages(policy_defaults):
    report = report_json()
    assert report["events"]["total"] == 0
    assert report["reads"]["transient_failure_rate"] is None
    assert report["output_chars"]["avg_raw_chars"] is None
    assert report["duration_ms"] == {"calls": 0, "p50": None, "p95": None, "by_tool": []}
