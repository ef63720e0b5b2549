"""The ``@assistant_tool`` registry: what each tool is and does (behaviour is code; policy is in ``policies``).

The tool modules of ``agentchat.tools`` register themselves with the decorator when the app is ready
(``AgentchatConfig.ready``, Django's autodiscover pattern); nothing here imports a tool. DESIGN §8.
"""

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from agentchat.runtime.context import ToolContext
from agentchat.runtime.spec import Category, ToolResult, ToolSpec

_REGISTRY: dict[str, ToolSpec] = {}

ArgsT = TypeVar("ArgsT", bound=BaseModel)
ResultT = TypeVar("ResultT", bound=ToolResult)


def assistant_tool(
    *,
    name: str,
    category: Category,
    env_specific: bool,
    args: type[ArgsT],
    description_ru: str,
    description_en: str,
    examples_ru: list[str] | tuple[str, ...],
    examples_en: list[str] | tuple[str, ...],
    impact: Callable[[ToolContext, ArgsT], Awaitable[dict[str, Any]]] | None = None,
) -> Callable[[Callable[[ToolContext, ArgsT], Awaitable[ResultT]]], Callable[[ToolContext, ArgsT], Awaitable[ResultT]]]:
    """Register the decorated coroutine ``async def fn(ctx: ToolContext, args: <args>) -> dict | list`` as a tool;
    see ``ToolSpec`` for the arguments. The type checker holds ``fn`` and ``impact`` to the ``args`` model.

    Raises:
        ValueError: a tool of that name is already registered, the texts are missing, or ``args`` lets unknown
            names through (``spec.ToolArgs``: it must forbid them).
    """

    def register(
        func: Callable[[ToolContext, ArgsT], Awaitable[ResultT]],
    ) -> Callable[[ToolContext, ArgsT], Awaitable[ResultT]]:
        if name in _REGISTRY:
            raise ValueError(f"tool {name!r} registered twice")
        if not (description_ru and description_en and examples_ru and examples_en):
            raise ValueError(f"tool {name!r} needs ru/en descriptions and example questions")
        if args.model_config.get("extra") != "forbid":
            raise ValueError(f"tool {name!r}: its argument model must forbid unknown names (derive it from ToolArgs)")
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
