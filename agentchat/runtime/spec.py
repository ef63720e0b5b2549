"""What a tool is (DESIGN §8): ``ToolSpec``, a leaf type that every layer may import without importing a tool.

A tool is an ``async def fn(ctx: ToolContext, args: ArgsModel) -> dict | list`` registered with its category,
whether it needs an environment, a pydantic argument schema and ru/en texts (``runtime.registry``).
"""

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

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


class ToolArgs(BaseModel):
    """The base of every tool's argument model: a name the model does not declare is an error, never dropped.

    Pydantic ignores unknown keys by default, so ``get_health_summary {"slug": "energy-report"}`` on the page of
    dashboard 2 validated as no arguments and ran on the page's dashboard (issue 16, second review). With
    ``extra="forbid"`` every validation of a call (the turn's, the executor's for an approved card or a page)
    refuses it; a model's ``ConfigDict(populate_by_name=True)`` is merged with this one, so an alias (``schema``)
    and its field name (``schema_name``) are both accepted. ``assistant_tool`` registers no other model.
    """

    model_config = ConfigDict(extra="forbid")


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

    @property
    def argument_names(self) -> tuple[str, ...]:
        """The tool's argument names as its schema shows them to the model (a field's alias where it has one:
        ``schema``, not ``schema_name``), in the model's field order."""
        return tuple(info.alias or name for name, info in self.args_schema.model_fields.items())

    def description(self, language: str = "en") -> str:
        """Return the description in ``language``: the Russian text for ``ru``, the English one otherwise (data
        the LLM and admins read, not a message of the catalogue)."""
        return getattr(self, f"description_{language}", self.description_en)

    def openai_schema(self, page: dict[str, Any] | None = None) -> dict[str, Any]:
        """Return the tool in OpenAI function-calling form (``{"type": "function", "function": {...}}``).

        Args:
            page: the arguments the page supplies (``runtime.binding.page_bound``: ``{"dashboard_id": 3}``): they
                leave ``required`` and become ``{"type": …, "default": <the page's value>}`` (the system prompt
                says ids the page gives may be omitted) — the server fills them from the validated context
                (issue 16, seed SC-001).

        As small as it can be without losing meaning (issue 16: every character is prompt processing on a CPU
        server): the English description only (the instructions are English and name the answer language; the
        Russian text serves the router and the capabilities list), and a minimal parameter schema
        (``_minimal``): names, types, enums, defaults, descriptions and what is required. Limits such as
        ``maxLength`` are left out: the executor validates every call against ``args_schema`` and returns the
        error to the model.
        """
        # Copied on write, not deep-copied (issue 17: a deep copy of every offered schema was ~10% of a turn's
        # event-loop CPU): the dicts changed here are new, the rest is the cached schema, which nothing mutates.
        parameters = dict(_parameters_schema(self.args_schema))
        properties = parameters.get("properties", {})
        for name, value in (page or {}).items():
            prop = properties.get(name)
            if prop is None:
                continue
            # The page's value becomes the argument's JSON Schema ``default`` (what is used when it is omitted) and
            # replaces its description: its meaning is in its name and the tool's description, and the sentence
            # "Omit to use the page's dashboard (3)." cost ten tokens per argument, five arguments per tool.
            properties = parameters["properties"] = {
                **properties,
                name: {"type": prop.get("type", "string"), "default": value},
            }
            parameters["required"] = [r for r in parameters.get("required", []) if r != name]
            if not parameters["required"]:
                parameters.pop("required")
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description_en, "parameters": parameters},
        }


@functools.cache
def _parameters_schema(args_schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of an argument model, built once per model (pydantic builds it anew on every call and every
    turn offers several tools)."""
    parameters: dict[str, Any] = _minimal(args_schema.model_json_schema())
    return parameters


# Validation limits and labels an LLM does not need to choose a call (pydantic checks them on the call).
_LEFT_OUT = frozenset({"title", "minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"})


def _minimal(schema: Any) -> Any:
    """``schema`` without titles and limits; an optional ``anyOf [X, null]`` with ``default: null`` becomes X
    (it is optional because it is not in ``required``)."""
    if isinstance(schema, list):
        return [_minimal(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _minimal(v) for k, v in schema.items() if k not in _LEFT_OUT}
    if "properties" in schema:  # property names are data, not schema keywords: keep every one
        out["properties"] = {name: _minimal(prop) for name, prop in schema["properties"].items()}
    options = out.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(options):
            out.pop("anyOf")
            out = {**kept[0], **out}
    if "default" in out and out["default"] is None:
        out.pop("default")
    return out
