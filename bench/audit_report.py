"""``manage.py audit_report`` on a large audit log: seeds N events (default 100,000) into a fresh database and times
the report in every format and with each filter.

Run: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/agentchat .venv/bin/python bench/audit_report.py
[--events 100000] [--seed 7]``. The database ``<name>_bench_audit`` on the same server is dropped and created (a
SQLite ``DATABASE_URL`` uses a scratch file instead). Goal (issue 9): the report of 100,000 events in seconds.
"""

import argparse
import io
import os
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.processes import fresh_database  # noqa: E402

TOOLS = {  # name: category, as in policies.defaults
    "get_health_summary": "read",
    "search_dashboards": "read",
    "superset_execute_sql": "read",
    "get_dataset_details": "read",
    "create_branch": "write",
    "run_backup": "write",
    "deploy_dashboard": "dangerous",
}
ERRORS = ["upstream_unavailable", "status_unknown", "rate_limited", "session_expired", "invalid_args", "internal"]


def scratch_database(base_url: str) -> str:
    """Return the URL of an empty scratch database next to ``base_url`` (SQLite: a new file; PostgreSQL: dropped
    and created)."""
    if base_url.startswith("sqlite"):
        return f"sqlite:///{tempfile.mkdtemp(prefix='bench-audit-')}/audit.sqlite3"
    return fresh_database(base_url, "_bench_audit")


def events(n: int, rng: random.Random, users: list, now):
    """Yield ``n`` unsaved AuditEvents shaped like the agent's: per call an optional retry/summarised row and the
    call's own row, plus offers, cards, denials; times spread over 30 days."""
    from policies.models import AuditEvent

    event = AuditEvent.EventType
    made = 0
    while made < n:
        user = rng.choice(users)
        tool = rng.choice(list(TOOLS))
        category = TOOLS[tool]
        at = now - timedelta(seconds=rng.uniform(0, 30 * 86400))
        common = {"actor": user, "tool": tool, "env_id": rng.choice(["ss-dev", "prod"]), "created_at": at}
        kind = rng.random()
        rows = []
        if kind < 0.1:
            rows.append(AuditEvent(event_type=event.TOOL_OFFERED, extra_data={"tools": list(TOOLS)}, **common))
        elif kind < 0.15:
            rows.append(AuditEvent(event_type=event.PERMISSION_DENIED, outcome="denied", **common))
        elif category != "read" and kind < 0.3:
            decision = rng.choice([event.CONFIRMED, event.DENIED, event.EXPIRED])
            rows.append(AuditEvent(event_type=event.CONFIRM_REQUIRED, outcome="pending", **common))
            rows.append(AuditEvent(event_type=decision, outcome=decision, **common))
        else:
            retries = 1 if category == "read" and rng.random() < 0.1 else 0
            ok = rng.random() < 0.9
            raw = rng.randint(200, 20000)
            sent = min(raw, 4000)
            rows.append(AuditEvent(event_type=event.TOOL_CALL, outcome="started", **common))
            if retries:
                rows.append(AuditEvent(event_type=event.RETRY, outcome="retry", **common))
            if ok and raw > 4000:
                rows.append(AuditEvent(event_type=event.SUMMARISED, raw_chars=raw, sent_chars=sent, **common))
            rows.append(
                AuditEvent(
                    event_type=event.TOOL_RESULT if ok else rng.choice([event.TOOL_ERROR, event.TIMEOUT]),
                    outcome="ok" if ok else rng.choice(ERRORS),
                    raw_chars=raw if ok else None,
                    sent_chars=sent if ok else 200,
                    duration_ms=int(rng.lognormvariate(5, 1)),
                    extra_data={"category": category, "retries": retries, "call_id": f"c{made}"},
                    **common,
                )
            )
        for row in rows[: n - made]:
            made += 1
            yield row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    os.environ["DATABASE_URL"] = scratch_database(os.environ.get("DATABASE_URL", f"sqlite:///{ROOT}/var/x.sqlite3"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from policies.models import AuditEvent

    call_command("migrate", verbosity=0)
    print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
    users = []
    for role in ("analyst", "engineer", "admin"):
        user = get_user_model().objects.create(username=f"bench-{role}")
        user.groups.set([Group.objects.get(name=role)])
        users.append(user)

    created_at = AuditEvent._meta.get_field("created_at")
    created_at.auto_now_add = False  # keep the spread times of the seeded rows (bench only)
    started = time.perf_counter()
    batch: list = []
    for row in events(args.events, random.Random(args.seed), users, timezone.now()):
        batch.append(row)
        if len(batch) == 5000:
            AuditEvent.objects.bulk_create(batch)
            batch = []
    AuditEvent.objects.bulk_create(batch)
    created_at.auto_now_add = True
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE policies_auditevent")
    print(f"seeded {AuditEvent.objects.count():,} events in {time.perf_counter() - started:.1f} s")

    runs = [
        ("table, all events", {}),
        ("json, all events", {"format": "json"}),
        ("csv, all events", {"format": "csv"}),
        ("table, --since 7d", {"since": "7d"}),
        ("table, --user bench-engineer", {"user": "bench-engineer"}),
        ("table, --tool deploy_dashboard --env prod", {"tool": "deploy_dashboard", "env": "prod"}),
    ]
    for label, options in runs:
        out = io.StringIO()
        started = time.perf_counter()
        call_command("audit_report", stdout=out, **options)
        elapsed = time.perf_counter() - started
        print(f"{label:45s} {elapsed * 1000:8.0f} ms  ({len(out.getvalue().splitlines())} lines)")
    sample = io.StringIO()
    call_command("audit_report", stdout=sample)
    print(sample.getvalue())


if __name__ == "__main__":
    main()
