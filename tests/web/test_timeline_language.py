"""A reloaded conversation's tool lines speak the language of the turn they ran in (DESIGN §5): a one-word
follow-up («hotfix», the answer to «Как назвать ветку?») keeps the conversation's, as the turn itself did
(``language.conversation_language``)."""

import pytest
from django.test import Client

from agentchat.models import Conversation, Message
from tests.support.contexts import DASHBOARD_1
from tests.support.wording import text

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(
    ("question", "asked", "answer", "language"),
    [
        ("создай ветку", "Как назвать ветку?", "hotfix", "ru"),
        ("create a branch", "What should the branch be called?", "hotfix", "en"),
    ],
)
def test_a_tool_line_after_a_one_word_answer_keeps_the_conversation_s_language(
    users, question, asked, answer, language
):
    owner = users["engineer"]
    conversation = Conversation.objects.create(user=owner, title="t", ui_context=DASHBOARD_1, context_version=1)
    for role, content in (("user", question), ("assistant", asked), ("user", answer)):
        Message.objects.create(conversation=conversation, role=role, content=content)
    Message.objects.create(conversation=conversation, role="assistant", content="", tool_calls=[{"id": "c1"}])
    Message.objects.create(
        conversation=conversation,
        role="tool",
        content='{"name": "hotfix"}',
        tool_call_id="c1",
        tool_name="create_branch",
        status="success",
    )
    client = Client()
    client.force_login(owner)

    timeline = client.get(f"/api/agent/conversations/{conversation.pk}/").json()["timeline"]

    assert [e["title"] for e in timeline if e["kind"] == "tool"] == [text(language, "creating a git branch")]


def test_a_moot_call_s_line_is_no_failure_on_a_reloaded_page(users):
    """A rollback with nothing to roll back is a step shown «–» live (``tool_finished`` with ``moot``); reloaded, its
    line says the same (``"moot": True``, ok false), not a failure."""
    owner = users["engineer"]
    conversation = Conversation.objects.create(user=owner, title="t", ui_context=DASHBOARD_1, context_version=1)
    Message.objects.create(conversation=conversation, role="user", content="откати последний деплой")
    Message.objects.create(conversation=conversation, role="assistant", content="", tool_calls=[{"id": "c1"}])
    reason = "В prod нечего откатывать."
    for call, error in (("c1", "not_applicable"), ("c2", "upstream_error")):
        Message.objects.create(
            conversation=conversation,
            role="tool",
            content=f'{{"error": "{error}", "message": "{reason}"}}',
            tool_call_id=call,
            tool_name="rollback_deploy",
            status="error",
        )
    client = Client()
    client.force_login(owner)

    timeline = client.get(f"/api/agent/conversations/{conversation.pk}/").json()["timeline"]

    lines = [(e["ok"], e.get("moot"), e.get("message")) for e in timeline if e["kind"] == "tool"]
    assert lines == [(False, True, reason), (False, None, reason)]
