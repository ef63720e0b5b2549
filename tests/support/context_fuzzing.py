"""The fuzz harness shared by ``test_context_fuzz`` and ``bench/context_fuzz.py`` (DESIGN §7; seed SC-006).

``FuzzRun.check(case)`` sends one generated payload through both entry points and asserts the contract:

- API: ``POST /api/agent/context/`` through Django's test client (middleware, session auth, DRF, the strict
  parser, the exception handler) → 200 with exactly the expected context, or 422 with field errors;
- consumer: the frame text the page would send, through exactly the calls ``AgentConsumer.receive`` makes
  before a turn (``decode_frame`` → ``parse_frame`` → ``context_accept``) → the context, or ``ContextInvalid``.

Invalid payloads must leave one ``context_rejected`` row per entry point holding the raw payload, valid ones
none (``verify_audit_trail`` compares the rows with the refusals, in order, once at the end: one query instead of
two per payload); the system prompt a turn would be given (``turn.prompt.system_prompt``) must hold exactly the valid
context in its data block. Counts and CPU seconds per phase are kept in ``counts``/``seconds``.
"""

import json
import time
from collections import Counter

from django.test import Client

from agentchat.chat.frames import decode_frame, parse_frame
from agentchat.context.intake import AUDIT_PAYLOAD_MAX_CHARS, context_accept
from agentchat.context.uicontext import (
    BLOCK_BEGIN,
    BLOCK_END,
    BLOCK_LEFT_OUT,
    BLOCK_NAME_NOTE,
    BLOCK_PREAMBLE,
    ContextInvalid,
    has_unsafe_chars,
    printable,
)
from agentchat.turn.prompt import system_prompt
from policies.models import AuditEvent, Environment
from tests.support.context_entry_points import API_URL, frame_text
from tests.support.context_payloads import INACTIVE_ENV, Case


def assert_prompt_holds_only(prompt: str, expected: dict) -> None:
    """The system prompt is the fixed text plus one data block holding exactly ``expected`` (the fields that have a
    value, without ``BLOCK_LEFT_OUT``), on one printable line (readable letters; only what could end the block
    escaped). The fixed text is the instructions, then the block's preamble and, when a name was sent, its note."""
    head, sep, rest = prompt.partition(BLOCK_BEGIN + "\n")
    assert sep
    body, sep, tail = rest.partition("\n" + BLOCK_END)
    assert sep
    assert tail == ""
    present = {key: value for key, value in expected.items() if value is not None and key not in BLOCK_LEFT_OUT}
    notes = " ".join([BLOCK_PREAMBLE, *([BLOCK_NAME_NOTE] if present.get("objectName") else [])])
    instructions = {
        system_prompt(None, unavailable=False, language=lang).partition(BLOCK_PREAMBLE)[0]
        for lang in ("ru", "en", None)
    }
    assert head in {text + notes + "\n" for text in instructions}
    assert "\n" not in body
    assert not has_unsafe_chars(body)
    assert "<" not in body
    assert ">" not in body
    assert json.loads(body) == {"status": "ok", **present}


def make_inactive_environment() -> None:
    """The environment ``context_payloads.INACTIVE_ENV`` exists but is inactive (an envId that must fail)."""
    Environment.objects.update_or_create(
        env_id=INACTIVE_ENV,
        defaults={
            "name": "retired",
            "tier": "dev",
            "superset_url": "http://127.0.0.1:9",
            "credentials_env": "SUPERSET_RETIRED",
            "is_active": False,
        },
    )


class FuzzRun:
    """Checks generated payloads against both entry points as ``user``; see the module doc."""

    def __init__(self, user):
        self.user = user
        self.client = Client()
        self.client.force_login(user)
        self.counts: Counter = Counter()
        self.seconds: Counter = Counter()
        last = AuditEvent.objects.order_by("-id").first()
        self.first_audit_id = (last.pk if last else 0) + 1
        self.refusals: list[tuple[str, str, int]] = []  # (source, payload as audited, bytes) per refusal

    def verify_audit_trail(self) -> int:
        """Assert one ``context_rejected`` row per refusal, in order, holding its payload; return the row count."""
        rows = AuditEvent.objects.filter(
            pk__gte=self.first_audit_id, event_type=AuditEvent.EventType.CONTEXT_REJECTED
        ).order_by("id")
        seen = [(r.extra_data["source"], r.extra_data["payload"], r.extra_data["payload_bytes"]) for r in rows]
        assert len(seen) == len(self.refusals)
        for (source, payload, size), (want_source, want_payload, want_size) in zip(seen, self.refusals, strict=True):
            assert source == want_source
            assert not has_unsafe_chars(payload)
            if source == "api":
                assert (payload, size) == (want_payload, want_size)
        return len(seen)

    def check(self, case: Case) -> None:
        """Send ``case`` through both entry points and assert the contract (AssertionError on a breach)."""
        self.counts["payloads"] += 1
        self.counts["valid" if case.valid else "invalid"] += 1
        started = time.process_time()
        self.check_api(case)
        middle = time.process_time()
        self.check_consumer(case)
        self.seconds["api"] += middle - started
        self.seconds["consumer"] += time.process_time() - middle

    def check_api(self, case: Case) -> None:
        response = self.client.post(
            API_URL, data=case.text.encode("utf-8", "surrogatepass"), content_type="application/json"
        )
        self.counts[f"api_{response.status_code}"] += 1
        assert response.status_code != 500
        body = response.json()
        if case.valid:
            assert response.status_code == 200, (case.text, body)
            assert body == case.expected
            self.counts["api_accepted"] += 1
            return
        assert response.status_code == 422, (case.why, case.text[:300], response.status_code)
        assert body["errors"]
        self.counts["api_rejected"] += 1
        size = len(case.text.encode("utf-8", "surrogatepass"))
        self.refusals.append(("api", printable(case.text, AUDIT_PAYLOAD_MAX_CHARS), size))

    def check_consumer(self, case: Case) -> None:
        frame = parse_frame(decode_frame(frame_text(case.text)))
        context, errors = None, None
        try:
            context = context_accept(
                payload=frame.context, actor=self.user, source="websocket", conversation_id=frame.conversation_id
            )
        except ContextInvalid as exc:
            errors = exc.errors
        if errors is not None:
            assert not case.valid, (case.text, errors)
            assert errors
            self.counts["consumer_rejected"] += 1
            self.refusals.append(("websocket", "", 0))
            return
        assert case.valid, (case.why, case.text[:300])
        assert context == case.expected
        assert_prompt_holds_only(system_prompt(context, unavailable=False), case.expected)
        self.counts["consumer_accepted"] += 1
