"""A strict checker of the OpenAI chat-completions history rule used by every OpenAI-compatible server.

Rule: each assistant message with ``tool_calls`` is followed, before any other message, by exactly one tool
message per call id; tool messages appear nowhere else.
"""

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage


def history_errors(messages: list[BaseMessage]) -> list[str]:
    """Return the violations of the rule in ``messages`` (empty when valid)."""
    errors: list[str] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        if isinstance(message, ToolMessage):
            errors.append(f"message {i}: tool message {message.tool_call_id} without its assistant message")
            i += 1
            continue
        i += 1
        if not (isinstance(message, AIMessage) and message.tool_calls):
            continue
        expected = [call["id"] for call in message.tool_calls]
        if len(set(expected)) != len(expected):
            errors.append(f"message {i - 1}: duplicate tool call ids {expected}")
        answered: list[str] = []
        while i < len(messages) and isinstance(messages[i], ToolMessage):
            answered.append(messages[i].tool_call_id)
            i += 1
        if sorted(answered) != sorted(expected):
            errors.append(f"message {i}: calls {sorted(expected)} answered by {sorted(answered)}")
    return errors
