"""Which model takes each step of a turn (issue 32): the configured one, or the offline planner leading it.

With ``LLM_FIRST_STEP=planner`` and ``LLM_PROVIDER=openai`` the offline planner (DESIGN §11) decides the calls of a
turn — the tool, and the arguments from the page, the question and earlier results — and the OpenAI-compatible
model writes the answers from the results. Measured behind a 1.5B local model (``bench/llm_eval.py --set day``,
README): the model alone picked the right first tool for 0.60 of a BI engineer's questions; a planner's call
carries no invented id or environment. The planner's own texts are kept where they are the whole answer — a
clarifying question, a refusal by role, page or environment, what no tool can tell — on the turn's first step, and
after results none of which succeeded (refused by a policy or a person, failed upstream: nothing to write an
answer from). The model takes the step where the planner would speak as itself, offline (it did not understand, it
writes no SQL to run: ``llm.offline.state.HAND_OVER``) — with the tools, as it does to repair its own refused call
(``turn.truth.REPAIRABLE``) — and to write every answer from a result, with no tool left to call.
``LLM_FIRST_STEP=model`` (the default) leaves every step to the model.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.runnables import Runnable

from agentchat.llm import model_for_turn
from agentchat.llm.offline.model import OfflinePlanner, knowledge_for, plan
from agentchat.llm.offline.state import HAND_OVER
from agentchat.toolset.selection import ToolChoice
from agentchat.turn.truth import REPAIRABLE, error_code, this_turn


class StepModels:
    """The models of one turn's steps.

    Args:
        model: the configured chat model (``llm.chat_model()`` or a test's).
        schemas: the offered tools as OpenAI function dicts.
        choices: every tool's policy verdict (``toolset.selection.ToolChoice``), for the planner's refusals.
        environments: ``[(env_id, tier)]`` active.
    """

    def __init__(
        self,
        model: BaseChatModel,
        *,
        schemas: Sequence[dict[str, Any]],
        choices: Sequence[ToolChoice],
        environments: list[tuple[str, str]],
    ):
        model = model_for_turn(model, choices=choices, environments=environments)
        self._schemas = list(schemas)
        self._bound: BaseChatModel | Runnable = model.bind_tools(self._schemas) if self._schemas else model
        self._truthful = isinstance(model, OfflinePlanner)
        self._planner: OfflinePlanner | None = None
        self._planned: set[str] = set()  # ids of the calls the planner made this turn
        if not self._truthful and settings.LLM_FIRST_STEP == "planner":
            self._knowledge = knowledge_for(choices=choices, environments=environments)
            self._planner = OfflinePlanner(knowledge=self._knowledge)
            # An answer once the planner has no call left: the tools stay described, none may be called (a 1.5B
            # model re-ran a finished count query until the step limit, day set d19).
            self._answering = model.bind_tools(self._schemas, tool_choice="none") if self._schemas else model

    async def for_step(self, messages: list[BaseMessage]) -> "StepModel":
        """The model for the next step of ``messages`` (system prompt, history, this turn's calls and results)."""
        if self._planner is None:
            return StepModel(self._bound, self._truthful)
        decided = await sync_to_async(plan)(messages, self._schemas, self._knowledge)
        self._planned.update(str(call["id"]) for call in decided.tool_calls)
        results = [m for m in this_turn(messages) if isinstance(m, ToolMessage)]
        if decided.tool_calls or self._planner_writes(results, decided):
            return StepModel(self._planner.model_copy(update={"decided": decided}), True)
        if results and not self._repairable(results[-1]):
            return StepModel(self._answering, False, str(decided.content))
        return StepModel(self._bound, False)  # the question handed over, or the model's own call to repair

    def _planner_writes(self, results: list[ToolMessage], decided: AIMessage) -> bool:
        """Whether the planner's text ``decided`` is the step, given this turn's ``results``: on the turn's first
        step unless it hands over (``HAND_OVER``); after results only when none succeeded and none is the model's
        to repair — refused by a policy or a person, failed upstream, or the planner's own call refused: nothing to
        write an answer from, and the planner's text says truthfully what happened."""
        if not results:
            return not decided.response_metadata.get(HAND_OVER)
        return all(m.status == "error" and not self._repairable(m) for m in results)

    def _repairable(self, result: ToolMessage) -> bool:
        """A call of the model's refused for its arguments (``turn.truth.REPAIRABLE``): the model repairs it; the
        planner's own refused call (a saved plan it contradicted) is not the model's to repair."""
        planned = result.tool_call_id in self._planned
        return result.status == "error" and not planned and error_code(result) in REPAIRABLE


@dataclass(frozen=True)
class StepModel:
    """The model of one step.

    Attributes:
        model: the chat model to stream, tools bound.
        truthful: the offline planner writes the step: its answers need no checking against the results
            (``turn.facts.model_inputs``).
        instead: on a step where the model is to answer with no tool, the planner's own answer, shown if the model
            writes a call anyway — structured despite ``tool_choice: none``, or as JSON text (a 1.5B model under
            llama.cpp wrote the finished count query again each step until the step limit;
            ``turn.streaming.reply_stream``); None on other steps.
    """

    model: BaseChatModel | Runnable
    truthful: bool
    instead: str | None = None
