"""The ``@assistant_tool`` registry: what each tool is and does (behaviour is code; policy is in ``policies``).

A tool is an ``async def fn(ctx: ToolContext, args: ArgsModel) -> dict | list`` registered with its category,
whether it needs an environment, a pydantic argument schema and ru/en texts. DESIGN §8.
"""

import copy
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

Category = Literal["read", "write", "dangerous"]
ToolFunc = Callable[[Any, BaseModel], Awaitable[Any]]
# impact(ctx, args) -> {"summary_ru": str, "summary_en": str, "objects": [{"type", "name", "action"}], ...}
ImpactFunc = Callable[[Any, BaseModel], Awaitable[dict[str, Any]]]


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
        """Return the description in ``language`` (``ru``/``en``)."""
        return self.description_ru if language == "ru" else self.description_en

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


_REGISTRY: dict[str, ToolSpec] = {}


def assistant_tool(
    *,
    name: str,
    category: Category,
    env_specific: bool,
    args: type[BaseModel],
    description_ru: str,
    description_en: str,
    examples_ru: list[str] | tuple[str, ...],
    examples_en: list[str] | tuple[str, ...],
    impact: ImpactFunc | None = None,
) -> Callable[[ToolFunc], ToolFunc]:
    """Register the decorated coroutine as a tool; see ``ToolSpec`` for the arguments.

    Raises:
        ValueError: a tool of that name is already registered, or the texts are missing.
    """

    def register(func: ToolFunc) -> ToolFunc:
        if name in _REGISTRY:
            raise ValueError(f"tool {name!r} registered twice")
        if not (description_ru and description_en and examples_ru and examples_en):
            raise ValueError(f"tool {name!r} needs ru/en descriptions and example questions")
        _REGISTRY[name] = ToolSpec(
            name=name,
            category=category,
            env_specific=env_specific,
            args_schema=args,
            description_ru=description_ru,
            description_en=description_en,
            examples_ru=tuple(examples_ru),
            examples_en=tuple(examples_en),
            func=func,
            impact=impact,
        )
        return func

    return register


def registry() -> dict[str, ToolSpec]:
    """Return every registered tool by name (the tool modules register themselves when the app is ready,
    ``AgentchatConfig.ready``)."""
    return dict(_REGISTRY)


def tool_spec(name: str) -> ToolSpec | None:
    """Return the registered tool ``name`` or None."""
    return registry().get(name)
