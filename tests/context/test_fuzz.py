"""Property-based fuzzing of the UIContext contract through both entry points (DESIGN §7; seed SC-006).

Payloads come from ``context_payloads.cases``: valid and invalid fields mixed, oversized and control-character
strings, wrong types, unknown keys, duplicate keys, deep nesting, sizes around 4096 bytes, with an oracle that
decides validity from how each payload was built.

- 10,000 payloads per run go through the API (Django test client, whole HTTP stack) and through the consumer's
  validation path (the frame text → ``decode_frame`` → ``parse_frame`` → ``context_accept``, the calls
  ``AgentConsumer`` makes before a turn), with the system prompt of every valid one checked
  (``context_fuzzing.FuzzRun``).
- 300 payloads per run go over a real WebSocket to the real consumer; valid ones run a whole turn with a scripted
  LLM that records the system prompt it is actually sent.
"""

import asyncio
import threading
from collections import Counter

import pytest
from django.conf import settings as django_settings
from hypothesis import HealthCheck, given, settings

from policies.models import AuditEvent
from tests.support.context_entry_points import scripted_connect, ws_send
from tests.support.context_fuzzing import FuzzRun, assert_prompt_holds_only, make_inactive_environment
from tests.support.context_payloads import Case, cases

pytestmark = pytest.mark.django_db(transaction=True)
EXAMPLES = 10_000
SOCKET_EXAMPLES = 300
FUZZ = {"deadline": None, "database": None, "suppress_health_check": list(HealthCheck)}


@pytest.mark.slow  # 10,000 payloads: minutes of CPU
@pytest.mark.timeout(3600)
def test_ten_thousand_fuzzed_contexts_through_the_api_and_the_consumer_path(users):
    """SC-006: every malformed/oversized payload refused and audited at both edges; valid ones unchanged."""
    make_inactive_environment()
    run = FuzzRun(users["analyst"])

    @settings(max_examples=EXAMPLES, **FUZZ)
    @given(case=cases())
    def check(case: Case) -> None:
        run.check(case)

    check()
    audited = run.verify_audit_trail()
    print(dict(run.counts), {k: round(v, 1) for k, v in run.seconds.items()})  # noqa: T201 - figures (-s)
    assert run.counts["payloads"] >= EXAMPLES
    assert run.counts["valid"] >= EXAMPLES // 5
    assert run.counts["invalid"] >= EXAMPLES // 5
    assert run.counts["api_rejected"] == run.counts["consumer_rejected"] == run.counts["invalid"]
    assert run.counts["api_accepted"] == run.counts["consumer_accepted"] == run.counts["valid"]
    assert audited == 2 * run.counts["invalid"]
    rejected = AuditEvent.objects.filter(event_type=AuditEvent.EventType.CONTEXT_REJECTED)
    assert rejected.filter(extra_data__source="api").count() == run.counts["invalid"]
    assert rejected.filter(extra_data__source="websocket").count() == run.counts["invalid"]


class LoopThread:
    """An event loop in its own thread, so the socket's channel-layer reads keep running between payloads."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro, timeout_s: float = 120):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout_s)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@pytest.mark.slow  # 300 payloads over a real socket, whole turns
@pytest.mark.timeout(1800)
def test_fuzzed_contexts_over_a_real_socket_run_turns_only_with_clean_prompts(users, monkeypatch):
    """The real consumer: invalid → ``invalid_context`` + audit and no turn; valid → a turn whose LLM gets it."""
    # Hundreds of one user's messages in a minute: the subject is the context, not the per-user bound (issue 31).
    monkeypatch.setattr(django_settings, "USER_MESSAGES_PER_MINUTE", 0)
    make_inactive_environment()
    loop = LoopThread()
    communicator = loop.run(scripted_connect(users["engineer"]))
    counts: Counter = Counter()

    @settings(max_examples=SOCKET_EXAMPLES, **FUZZ)
    @given(case=cases())
    def check(case: Case) -> None:
        outcome = loop.run(ws_send(communicator, case.text))
        for frame in outcome.frames:
            assert frame.get("code") not in ("internal", "bad_frame"), frame
        if case.valid:
            counts["accepted"] += 1
            assert outcome.accepted, (case.text, outcome.errors)
            assert outcome.context == case.expected
            assert outcome.frames[0]["context_status"] == "ok"
            assert outcome.audit is None
            assert_prompt_holds_only(outcome.prompt, case.expected)
            return
        counts["rejected"] += 1
        assert not outcome.accepted, case.why
        assert outcome.frames[0]["code"] == "invalid_context"
        assert outcome.audit is not None
        assert outcome.audit.extra_data["source"] == "websocket"

    try:
        check()
        assert loop.run(communicator.receive_nothing(timeout=0.5))
    finally:
        loop.run(communicator.disconnect())
        loop.close()
    assert counts["accepted"] >= SOCKET_EXAMPLES // 10
    assert counts["rejected"] >= SOCKET_EXAMPLES // 10
