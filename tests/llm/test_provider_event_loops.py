"""One ``ChatOpenAI`` per configuration serves event loop after event loop (DESIGN §11; issue 17).

The process keeps one chat model per configuration (``agentchat.llm``), but not every caller shares one event
loop: daphne runs one, while each background job of ``db_worker`` (an LLM review) runs its coroutine in a loop of
its own. A connection kept alive in the pool of a finished loop must never be handed to the next one.
"""

import asyncio

import pytest
from langchain_core.messages import HumanMessage

from agentchat.llm import chat_model
from agentchat.llm.streams import ReplyStream
from tests.support.chat_server import ChatServer, Reply


@pytest.fixture
def kept_alive(settings):
    """A keep-alive scripted server answering «first», «second», … with ``LLM_PROVIDER=openai`` pointed at it."""
    answers = ["first", "second", "third", "fourth"]
    with ChatServer(*(Reply(text=a) for a in answers), keep_alive=True) as server:
        settings.LLM_PROVIDER = "openai"
        settings.LLM_BASE_URL = server.url
        settings.LLM_API_KEY = "test-key"
        settings.LLM_MODEL = server.model
        settings.LLM_TIMEOUT_S = 10
        yield server


async def _invoke() -> str:
    """What an LLM review job does: one ``ainvoke`` of the configured model."""
    return str((await chat_model().ainvoke([HumanMessage(content="hi")])).content)


async def _stream() -> str:
    """What a turn does: one streamed reply parsed by ``ReplyStream``."""
    return "".join([piece async for piece in ReplyStream(chat_model(), [HumanMessage(content="hi")])])


@pytest.mark.parametrize("call", [_invoke, _stream], ids=["ainvoke", "stream"])
def test_each_event_loop_gets_an_answer_from_the_shared_model(kept_alive, call):
    """Two calls, each in its own event loop (as two background jobs), both answered, on one model object."""
    answers = [asyncio.run(call()), asyncio.run(call())]

    assert answers == ["first", "second"]
    assert len(kept_alive.requests) == 2


def test_a_loop_keeps_reusing_its_connection(kept_alive):
    """Within one event loop (daphne's) calls still share the model and its connection pool."""

    async def twice() -> list[str]:
        return [await _stream(), await _stream()]

    assert asyncio.run(twice()) == ["first", "second"]
    assert chat_model() is chat_model()


def test_a_finished_loop_closes_the_http_client_it_opened(kept_alive):
    """The aiohttp session of a background job's loop is closed in that loop when it ends (no «Unclosed client
    session» at collection); daphne's loop, still running, keeps its client open."""

    async def stream_keeping_the_model():
        model = chat_model()
        text = await _stream()
        return model, text, model.http_async_client.is_closed

    model, text, closed_while_running = asyncio.run(stream_keeping_the_model())

    assert text == "first"
    assert closed_while_running is False
    assert model.http_async_client.is_closed
