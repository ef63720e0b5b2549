"""A turn's own statements on the conversation (issue 17): the conversation, its cards' EXISTS and its messages in
one fixed ``SELECT`` (``conversation_with_history``), the touch and the answer's text as fixed ``UPDATE``s — the
same history, the same rows written, as the ORM queries they replace."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from agentchat.conversations import services as conv
from agentchat.conversations.selectors import (
    ConversationNotFound,
    conversation_with_history,
    history_from_rows,
    history_messages,
)
from agentchat.models import Conversation, Message, PendingConfirmation
from tests.support.contexts import DASHBOARD_1

pytestmark = pytest.mark.django_db(transaction=True)
Role = Message.Role


def _conversation(user) -> Conversation:
    """A conversation with a system line, a call answered, a call left pending, a duplicate tool answer, an empty
    answer row and a pending card."""
    conversation = conv.conversation_start(user=user, text="привет", context=DASHBOARD_1)
    add = conv.message_add
    add(conversation=conversation, role=Role.USER, content="привет", ui_context=DASHBOARD_1)
    calls = [{"id": "a", "name": "list_dashboards", "args": {"env_id": "ss-dev"}}, {"id": "b", "name": "x", "args": {}}]
    add(conversation=conversation, role=Role.ASSISTANT, content="смотрю", tool_calls=calls)
    add(conversation=conversation, role=Role.TOOL, content='{"n": 1}', tool_call_id="a", status="success")
    add(conversation=conversation, role=Role.TOOL, content="дубль", tool_call_id="a", status="error")
    add(conversation=conversation, role=Role.SYSTEM, content="Операция отменена")
    add(conversation=conversation, role=Role.ASSISTANT)
    PendingConfirmation.objects.create(
        user=user, conversation=conversation, tool="x", call_id="b", args={}, decision={}, language="ru"
    )
    return conversation


def test_one_statement_reads_the_same_history_as_the_orm_and_the_pending_cards(users):
    analyst = users["analyst"]
    conversation = _conversation(analyst)
    with CaptureQueriesContext(connection) as queries:
        opened = conversation_with_history(user=analyst, conversation_id=conversation.pk)
    assert len(queries.captured_queries) == 1
    assert opened.pending is True
    assert opened.conversation.pk == conversation.pk
    assert opened.conversation.ui_context == DASHBOARD_1
    assert opened.conversation.context_version == conversation.context_version
    assert opened.conversation.title == "привет"  # deferred: read on first access
    assert [row.role for row in opened.rows] == ["user", "assistant", "tool", "tool", "assistant"]
    assert opened.rows[1].tool_calls[0]["args"] == {"env_id": "ss-dev"}  # JSON decoded by the field
    assert history_from_rows(opened.rows) == history_messages(conversation=conversation)
    [human, ai, tool] = history_from_rows(opened.rows)
    assert ai.tool_calls == [{"id": "a", "name": "list_dashboards", "args": {"env_id": "ss-dev"}, "type": "tool_call"}]
    assert (tool.tool_call_id, tool.content, tool.status) == ("a", '{"n": 1}', "success")

    PendingConfirmation.objects.update(status=PendingConfirmation.Status.EXPIRED)
    assert conversation_with_history(user=analyst, conversation_id=conversation.pk).pending is False


def test_a_conversation_without_messages_has_no_rows_and_another_users_is_not_found(users):
    empty = Conversation.objects.create(user=users["analyst"], title="пусто", context_version=1)
    opened = conversation_with_history(user=users["analyst"], conversation_id=empty.pk)
    assert (opened.rows, opened.pending, opened.conversation.ui_context) == ([], False, None)
    with pytest.raises(ConversationNotFound):
        conversation_with_history(user=users["engineer"], conversation_id=empty.pk)
    with pytest.raises(ConversationNotFound):
        conversation_with_history(user=users["analyst"], conversation_id=empty.pk + 1000)


def test_touch_and_answer_update_write_what_the_orm_reads_back(users):
    conversation = conv.conversation_start(user=users["analyst"], text="привет", context=None)
    before = Conversation.objects.get(pk=conversation.pk).updated_at
    _, answer = conv.turn_messages_add(conversation=conversation, text="привет", ui_context=None, touch=False)
    assert Conversation.objects.get(pk=conversation.pk).updated_at == before
    conv.conversation_touch(conversation=conversation)
    stored = Conversation.objects.get(pk=conversation.pk).updated_at
    assert stored > before
    assert stored == conversation.updated_at
    assert timezone.is_aware(stored)

    calls = [{"id": "c1", "name": "list_dashboards", "args": {"q": '«кавычки» и "json"'}}]
    conv.message_update(message_id=answer.pk, content="готово", tool_calls=calls)
    row = Message.objects.get(pk=answer.pk)
    assert (row.content, row.tool_calls) == ("готово", calls)
    assert Message.objects.filter(tool_calls__0__args__q='«кавычки» и "json"').count() == 1  # stored as JSON
