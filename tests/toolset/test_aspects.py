"""What no tool returns is part of the reading (issue 29 item 1): the aspects of ``agentchat/toolset/aspects.yaml``
are read in their own examples, have words for people in both languages, and are never read in a question of the
tuned question sets that a tool answers (those sets are not blind: the blind ones are counted by bench/router.py)."""

import pytest
from django.utils import translation

from agentchat.llm.offline.aspect_texts import ASPECT_TITLES, cannot_text
from agentchat.toolset.aspects import UNHEARD, asked_aspect, aspects, unheard_aspect, unheard_focus
from agentchat.toolset.reading import read_question
from tests.support.question_set import PATH, QUESTION_SETS, load_questions

TUNED_SETS = [PATH, *(qs.path for qs in QUESTION_SETS if not qs.blind)]


@pytest.mark.parametrize("aspect", aspects(), ids=lambda a: a.name)
def test_every_aspect_is_read_in_its_examples_and_has_words_for_people(aspect):
    assert aspect.examples
    assert [e for e in aspect.examples if getattr(asked_aspect(e), "name", None) != aspect.name] == []
    assert aspect.name in ASPECT_TITLES
    with translation.override("en"):
        english = str(ASPECT_TITLES[aspect.name])
    with translation.override("ru"):
        assert str(ASPECT_TITLES[aspect.name]) != english  # translated


def test_no_question_a_tool_answers_in_the_tuned_sets_is_read_as_an_aspect():
    served = [q for path in TUNED_SETS for q in load_questions(path) if q.tools]

    assert [q.q for q in served if asked_aspect(q.q)] == []


def test_the_reading_records_the_aspect_and_quoted_names_name_none():
    assert read_question("кто смотрел этот дашборд за последнюю неделю?").aspect == "views"
    assert read_question("Create a weekly email report of this dashboard").aspect == "schedule"
    assert read_question("закоммить его с сообщением «новые цвета»").aspect == ""  # a commit message, not colours
    assert read_question("создай ветку fix/labels").aspect == ""  # a branch's name
    assert read_question("расскажи про этот дашборд").aspect == ""


def test_a_word_no_tool_was_asked_about_is_caught_but_not_a_known_one():
    assert unheard_focus("what is the refresh cadence of this dashboard?") == "refresh"
    assert unheard_focus("какие графики на этом дашборде?") is None  # an object's noun
    assert unheard_focus("кто владелец этого дашборда?") is None  # heard: the summary's owners
    assert unheard_focus("select count(*) from regions — what does it return?") is None  # SQL


def test_the_sentence_says_it_cannot_in_the_asked_language():
    views = next(a for a in aspects() if a.name == "views")

    assert (
        cannot_text(views, "en")
        == "I cannot answer that: none of my tools returns view logs (who opened it, how often)."
    )
    assert cannot_text(views, "ru").startswith("На это я ответить не могу")
    assert (
        cannot_text(unheard_aspect("cadence"), "en")
        == "If you are asking about “cadence”: none of my tools returns that."
    )
    assert unheard_aspect("cadence").name == UNHEARD
