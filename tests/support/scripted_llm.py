"""A scripted LangChain chat model for agent-loop tests (STYLE: GenericFakeChatModel with a ``bind_tools``).

Each model call consumes the next scripted ``AIMessage`` (or string); tool calls are streamed as
``tool_call_chunks`` like a real provider does. The model records what the agent offered and sent it.
"""

import json
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk
from pydantic import Field


class ScriptedChatModel(GenericFakeChatModel):
    """Plays ``messages`` in order, one per model call.

    Attributes:
        bound: the tool names offered by each ``bind_tools`` call (one per turn), in order.
        seen: the messages the agent sent on each model call.
    """

    bound: list[list[str]] = Field(default_factory=list)
    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: list[dict[str, Any]], **kwargs: Any) -> "ScriptedChatModel":
        """Record the offered tool names (OpenAI schema form) and return the model itself."""
        self.bound.append([tool["function"]["name"] for tool in tools])
        return self

    def _stream(self, messages: list[BaseMessage], stop=None, run_manager=None, **kwargs) -> Iterator:
        self.seen.append(list(messages))
        message = next(self.messages)
        message = AIMessage(content=message) if isinstance(message, str) else message
        if message.content:
            yield ChatGenerationChunk(message=AIMessageChunk(content=message.content))
        if message.tool_calls:
            chunks = [
                {"name": call["name"], "args": json.dumps(call["args"]), "id": call["id"], "index": index}
                for index, call in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content="", tool_call_chunks=chunks))


def tool_calls_message(calls: list[tuple[str, dict[str, Any]]], *, prefix: str = "call") -> AIMessage:
    """An assistant message calling ``calls`` (``[(tool_name, args)]``) in parallel, ids ``<prefix>_<n>``."""
    return AIMessage(
        content="",
        tool_calls=[{"name": name, "args": args, "id": f"{prefix}_{n}"} for n, (name, args) in enumerate(calls)],
    )


def scripted(*replies: AIMessage | str) -> ScriptedChatModel:
    """A model that plays ``replies`` in order."""
    return ScriptedChatModel(messages=iter(replies))
