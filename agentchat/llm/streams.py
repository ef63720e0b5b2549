"""One streamed model reply, parsed once (issue 17): the text deltas as they come, one merged message at the end.

For the ``openai`` provider (``ChatOpenAI``, DESIGN §11) the chat-completions request is sent on the SDK's own HTTP
client (``httpx2`` on the SDK's aiohttp transport: its connection pool, timeouts, proxy and TLS settings) as one POST,
and each ``data:`` line of the answer (its bytes, split at line ends: ``_sse_lines``) is decoded once with
``orjson.loads`` (13 µs a chunk with ``json.loads``, under 3 µs with orjson: 0.5 ms a 50-chunk answer). LangChain's path
builds an SDK model object, a ``ChatGenerationChunk`` and an ``AIMessageChunk`` per chunk and merges them; the SDK's own
request path walks the body against its TypedDicts, builds options, headers and URLs in several layers and wraps the
response — together most of the event loop's CPU per turn (``bench/turn_profile.py``). The body is the one
``ChatOpenAI`` itself sends (its ``_get_request_payload``: messages converted, bound tools, model, limits), with the
SDK's headers (its ``default_headers`` and ``auth_headers``), no retries and no redirects (DESIGN §10), so the
provider's contract and its errors stay: ``openai.APIStatusError`` (the SDK's own subclass per status, built by the SDK
from the response, also when its body is cut short), ``openai.APITimeoutError``, ``openai.APIConnectionError`` (no
connection, or it failed before the answer began; the transport names aiohttp's errors as httpx2's,
``llm.transport``), ``openai.APIError`` (an ``error`` event in the stream). A connection that breaks off
mid-answer ends the stream: the reply then has no ``finish_reason`` (``turn.reply.stream_incomplete``). Any other
model (the offline planner, scripted test models) is streamed through LangChain's ``astream`` as before.
"""

import functools
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import openai
import orjson
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.runnables import Runnable, RunnableBinding


class ReplyStream:
    """Iterate for the reply's text deltas (``str``); then ``reply()`` is the whole reply as one message.

    Args:
        model: the chat model of the turn, tools bound (a ``RunnableBinding``) or not.
        messages: the system prompt and the history.
    """

    def __init__(self, model: BaseChatModel | Runnable, messages: list[BaseMessage]):
        self._model = model
        self._messages = messages
        self._text: list[str] = []
        self._calls: dict[int, dict[str, Any]] = {}
        self._meta: dict[str, Any] = {}
        self._chunks: list[AIMessageChunk] = []
        self._parsed = False

    def __aiter__(self) -> AsyncIterator[str]:
        chat, kwargs = _openai_chat(self._model)
        if chat is None:
            return self._langchain()
        self._parsed = True
        return self._openai(chat, kwargs)

    def partial_text(self) -> str:
        """The text streamed so far (for a reply that broke off)."""
        if self._parsed:
            return "".join(self._text)
        return "".join(str(c.content) for c in self._chunks)

    def reply(self) -> AIMessageChunk | None:
        """The whole reply: text, ``tool_call_chunks`` merged per index, ``response_metadata`` with
        ``finish_reason`` and ``model_provider``; None for a LangChain stream that yielded nothing."""
        if not self._parsed:
            # One merge at the end: adding chunks one by one re-merges the growing message each time (O(n²)).
            return add_ai_message_chunks(self._chunks[0], *self._chunks[1:]) if self._chunks else None
        chunks = [{**call, "type": "tool_call_chunk"} for _, call in sorted(self._calls.items())]
        return AIMessageChunk(content="".join(self._text), tool_call_chunks=chunks, response_metadata={**self._meta})

    async def _langchain(self) -> AsyncIterator[str]:
        async for chunk in self._model.astream(self._messages):
            self._chunks.append(chunk)
            if chunk.content:
                yield str(chunk.content)

    async def _openai(self, chat: Any, kwargs: dict[str, Any]) -> AsyncIterator[str]:
        self._meta = {"model_provider": "openai", "finish_reason": None}
        payload = chat._get_request_payload(self._messages, **{**kwargs, "stream": True})
        client = chat.root_async_client  # openai.AsyncOpenAI: its HTTP client, URL, key and headers
        http: httpx2.AsyncClient = client._client  # the SDK's own pool (no public accessor)
        url, headers = _endpoint(client)
        request = http.build_request(
            "POST", url, content=orjson.dumps(payload), headers=headers, timeout=client.timeout
        )
        response = await _send(http, request)
        try:
            if response.status_code >= 400:
                raise await _status_error(client, response)
            async for text in self._lines(response, request):
                yield text
        finally:
            await response.aclose()

    async def _lines(self, response: httpx2.Response, request: httpx2.Request) -> AsyncIterator[str]:
        """The text deltas of the ``data:`` lines until ``[DONE]``; the body is read to its end (what follows
        ``[DONE]`` is only the chunked terminator), so the connection goes back to the pool instead of being
        closed unread (a new TCP connection per call otherwise)."""
        done = False
        try:
            async for line in _sse_lines(response):
                if done or not line.startswith(b"data:"):
                    continue  # blank separators, ``event:`` and ``:`` comment lines
                data = line[5:].strip()
                if data == b"[DONE]":
                    done = True
                    continue
                text = self._chunk(orjson.loads(data), request)
                if text:
                    yield text
        except httpx2.TimeoutException as exc:
            if not done:
                raise openai.APITimeoutError(request=request) from exc
        except httpx2.TransportError:
            return  # broke off: before [DONE] with no finish_reason the reply is incomplete (turn.reply)

    def _chunk(self, data: dict[str, Any], request: httpx2.Request) -> str:
        """Fold one chunk into the reply; return its text delta."""
        if data.get("error"):  # what the SDK raises for an error event in the stream
            error = data["error"]
            message = error.get("message") if isinstance(error, dict) else str(error)
            raise openai.APIError(message or "error in the stream", request, body=error)
        self._meta.setdefault("model_name", data.get("model"))
        text = ""
        for choice in data.get("choices") or ():
            delta = choice.get("delta") or {}
            text += delta.get("content") or ""
            for call in delta.get("tool_calls") or ():
                self._call_delta(call)
            if choice.get("finish_reason"):
                self._meta["finish_reason"] = choice["finish_reason"]
        if text:
            self._text.append(text)
        return text

    def _call_delta(self, call: dict[str, Any]) -> None:
        """Merge one tool-call delta as LangChain merges chunks of one index: id kept, name and args joined."""
        index = call.get("index") or 0
        entry = self._calls.setdefault(index, {"index": index, "id": None, "name": None, "args": ""})
        if call.get("id") and not entry["id"]:
            entry["id"] = call["id"]
        function = call.get("function") or {}
        if function.get("name"):
            entry["name"] = (entry["name"] or "") + function["name"]
        entry["args"] += function.get("arguments") or ""


async def _sse_lines(response: httpx2.Response) -> AsyncIterator[bytes]:
    """The lines of an event stream's body as bytes, without their ends (``\\n``, ``\\r\\n`` or ``\\r``: the
    SSE line ends), the body decoded (``Content-Encoding``) but not as text: ``orjson.loads`` reads UTF-8 bytes, and
    a line end never falls inside a UTF-8 character. Measured against httpx's ``aiter_lines`` (text decoder and line
    decoder per chunk): 0.5 ms less event-loop CPU for a 50-chunk answer (issue 17)."""
    rest = b""
    async for chunk in response.aiter_bytes():
        lines = (rest + chunk).splitlines(keepends=True)
        rest = lines.pop() if lines and not lines[-1].endswith((b"\n", b"\r")) else b""
        for line in lines:
            yield line.rstrip(b"\r\n")  # a \r\n split over two chunks gives one more blank line: ignored above
    if rest:
        yield rest


async def _send(http: httpx2.AsyncClient, request: httpx2.Request) -> httpx2.Response:
    """Send ``request`` and return the streaming response (status not checked); failures as the SDK raises them:
    ``openai.APITimeoutError`` for a timeout, ``openai.APIConnectionError`` for any other transport failure."""
    try:
        return await http.send(request, stream=True, follow_redirects=False)
    except httpx2.TimeoutException as exc:
        raise openai.APITimeoutError(request=request) from exc
    except httpx2.TransportError as exc:
        raise openai.APIConnectionError(request=request) from exc


async def _status_error(client: openai.AsyncOpenAI, response: httpx2.Response) -> openai.APIStatusError:
    """The SDK's error for an answer with an error status (its own class per status: ``RateLimitError`` for 429,
    …), built from the error body; a body that breaks off or times out before its end (a proxy dropping the
    connection) still names the status, which is what the user's message says (``turn.reply.llm_failure_text``)."""
    try:
        await response.aread()
    except httpx2.TransportError:
        return client._make_status_error(f"Error code: {response.status_code}", body=None, response=response)
    return client._make_status_error_from_response(response)


@functools.lru_cache(maxsize=8)
def _endpoint(client: openai.AsyncOpenAI) -> tuple[str, dict[str, str]]:
    """The chat-completions URL of ``client`` and the headers the SDK sends with it: its defaults (user agent,
    platform, the model's ``default_headers``; unset ones left out) and its authorization. Kept per client (one per
    configuration, ``llm._openai_model``): the key and the URL of a client never change."""
    headers = {k: v for k, v in client.default_headers.items() if isinstance(v, str)}
    return str(client.base_url.join("chat/completions")), {**headers, **client.auth_headers}


def _openai_chat(model: BaseChatModel | Runnable) -> tuple[Any, dict[str, Any]]:
    """``(ChatOpenAI, bound kwargs such as tools)`` when ``model`` is the ``openai`` provider, else ``(None, {})``."""
    from langchain_openai import ChatOpenAI  # noqa: PLC0415 - the provider is imported already when a ChatOpenAI exists

    kwargs: dict[str, Any] = {}
    if isinstance(model, RunnableBinding):
        kwargs = dict(model.kwargs)
        model = model.bound
    return (model, kwargs) if isinstance(model, ChatOpenAI) else (None, {})
