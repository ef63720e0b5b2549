"""The events a turn emits, as the socket would send them."""

from typing import Any


class Frames(list):
    """An ``emit`` for ``AgentTurn`` / ``CallRunner``: awaits nothing, keeps each event's wire frame (a dict) in
    order; ``of(event)`` the frames of one event type."""

    async def __call__(self, event: Any) -> None:
        self.append(event.wire())

    def of(self, event: str) -> list[dict]:
        return [f for f in self if f.get("event") == event]
