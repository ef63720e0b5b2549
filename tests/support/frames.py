"""The events a turn emits, as the socket would send them, and the answer it stored."""

from typing import Any

from agentchat.models import Message


class Frames(list):
    """An ``emit`` for ``AgentTurn`` / ``CallRunner``: awaits nothing, keeps each event's wire frame (a dict) in
    order; ``of(event)`` the frames of one event type."""

    async def __call__(self, event: Any) -> None:
        self.append(event.wire())

    def of(self, event: str) -> list[dict]:
        return [f for f in self if f.get("event") == event]


def stored_answer(conversation_id: int) -> str:
    """The text of the conversation's latest assistant message, as history shows it (sync: wrap it for async)."""
    return Message.objects.filter(conversation_id=conversation_id, role="assistant").latest("id").content
