"""The event stream read as bytes and split at line ends (issue 17, ``llm.streams._sse_lines``): whatever the
transport's chunks, every ``data:`` line is read once and whole — lines split over chunks, a UTF-8 character
split over two chunks, ``\\r\\n`` line ends (split too), comment and ``event:`` lines, and a last line without its
end — from a loopback server writing the body chunk by chunk."""

import asyncio
import json

import pytest
from langchain_core.messages import HumanMessage

from agentchat.llm import chat_model
from agentchat.llm.streams import ReplyStream


def _event(text: str, finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": {"content": text} if text else {}, "finish_reason": finish}
    data = {"id": "c", "object": "chat.completion.chunk", "model": "m", "choices": [choice]}
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\r\n\r\n"


def _body() -> bytes:
    return (
        b": a comment line\r\n"
        + b"event: message\r\n"
        + _event("Привет, ")
        + _event("мир — ")
        + _event("ünïcode")
        + _event("", finish="stop")
        + b"data: [DONE]"  # the last line without its end
    )


async def _serve(chunks: list[bytes]) -> tuple[asyncio.Server, int]:
    """An HTTP/1.0 server answering every request with ``chunks`` of an event stream, each written on its own."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
        )
        await reader.readexactly(length)
        writer.write(b"HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")
        for chunk in chunks:
            writer.write(chunk)
            await writer.drain()
            await asyncio.sleep(0.005)  # separate reads on the client
        writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


def _split(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


@pytest.mark.parametrize("size", [1, 3, 7, 64, 10_000], ids=lambda n: f"chunks of {n} bytes")
async def test_every_data_line_is_read_whole_whatever_the_chunks(settings, size):
    body = _body()
    assert any(b"\xd0" in part and not part.endswith(b"\r\n") for part in _split(body, 3))  # UTF-8 split somewhere
    server, port = await _serve(_split(body, size))
    settings.LLM_PROVIDER = "openai"
    settings.LLM_BASE_URL = f"http://127.0.0.1:{port}/v1"
    settings.LLM_API_KEY = "test-key"
    settings.LLM_MODEL = f"m-{size}"  # a model (and its HTTP client) per case: this test's event loop
    settings.LLM_TIMEOUT_S = 10
    try:
        stream = ReplyStream(chat_model(), [HumanMessage(content="hi")])
        pieces = [piece async for piece in stream]
    finally:
        server.close()
        await server.wait_closed()

    assert pieces == ["Привет, ", "мир — ", "ünïcode"]
    reply = stream.reply()
    assert reply is not None
    assert (reply.content, reply.response_metadata["finish_reason"]) == ("Привет, мир — ünïcode", "stop")
