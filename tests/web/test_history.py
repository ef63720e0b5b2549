"""The history tells conversations apart and can be searched (issue 30 item 5): each item names its page's object
before the first words of its first question; ``GET /api/agent/conversations/?q=`` finds a conversation by its
title or any of its questions."""

import pytest
from django.test import Client
from django.utils import translation

from agentchat.conversations.selectors import conversations_of, first_words
from agentchat.models import Conversation, Message
from tests.support.contexts import DASHBOARD_1

pytestmark = pytest.mark.django_db


def _conversation(user, title: str, context: dict | None, *asked: str) -> Conversation:
    conversation = Conversation.objects.create(user=user, title=title, ui_context=context, context_version=1)
    for question in asked:
        Message.objects.create(conversation=conversation, role="user", content=question)
    return conversation


def test_two_conversations_with_one_question_are_told_apart_by_their_object(users):
    _conversation(users["engineer"], "расскажи про этот дашборд", DASHBOARD_1)
    _conversation(users["engineer"], "расскажи про этот дашборд", {**DASHBOARD_1, "objectId": "2"})

    with translation.override("ru"):
        items = conversations_of(user=users["engineer"])

    assert sorted(i["object"] for i in items) == ["Дашборд #1 · ss-dev", "Дашборд #2 · ss-dev"]


def test_a_long_question_is_cut_at_a_word():
    assert first_words("покажи мне пожалуйста все дашборды про энергопотребление в регионах", 40) == (
        "покажи мне пожалуйста все дашборды про…"
    )


def test_search_finds_a_conversation_by_a_later_question_and_only_the_user_s(users):
    mine = _conversation(users["engineer"], "расскажи про этот дашборд", DASHBOARD_1, "а кто владелец регионов?")
    _conversation(users["engineer"], "статус", None, "что с бэкапом?")
    _conversation(users["analyst"], "владелец регионов", None, "кто владелец регионов?")
    client = Client()
    client.force_login(users["engineer"])

    html = client.get("/api/agent/conversations/", {"q": "ВЛАДЕЛЕЦ  регионов"}).json()["html"]
    everything = client.get("/api/agent/conversations/").json()["html"]

    assert html.count("data-conversation=") == 1
    assert f'data-conversation="{mine.pk}"' in html
    assert everything.count("data-conversation=") == 2
