"""The language of a turn (DESIGN §5): a follow-up that says nothing of its writer's language («prod», "ss-dev",
the answer to the assistant's «В какое окружение?») keeps the conversation's, for the model's instructions and
everything the turn says; a message in words decides it as before."""

import pytest

from agentchat.language import conversation_language, says_language
from agentchat.turn.agent import AgentTurn
from agentchat.turn.refusals import busy_audit
from tests.support.frames import Frames
from tests.support.scripted_llm import scripted

RUSSIAN = "write your answers in Russian"
ENGLISH = "write your answers in English"


@pytest.mark.parametrize(
    ("message", "says"),
    [("prod", False), ("ss-dev", False), ("«energy_consumption»", False), ("в prod", True), ("to prod", True)],
)
def test_a_lone_latin_word_or_a_name_says_nothing_of_the_language(message, says):
    assert says_language(message) is says


@pytest.mark.parametrize(
    ("messages", "language"),
    [
        (["перенеси дашборды 1 и 2", "prod"], "ru"),
        (["move dashboards 1 and 2", "ss-dev"], "en"),
        (["move dashboards 1 and 2", "в prod"], "ru"),
        (["перенеси дашборды 1 и 2", "now to prod please"], "en"),
        (["prod"], "en"),
        ([], "ru"),
    ],
)
def test_the_conversation_s_language_is_its_latest_message_in_words(messages, language):
    assert conversation_language(messages) == language


@pytest.mark.parametrize(
    ("messages", "page", "language"),
    [
        (["prod"], "ru", "ru"),
        (["prod"], "en", "en"),
        (["show my dashboards"], "ru", "en"),
        (["мои дашборды"], "en", "ru"),
    ],
)
def test_a_conversation_that_says_nothing_of_its_language_speaks_the_page_s(messages, page, language):
    assert conversation_language(messages, default=page) == language


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("page", "named", "busy"), [("ru", RUSSIAN, "Сервер перегружен"), ("en", ENGLISH, "overloaded")]
)
async def test_a_first_message_that_says_nothing_speaks_the_page_s_language(users, page, named, busy):
    """«prod» as a conversation's first message, or refused ``busy``: the page's language (the socket's), not
    English for its Latin letters."""
    model = scripted("Хорошо.")
    frames = Frames()
    turn = AgentTurn(user=users["analyst"], emit=frames, model=model, language=page)
    await turn.run(conversation_id=None, text="prod", context=None)
    await turn.refuse_busy(conversation_id=None, text="prod", context=None)
    await busy_audit.flush()
    await busy_audit.close_connection()

    assert named in str(model.seen[-1][0].content)
    assert busy in frames[-1]["message"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("question", "answer", "named"),
    [("перенеси дашборды 1 и 2", "prod", RUSSIAN), ("move dashboards 1 and 2", "ss-dev", ENGLISH)],
)
async def test_a_one_word_follow_up_keeps_the_conversation_s_language(users, question, answer, named):
    model = scripted("В какое окружение?", "Хорошо.")
    user = users["analyst"]
    conversation_id = await AgentTurn(user=user, emit=Frames(), model=model).run(
        conversation_id=None, text=question, context=None
    )
    await AgentTurn(user=user, emit=Frames(), model=model).run(
        conversation_id=conversation_id, text=answer, context=None
    )
    prompt = str(model.seen[-1][0].content)
    assert named in prompt
