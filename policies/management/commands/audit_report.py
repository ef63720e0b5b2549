"""``manage.py audit_report``: figures from the audit log (DESIGN §4; seed SC-003, SC-004).

Examples::

    manage.py audit_report --since 7d
    manage.py audit_report --since 2026-01-01 --until 2026-01-31 --env prod --format csv
    manage.py audit_report --user engineer --tool deploy_dashboard --format json
"""

import csv
import json
import re
from datetime import date, datetime, time, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from policies.models import AuditEvent, Environment, Tool
from policies.reports import ReportFilter, audit_report, report_rows

RELATIVE = re.compile(r"^(\d+)\s*([smhdw])$")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_moment(text: str, *, now: datetime, end: bool = False) -> datetime:
    """Parse ``--since``/``--until``: a relative span back from ``now`` (``30m``, ``12h``, ``7d``, ``2w``), an ISO
    date or an ISO date-time (naive ones are in ``TIME_ZONE``).

    Args:
        text: the option's value.
        now: the aware current time.
        end: the value is an upper bound: a bare date then means the end of that day (the next midnight).

    Returns:
        An aware datetime.

    Raises:
        ValueError: the text is none of these forms.
    """
    text = text.strip()
    relative = RELATIVE.match(text)
    if relative:
        return now - timedelta(**{UNITS[relative.group(2)]: int(relative.group(1))})
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        day = date.fromisoformat(text) + timedelta(days=1 if end else 0)
        return timezone.make_aware(datetime.combine(day, time.min))
    moment = datetime.fromisoformat(text)
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


class Command(BaseCommand):
    help = (
        "Audit report: events by type, permission denials by role and tool, confirmations, tool errors by class, "
        "read failures and the retry's effect (SC-003), tool output characters raw vs sent (SC-004), p50/p95 "
        "tool duration."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--since", help="start: 7d, 12h, 30m, 2w, an ISO date or date-time (inclusive)")
        parser.add_argument("--until", help="end: same forms (exclusive; a bare date includes that whole day)")
        parser.add_argument("--user", default="", help="only events of this username")
        parser.add_argument("--tool", default="", help="only events of this tool")
        parser.add_argument("--env", default="", help="only events of this environment id")
        parser.add_argument("--format", choices=["table", "json", "csv"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        now = timezone.now()
        try:
            since = parse_moment(options["since"], now=now) if options["since"] else None
            until = parse_moment(options["until"], now=now, end=True) if options["until"] else None
        except ValueError as exc:
            raise CommandError(f"bad --since/--until: {exc}. Use 7d, 12h, 2026-01-31 or 2026-01-31T12:00") from None
        if since and until and since >= until:
            raise CommandError("--since must be before --until")
        if options["user"] and not get_user_model().objects.filter(username=options["user"]).exists():
            raise CommandError(f"no user {options['user']!r}")
        # A filter that can match nothing is a typo, not a quiet report of zeros.
        if options["tool"] and not _known(Tool, "name", "tool", options["tool"]):
            raise CommandError(f"no tool {options['tool']!r} in the catalogue or the audit log")
        if options["env"] and not _known(Environment, "env_id", "env_id", options["env"]):
            raise CommandError(f"no environment {options['env']!r} in the settings or the audit log")
        where = ReportFilter(
            since=since, until=until, username=options["user"], tool=options["tool"], env_id=options["env"]
        )
        report = audit_report(where=where)
        {"json": self._json, "csv": self._csv, "table": self._table}[options["format"]](report)

    def _json(self, report: dict) -> None:
        self.stdout.write(json.dumps(report, ensure_ascii=False, indent=2))

    def _csv(self, report: dict) -> None:
        writer = csv.writer(self.stdout, lineterminator="\n")
        writer.writerow(["section", "name", "value"])
        for section, name, value in report_rows(report):
            writer.writerow([section, name, "" if value is None else value])

    def _table(self, report: dict) -> None:
        rows = report_rows(report)
        width = max((len(name) for _, name, _ in rows), default=10)
        current = None
        for section, name, value in rows:
            if section != current:
                self.stdout.write(("\n" if current else "") + f"== {section} ==")
                current = section
            self.stdout.write(f"  {name.ljust(width)}  {'—' if value is None else value}")


def _known(model: type[Tool] | type[Environment], field: str, audit_field: str, value: str) -> bool:
    """True when ``value`` names a row of ``model`` (by ``field``) or appears in the audit log's ``audit_field``
    (events outlive the tools and environments they name)."""
    return model.objects.filter(**{field: value}).exists() or AuditEvent.objects.filter(**{audit_field: value}).exists()
