"""The one-click «спросить без контекста страницы» is labelled in the answer's language, not the page's (a QA check
saw «Спросить без контекста страницы» under an English answer on a Russian page)."""

import pytest
from django.utils import translation

from agentchat.turn.rendering import message_event
from tests.support.wording import text


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_label_is_in_the_turn_s_language(language):
    with translation.override(language):
        event = message_event(message_id=1, text="…", ask_without_page="show the columns of regions")

    assert event.ask_without_page_label == text(language, "Ask without the page's context")
    assert event.wire()["ask_without_page_label"] == event.ask_without_page_label


def test_no_button_no_label():
    event = message_event(message_id=1, text="…")

    assert (event.ask_without_page, event.ask_without_page_label) == (None, None)
    assert "ask_without_page_label" not in event.wire()
