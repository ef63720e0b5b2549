"""Context-bound arguments (issue 16; seed SC-001, DESIGN §7): where the page names the object, the model may
leave its id out, the server fills it from the validated UIContext, and the result names the object used.

- ``page_bound``: the arguments of a tool the page supplies — ``env_id`` (or ``source_env_id``, except for the
  migration tools, whose saved plan names the environments: ``runtime.plans``) from ``envId``,
  ``dashboard_id`` on a dashboard page and ``dataset_id`` on a dataset page from ``objectId``. The tool's schema
  then leaves them out of ``required`` with the page's value as their ``default`` (``ToolSpec.openai_schema``).
- ``bind_call``: fills what the model left out; an object id that differs from the page's while the question
  points at the page's object ("this dashboard", no other id given) is replaced by the page's — a small model's
  ``dashboard_id: 1`` on the page of dashboard 3 must not run against another dashboard — and the replacement is
  reported, never silent.
- ``object_used``: the object a call acted on, added to the tool result the model reads (and the card shows the
  bound arguments), so the answer can name it.
"""

from typing import Any

from agentchat.runtime.spec import ToolSpec

# objectType of the page → the argument naming that object.
PAGE_OBJECT_ARGS = {"dashboard": "dashboard_id", "dataset": "dataset_id"}
# Arguments naming the environment a call reads or acts in (``target_env_id`` is a choice, never the page's).
ENV_ARGS = ("env_id", "source_env_id")


def page_bound(spec: ToolSpec, context: dict[str, Any] | None) -> dict[str, Any]:
    """The arguments of ``spec`` the page supplies, with their values.

    Args:
        spec: the tool.
        context: the turn's validated UIContext dict (``objectType``, ``objectId``, ``envId``), or None.

    Returns:
        ``{argument name: value}``, e.g. ``{"env_id": "ss-dev", "dashboard_id": 3}``; empty without a context.
    """
    context = context or {}
    fields = spec.args_schema.model_fields
    bound: dict[str, Any] = {}
    env = context.get("envId")
    if env and "migration_id" not in fields:  # a saved plan names its own environments (runtime.plans)
        for name in ENV_ARGS:
            if name in fields:
                bound[name] = env
                break
    arg = PAGE_OBJECT_ARGS.get(context.get("objectType") or "")
    object_id = context.get("objectId")
    if arg and arg in fields and object_id and str(object_id).isdigit():
        bound[arg] = int(object_id)
    return bound


def bind_call(
    spec: ToolSpec, args: dict[str, Any], context: dict[str, Any] | None, *, points_at_page: bool
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Fill the page-bound arguments the model left out; replace an object id that contradicts "this".

    Args:
        spec / args: the tool and the model's arguments (not validated yet).
        context: the turn's validated UIContext dict, or None.
        points_at_page: the user's question points at the page's object and names no other id ("summarise this
            dashboard"); decided by the turn from the question's reading (``toolset.reading``).

    Returns:
        ``(args, replaced)``: the arguments to validate and run, and ``{"argument", "given", "used"}`` when an id
        the model gave was replaced by the page's (None otherwise).
    """
    out = dict(args)
    replaced = None
    for name, value in page_bound(spec, context).items():
        given = out.get(name)
        if given in (None, ""):
            out[name] = value
        elif name in PAGE_OBJECT_ARGS.values() and points_at_page and str(given) != str(value):
            out[name] = value
            replaced = {"argument": name, "given": given, "used": value}
    return out, replaced


def object_used(spec: ToolSpec, args: dict[str, Any], context: dict[str, Any] | None) -> dict[str, Any] | None:
    """The object a call acts on, for the result the model reads: ``{"type", "id", "env_id", "page_object"}``.

    ``page_object`` is True when it is the object of the user's page. None for a tool that names no dashboard or
    dataset by id.
    """
    context = context or {}
    for object_type, arg in PAGE_OBJECT_ARGS.items():
        if arg in spec.args_schema.model_fields and args.get(arg) is not None:
            env = next((args[n] for n in (*ENV_ARGS, "target_env_id") if args.get(n)), None)
            on_page = context.get("objectType") == object_type and str(context.get("objectId")) == str(args[arg])
            return {"type": object_type, "id": args[arg], "env_id": env, "page_object": on_page}
    return None
