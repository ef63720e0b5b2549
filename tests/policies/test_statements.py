"""Rows inserted by a fixed statement (issue 17, ``policies.statements.rows_insert``): one ``INSERT`` whatever the
row count, ids in list order, every field as the ORM would have written it (``auto_now_add``, JSON, SQL NULL,
foreign keys); the audit log's append goes through it."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from agentchat.models import Conversation, Message
from policies import services as policy
from policies.models import AuditAppendOnly, AuditEvent
from policies.statements import rows_insert

pytestmark = pytest.mark.django_db(transaction=True)


def test_rows_get_their_ids_in_order_and_every_field_as_the_orm_writes_it(users):
    conversation = Conversation.objects.create(user=users["analyst"], title="t", context_version=1)
    rows = [
        Message(conversation=conversation, role="user", content="«один»", tool_calls=[], ui_context={"envId": "x"}),
        Message(conversation=conversation, role="assistant", tool_calls=[{"id": "c", "args": {"a": None}}]),
        Message(conversation=conversation, role="tool", content="3", tool_calls=[], tool_call_id="c"),
    ]
    with CaptureQueriesContext(connection) as queries:
        rows_insert(rows)
    assert len(queries.captured_queries) == 1
    assert [row.pk for row in rows] == sorted(row.pk for row in rows)
    assert all(row.created_at is not None and not row._state.adding for row in rows)
    stored = {m.pk: m for m in Message.objects.filter(conversation=conversation)}
    assert list(stored) == [row.pk for row in rows]
    first, second, third = (stored[row.pk] for row in rows)
    assert (first.content, first.ui_context, first.created_at) == ("«один»", {"envId": "x"}, rows[0].created_at)
    assert (second.tool_calls, second.ui_context) == ([{"id": "c", "args": {"a": None}}], None)
    assert Message.objects.filter(pk=second.pk, ui_context__isnull=True).exists()  # SQL NULL, not JSON null
    assert (third.tool_call_id, third.conversation_id) == ("c", conversation.pk)


def test_rows_of_no_or_mixed_models_are_refused(users):
    conversation = Conversation(user=users["analyst"], title="t")
    with pytest.raises(ValueError, match="one model"):
        rows_insert([])
    with pytest.raises(ValueError, match="one model"):
        rows_insert([conversation, Message(role="user")])


def test_an_audit_event_is_one_insert_and_stays_append_only(users):
    with CaptureQueriesContext(connection) as queries:
        event = policy.audit_record(
            event_type=AuditEvent.EventType.TOOL_OFFERED, actor=users["analyst"], extra={"tools": ["a"]}
        )
    assert len(queries.captured_queries) == 1
    stored = AuditEvent.objects.get(pk=event.pk)
    assert (stored.actor_id, stored.extra_data, stored.created_at) == (
        users["analyst"].pk,
        {"tools": ["a"]},
        event.created_at,
    )
    with pytest.raises(AuditAppendOnly):
        event.save()
