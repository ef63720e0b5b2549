"""The language of a turn (DESIGN §5): a follow-up that says nothing of its writer's language («prod», "ss-dev",
the answer to the assistant's «В какое окружение?») keeps the conversation's, for the model's instructions and
everything the turn says; a message in words decides it as before."""

import pytest

from agentchat.language import conversation_language, says_language
from agentchat.turn.agent import AgentTurn
from tests.support.scripted_llm import scripted

RUSSIAN = "write your answers in Russian"
ENGLISH = "write your answers in English"


class Frames(list):
    async def __call__(self, event):
        self.append(event.wire())


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
