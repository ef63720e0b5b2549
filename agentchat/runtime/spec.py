"""What a tool is (DESIGN §8): ``ToolSpec``, a leaf type that every layer may import without importing a tool.

A tool is an ``async def fn(ctx: ToolContext, args: ArgsModel) -> dict | list`` registered with its category,
whether it needs an environment, a pydantic argument schema and ru/en texts (``runtime.registry``).
"""

import copy
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

if TYPE_CHECKING:  # a type-only import: ``runtime.context`` imports this module (ToolContext.toolset)
    from agentchat.runtime.context import ToolContext

Category = Literal["read", "write", "dangerous"]
# What a tool returns: a JSON-able object or list (the executor summarises it for the LLM, DESIGN §10).
ToolResult = dict[str, Any] | list[Any]
# A registered tool as the executor calls it. The arguments are ``Any`` here because each tool takes its own
# ``args_schema`` model; ``assistant_tool`` checks that the decorated function takes that model.
ToolFunc = Callable[["ToolContext", Any], Awaitable[ToolResult]]
# impact(ctx, args) -> {"summary": str (in the active language), "objects": [{"type", "name", "action"}], ...}
ImpactFunc = Callable[["ToolContext", Any], Awaitable[dict[str, Any]]]


@dataclass(frozen=True)
class ToolSpec:
    """One registered tool.

    Attributes:
        name: unique snake_case name, as the LLM calls it.
        category: ``read`` (no state change), ``write`` or ``dangerous`` (DESIGN §8).
        env_specific: needs an ``env_id`` argument naming an environment.
        args_schema: pydantic model of the arguments; field descriptions go to the LLM.
        description_ru / description_en: one-paragraph descriptions.
        examples_ru / examples_en: questions users ask that this tool answers (≥ 3 each).
        func: the coroutine doing the work.
        impact: for write/dangerous tools, a read-only coroutine that looks up what the call would change
            (shown on the confirmation card before anything runs, DESIGN §9); None when not applicable.
    """

    name: str
    category: Category
    env_specific: bool
    args_schema: type[BaseModel]
    description_ru: str
    description_en: str
    examples_ru: tuple[str, ...]
    examples_en: tuple[str, ...]
    func: ToolFunc = field(compare=False)
    impact: ImpactFunc | None = field(default=None, compare=False)

    @property
    def target_env_arg(self) -> str | None:
        """Name of the argument naming the environment the call acts on (``target_env_id`` or ``env_id``)."""
        fields = self.args_schema.model_fields
        for name in ("target_env_id", "env_id"):
            if name in fields:
                return name
        return None

    def description(self, language: str = "en") -> str:
        """Return the description in ``language``: the Russian text for ``ru``, the English one otherwise (data
        the LLM and admins read, not a message of the catalogue)."""
        return getattr(self, f"description_{language}", self.description_en)

    def openai_schema(self) -> dict[str, Any]:
        """Return the tool in OpenAI function-calling form (``{"type": "function", "function": {...}}``)."""
        parameters = copy.deepcopy(_parameters_schema(self.args_schema))
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": f"{self.description_en} / {self.description_ru}",
                "parameters": parameters,
            },
        }


@functools.cache
def _parameters_schema(args_schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of an argument model, built once per model (pydantic builds it anew on every call and every
    turn offers several tools)."""
    parameters = args_schema.model_json_schema()
    parameters.pop("title", None)
    return parameters
