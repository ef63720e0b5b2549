"""What the ``openai`` provider's HTTP client raises when the model's server fails (DESIGN §10, §11; issue 17).

Besides ``ReplyStream`` (a turn, ``tests/llm/test_provider.py``), the SDK's own request path sends requests on the
same client: ``ainvoke`` of an LLM review (``review.llm``), whose failure is named in the review's summary
(«The LLM gave no usable answer (…)»). On the SDK's aiohttp transport a connection that cannot be made must still
read as a connection error, not as a timeout; only a server that does not answer in ``LLM_TIMEOUT_S`` times out.
Real loopback servers: a free port (refused), a name that does not resolve, a socket that accepts and closes, a
socket that accepts and never answers.
"""

import asyncio
import socket
import threading
from collections.abc import Callable, Iterator

import openai
import pytest
from langchain_core.messages import HumanMessage

from agentchat.llm import chat_model
from agentchat.review.llm import ReviewLLMError, llm_validation


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _Socket:
    """A loopback TCP server that reads each request's head, then closes the connection unanswered (``close``) or
    holds it open without a byte (``hold``) until the test ends."""

    def __init__(self, kind: str):
        self._kind = kind
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"
        self._stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            head = b""
            while b"\r\n\r\n" not in head and (piece := conn.recv(65536)):
                head += piece
            if self._kind == "hold":
                self._stop.wait(30)

    def close(self) -> None:
        self._stop.set()
        self._listener.close()


@pytest.fixture
def openai_at(settings) -> Callable[[str], None]:
    """Point ``LLM_PROVIDER=openai`` (timeout 1 s) at a base URL."""

    def point(url: str) -> None:
        settings.LLM_PROVIDER = "openai"
        settings.LLM_BASE_URL = url
        settings.LLM_API_KEY = "test-key"
        settings.LLM_MODEL = "m"
        settings.LLM_TIMEOUT_S = 1

    return point


@pytest.fixture
def sockets() -> Iterator[Callable[[str], _Socket]]:
    started: list[_Socket] = []

    def start(kind: str) -> _Socket:
        server = _Socket(kind)
        started.append(server)
        return server

    yield start
    for server in started:
        server.close()


def _ainvoke_error() -> BaseException:
    async def call() -> BaseException:
        try:
            await chat_model().ainvoke([HumanMessage(content="hi")])
        except Exception as exc:  # noqa: BLE001 - the error is the subject
            return exc
        raise AssertionError("the call succeeded")

    return asyncio.run(call())


@pytest.mark.parametrize("where", ["refused", "unresolvable", "closed"])
def test_a_connection_that_cannot_be_made_is_a_connection_error_not_a_timeout(openai_at, sockets, where):
    """A refused port, a host name that does not resolve and a server that closes before answering: the SDK's
    ``APIConnectionError`` (before the aiohttp transport: the same), never ``APITimeoutError``."""
    url = {
        "refused": lambda: f"http://127.0.0.1:{_free_port()}/v1",
        "unresolvable": lambda: "http://nonexistent.invalid:9/v1",
        "closed": lambda: sockets("close").url,
    }[where]()
    openai_at(url)

    error = _ainvoke_error()

    assert isinstance(error, openai.APIConnectionError)
    assert not isinstance(error, openai.APITimeoutError)


def test_a_server_that_never_answers_times_out(openai_at, sockets):
    openai_at(sockets("hold").url)

    error = _ainvoke_error()

    assert isinstance(error, openai.APITimeoutError)


def test_the_review_names_a_refused_connection_as_a_connection_error(openai_at):
    """The review's fallback note quotes the error: «Connection error», not «Request timed out»."""
    openai_at(f"http://127.0.0.1:{_free_port()}/v1")

    async def review() -> str:
        with pytest.raises(ReviewLLMError) as raised:
            await llm_validation({"dashboard": {"title": "Energy"}}, "en", findings_language="en")
        return str(raised.value)

    detail = asyncio.run(review())

    assert "Connection error" in detail
    assert "timed out" not in detail
