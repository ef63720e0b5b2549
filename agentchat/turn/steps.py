"""What one step of the agent loop ends in (STYLE "Shape of the loop"; the OpenAI Agents SDK's ``NextStep*``).

A step streams one LLM reply and handles its tool calls (DESIGN §5 steps 5–7). The loop in ``turn.agent``
dispatches on the result: ``RunAgain`` asks the LLM again, ``Final`` and ``AwaitingDecision`` end the loop. A turn
waiting on a card says so with ``AwaitingDecision``; nothing returns None to mean "waiting".
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Final:
    """The turn ended (DESIGN §5 step 8): the LLM answered with text, the model call failed, or the step limit
    was reached.

    Attributes:
        message_id: the assistant message shown last (its ``message`` event was sent); None when nothing was
            kept (the model failed before any text).
    """

    message_id: int | None


@dataclass(frozen=True)
class RunAgain:
    """Every tool call of the step has its ToolMessage in the messages: ask the LLM again."""


@dataclass(frozen=True)
class AwaitingDecision:
    """At least one tool call waits on a confirmation card; ``AgentTurn.decide`` continues the turn.

    Attributes:
        confirmation_ids: the cards this step put up (``PendingConfirmation`` ids); empty when the turn still
            waits on cards of an earlier step (one card of several was decided).
    """

    confirmation_ids: tuple[int, ...] = ()


Step = Final | RunAgain | AwaitingDecision
