"""One streamed model reply, parsed once (issue 17): the text deltas as they come, one merged message at the end.

For the ``openai`` provider (``ChatOpenAI``, DESIGN §11) the chat-completions stream is read through the OpenAI
SDK's raw streaming response and each ``data:`` line is decoded once with ``json.loads``: LangChain's path builds an
SDK model object, a ``ChatGenerationChunk`` and an ``AIMessageChunk`` per chunk and merges them, which was most of
a turn's CPU (``bench/turn_profile.py``). The request is the one ``ChatOpenAI`` itself sends (its
``_get_request_payload``: messages converted, bound tools, model, limits) on its own client (timeouts, no
retries), so the provider's contract and its errors stay: ``openai.APIError`` (status, connection, an ``error``
event in the stream) and ``httpx.TransportError`` (the stream broke off). Any other model (the offline planner,
scripted test models) is streamed through LangChain's ``astream`` as before.
"""

import json
from collections.abc import AsyncIterator
from typing import Any

import openai
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
        create = chat.root_async_client.chat.completions.with_streaming_response.create
        # The body goes as ``extra_body``, sent as it is: the SDK's own parameters are walked against its TypedDicts
        # first (``async_maybe_transform``: a third of the event loop's CPU per turn for a long history and ~20 tool
        # schemas, issue 17) although the payload is already the wire format (LangChain built it). Same request,
        # same client, same errors.
        body = {k: v for k, v in payload.items() if k not in ("model", "stream")}
        async with create(model=payload["model"], messages=[], stream=True, extra_body=body) as response:
            async for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue  # blank separators, ``event:`` and ``:`` comment lines
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                text = self._chunk(json.loads(data), response)
                if text:
                    yield text

    def _chunk(self, data: dict[str, Any], response: Any) -> str:
        """Fold one chunk into the reply; return its text delta."""
        if data.get("error"):  # what the SDK raises for an error event in the stream
            error = data["error"]
            message = error.get("message") if isinstance(error, dict) else str(error)
            raise openai.APIError(message or "error in the stream", response.http_request, body=error)
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


def _openai_chat(model: BaseChatModel | Runnable) -> tuple[Any, dict[str, Any]]:
    """``(ChatOpenAI, bound kwargs such as tools)`` when ``model`` is the ``openai`` provider, else ``(None, {})``."""
    from langchain_openai import ChatOpenAI  # noqa: PLC0415 - the provider is imported already when a ChatOpenAI exists

    kwargs: dict[str, Any] = {}
    if isinstance(model, RunnableBinding):
        kwargs = dict(model.kwargs)
        model = model.bound
    return (model, kwargs) if isinstance(model, ChatOpenAI) else (None, {})
