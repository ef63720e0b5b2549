"""Fuzz the UIContext contract through both entry points and print the counts (DESIGN §7; seed SC-006).

Generates payloads with the test suite's strategies (``tests/support/context_payloads.py``: valid and invalid
fields mixed, oversized and control-character strings, wrong types, unknown keys, duplicate keys, deep nesting,
sizes around 4096 bytes) and sends each through ``POST /api/agent/context/`` (Django test client) and the
consumer's validation path (frame text → ``decode_frame`` → ``parse_frame`` → ``context_accept``), as
``tests/support/context_fuzzing.FuzzRun`` does. Prints how many were accepted, rejected and audited per entry
point, the 500s and any contract breach (a payload the oracle and the service disagree on).

Usage (PostgreSQL as in the tests; a database ``<name>_bench`` is created and dropped):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/agentchat .venv/bin/python bench/context_fuzz.py \
        [--payloads 10000] [--seed 1]
"""

import argparse
import logging
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agentchat.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings as django_settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test.utils import setup_test_environment, teardown_test_environment  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402

from policies.models import AuditEvent  # noqa: E402
from tests.support.context_fuzzing import FuzzRun, make_inactive_environment  # noqa: E402
from tests.support.context_payloads import Case, cases  # noqa: E402
from tests.support.users import ensure_policy_defaults, make_user  # noqa: E402


def fuzz(payloads: int, seed_value: int | None) -> dict:
    """Run ``payloads`` generated cases; return the counts (breaches are counted, not raised)."""
    ensure_policy_defaults()
    make_inactive_environment()
    run = FuzzRun(make_user("analyst", "bench-analyst"))
    breaches: list[str] = []

    @settings(max_examples=payloads, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(case=cases())
    def check(case: Case) -> None:
        try:
            run.check(case)
        except AssertionError as exc:
            breaches.append(f"{case.why or 'valid'}: {case.text[:120]!r}: {str(exc)[:200]}")

    if seed_value is not None:
        check = seed(seed_value)(check)
    started = time.monotonic()
    check()
    elapsed = time.monotonic() - started
    rows = AuditEvent.objects.filter(event_type=AuditEvent.EventType.CONTEXT_REJECTED)
    counts = run.counts
    return {
        "payloads": counts["payloads"],
        "valid (oracle)": counts["valid"],
        "invalid (oracle)": counts["invalid"],
        "api accepted (200)": counts["api_200"],
        "api rejected (422)": counts["api_422"],
        "api audited": rows.filter(extra_data__source="api").count(),
        "api 400": counts["api_400"],
        "api 500": counts["api_500"],
        "consumer accepted": counts["consumer_accepted"],
        "consumer rejected (invalid_context)": counts["consumer_rejected"],
        "consumer audited": rows.filter(extra_data__source="websocket").count(),
        "contract breaches": len(breaches),
        "seconds": round(elapsed, 1),
        "payloads per second": round(counts["payloads"] / elapsed, 1),
        "cpu ms per payload (api / consumer)": (
            round(1000 * run.seconds["api"] / max(counts["payloads"], 1), 1),
            round(1000 * run.seconds["consumer"] / max(counts["payloads"], 1), 1),
        ),
        "first breaches": breaches[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--payloads", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    logging.getLogger("django.request").setLevel(logging.ERROR)  # 422s are the expected outcome here
    database = django_settings.DATABASES["default"]
    database["TEST"]["NAME"] = f"{database['NAME']}_bench"
    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        result = fuzz(args.payloads, args.seed)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        teardown_test_environment()
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
