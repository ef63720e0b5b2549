"""Context-bound arguments (issue 16; seed SC-001, DESIGN §7): where the page names the object, the model may
leave its id out, the server fills it from the validated UIContext, and the result names the object used.

- ``page_bound``: the arguments of a tool the page supplies — ``env_id`` (or ``source_env_id``, except for the
  migration tools, whose saved plan names the environments: ``runtime.plans``) from ``envId``,
  ``dashboard_id`` on a dashboard page and ``dataset_id`` on a dataset page from ``objectId``. The tool's schema
  then leaves them out of ``required`` with the page's value as their ``default`` (``ToolSpec.openai_schema``).
- ``bind_call``: fills what the model left out — the page's object id only when the model named no object of its
  own (``deploy_dashboard {"dashboard": "energy-report"}`` on the page of dashboard 2 deploys energy-report, not
  2: ``ALTERNATIVE_ARGS``) and the call's object lives in the page's environment (ids differ between Superset
  instances: ``get_health_summary {"env_id": "prod"}`` on a page of ss-dev gets no ss-dev id). An object id that
  differs from the page's while the question points at the page's object ("this dashboard", and the question
  does not name that id) is replaced by the page's — a small model's ``dashboard_id: 1`` on the page of
  dashboard 3 must not run against another dashboard — and the replacement is reported, never silent. Not
  replaced: an id the model gives with the same object's slug (``SAME_OBJECT_ARGS``; the tool checks the pair),
  and an id a tool result of this turn gave the model (``result_ids``: it found it with us, e.g. by a search).
- ``unknown_arguments``: the names of a call its tool does not take. Such a call is refused before anything is
  bound (``turn.calls``): ``get_health_summary {"slug": "energy-report"}`` on the page of dashboard 2 meant
  another dashboard, and filling the page's id into it ran it on dashboard 2 (second review).
- ``object_used``: the object a call acted on, added to the tool result the model reads (and the card shows the
  bound arguments), so the answer can name it; ``page_object`` only when type, id and environment are the page's.
"""

from collections.abc import Callable, Collection, Mapping
from typing import Any

from agentchat.runtime.spec import ToolSpec

# objectType of the page → the argument naming that object.
PAGE_OBJECT_ARGS = {"dashboard": "dashboard_id", "dataset": "dataset_id"}
OBJECT_OF_ARG = {arg: object_type for object_type, arg in PAGE_OBJECT_ARGS.items()}  # "dashboard_id" → "dashboard"
# Arguments naming the environment a call reads or acts in (``target_env_id`` is a choice, never the page's).
ENV_ARGS = ("env_id", "source_env_id")
# Tools that undo a change where it went: on a plan's page (whose envId is the plan's source) their environment is
# the plan's target (``runtime.plans.plan_arguments``), not the page's.
UNDO_TOOLS = frozenset({"rollback_deploy"})
# Arguments by which a model names the object itself instead of by the page-bound id (issue 16 review): given one,
# the page's id is not filled in — deploy_dashboard's slug ``dashboard`` (``tools.deploy.dashboard_resolve``
# prefers an id to a slug), the database a SQL tool runs on instead of the dataset's (``tools.sql``).
ALTERNATIVE_ARGS = {"dashboard_id": ("dashboard",), "dataset_id": ("database_id", "database_name")}
# Those of ``ALTERNATIVE_ARGS`` naming the same object as the id, another way, where the tool checks that the two
# agree (second review): a model that gives deploy_dashboard an id and a slug named its object itself, so its id
# is never replaced by the page's — replacing it turned a consistent pair into "two dashboards". A database is
# another object than a dataset, and ``tools.sql`` runs on the dataset's database whatever database is named, so
# a wrong ``dataset_id`` beside one would run unchecked: on "this" it is still replaced.
SAME_OBJECT_ARGS = {"dashboard_id": ("dashboard",)}
# Keys of a tool result under which an object (or a list of them) is of that type: search_dashboards'
# ``dashboards``, get_health_summary's ``dashboard`` and ``datasets`` (its ``charts`` are not dashboards).
RESULT_OBJECT_KEYS = {"dashboard": "dashboard", "dashboards": "dashboard", "dataset": "dataset", "datasets": "dataset"}
# The ids this turn's results named, by (object type, environment or None): ``result_ids``, ``bind_call``.
LearntIds = Mapping[tuple[str, str | None], Collection[int]]


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
    if spec.name in UNDO_TOOLS and context.get("objectType") == "migration":
        env = None  # «откати эту миграцию»: where the plan went (runtime.plans), not its source
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


def unknown_arguments(spec: ToolSpec, args: dict[str, Any]) -> list[str]:
    """The argument names of a call that ``spec`` does not take, sorted (empty: every name is the tool's).

    A name is the tool's when it is a field's alias or, for a field without one, its name; a field's own name
    beside its alias only where the model populates by name (``ExecuteSqlArgs``: ``schema`` and ``schema_name``).
    Checked before ``bind_call``, on the model's arguments as it sent them (LangChain's ``tool_call["args"]``).
    """
    config = spec.args_schema.model_config
    by_name = bool(config.get("populate_by_name") or config.get("validate_by_name"))
    known = set(spec.argument_names) | (set(spec.args_schema.model_fields) if by_name else set())
    return sorted(name for name in args if name not in known)


def object_env(spec: ToolSpec, args: dict[str, Any]) -> str | None:
    """The environment the object ids of a call live in: its ``env_id``, or ``source_env_id`` (deploy_dashboard's
    ``dashboard_id`` is the source's; ``target_env_id`` is where it goes). None when the tool or the call has none.
    """
    for name in ENV_ARGS:
        if name in spec.args_schema.model_fields and args.get(name) not in (None, ""):
            return str(args[name])
    return None


def _same_env(env: str | None, page_env: Any) -> bool:
    """The call's environment does not contradict the page's (either may be unknown: a page without ``envId``)."""
    return env is None or not page_env or env == str(page_env)


def _given(value: Any) -> bool:
    return value not in (None, "")


def result_ids(value: Any) -> dict[tuple[str, str | None], set[int]]:
    """The ids of dashboards and datasets a tool result names, by object type and environment
    (``{("dashboard", "prod"): {5, 6}}``; None: the result does not say where).

    An object's ``id`` counts where the object's type is known: under a key of ``RESULT_OBJECT_KEYS``, or its own
    ``type`` (``object_used``); so does a ``dashboard_id``/``dataset_id`` value and each of a
    ``dashboard_ids``/``dataset_ids`` list, at any depth. Anything else (a chart's id, a task's) is not read. Its
    environment is the ``env_id`` of the nearest object around it (a search's, ``object_used``'s): dashboard 5
    found in prod is no dashboard of ss-dev (third review).

    Args:
        value: a tool result as the model read it (JSON: dicts, lists, scalars).
    """
    found: dict[tuple[str, str | None], set[int]] = {}
    _collect(value, None, None, found)
    return found


def _collect(value: Any, kind: str | None, env: str | None, found: dict[tuple[str, str | None], set[int]]) -> None:
    if isinstance(value, list):
        for item in value:
            _collect(item, kind, env, found)
        return
    if not isinstance(value, dict):
        return
    env = str(value["env_id"]) if _given(value.get("env_id")) else env
    own = value.get("type") if value.get("type") in PAGE_OBJECT_ARGS else kind
    if own is not None:
        _add(found, (own, env), value.get("id"))
    for key, item in value.items():
        for object_type, arg in PAGE_OBJECT_ARGS.items():
            if key == arg:
                _add(found, (object_type, env), item)
            elif key == f"{arg}s" and isinstance(item, list):
                for one in item:
                    _add(found, (object_type, env), one)
        _collect(item, RESULT_OBJECT_KEYS.get(key), env, found)


def _add(found: dict[tuple[str, str | None], set[int]], where: tuple[str, str | None], value: Any) -> None:
    number = as_id(value)
    if number is not None:
        found.setdefault(where, set()).add(number)


def as_id(value: Any) -> int | None:
    """``value`` as an object id (an int, or a string of ASCII digits), else None (a bool is no id)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def _learnt(name: str, given: Any, env: str | None, learnt: LearntIds) -> bool:
    """``given``, the model's value of the object argument ``name``, is an id of that type a tool result of this
    turn named in ``env``, the call's environment, or without saying where (``result_ids``)."""
    object_type = OBJECT_OF_ARG.get(name)
    number = as_id(given)
    if object_type is None or number is None:
        return False
    return any(number in learnt.get((object_type, where), ()) for where in {env, None})


def _kept(name: str, given: Any, args: dict[str, Any], env: str | None, learnt: LearntIds) -> bool:
    """The model's id ``given`` of ``name`` stays whatever the question says: a tool result of this turn named it
    in the call's environment ``env`` (``_learnt``), or the call names the same object a second way too
    (``SAME_OBJECT_ARGS``: deploy's slug)."""
    return _learnt(name, given, env, learnt) or any(_given(args.get(o)) for o in SAME_OBJECT_ARGS.get(name, ()))


def bind_call(
    spec: ToolSpec,
    args: dict[str, Any],
    context: dict[str, Any] | None,
    *,
    points_at_page: Callable[[Any], bool],
    learnt: LearntIds | None = None,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """Fill the page-bound arguments the model left out; replace an object id that contradicts "this".

    Args:
        spec / args: the tool and the model's arguments (not validated yet).
        context: the turn's validated UIContext dict, or None.
        points_at_page: ``points_at_page(given)`` — the user's question points at the page's object and does not
            name ``given``, the id the model gave ("summarise this dashboard for 2024" with ``dashboard_id: 1``:
            True; "compare this one with dashboard 1": False); decided by the turn from the question
            (``turn.pointing``).
        learnt: the ids by object type and environment that this turn's tool results gave the model
            (``result_ids``; ``{("dashboard", "ss-dev"): {5}}``): such an id, in the call's environment, is the
            model's own, learnt from us, never replaced by the page's — «сравни этот дашборд с дашбордом про
            энергопотребление» searches, finds 5 and reads 5 (second review). Prod's 5 is no id learnt for a call
            in ss-dev (third review).

    Returns:
        ``(args, replaced)``: the arguments to validate and run, and ``{"argument", "given", "used"}`` when an id
        the model gave was replaced by the page's (None otherwise). The page's object id is neither filled nor
        put in place of the model's when the model named the object another way (``ALTERNATIVE_ARGS``) or the
        call's environment (``object_env``) is not the page's (issue 16 review); the model's id is not replaced
        either when it names the same object by another argument too (``SAME_OBJECT_ARGS``: the tool checks
        the pair, second review).
    """
    out = dict(args)
    replaced = None
    bound = page_bound(spec, context)
    for name, value in bound.items():
        if name in ENV_ARGS and not _given(out.get(name)):
            out[name] = value
    env = object_env(spec, out)
    if not _same_env(env, (context or {}).get("envId")):
        return out, None  # another instance's ids: the page's id means nothing there
    for name, value in bound.items():
        if name in ENV_ARGS:
            continue
        given = out.get(name)
        if not _given(given):
            if not any(_given(out.get(other)) for other in ALTERNATIVE_ARGS.get(name, ())):
                out[name] = value
        elif str(given) != str(value) and not _kept(name, given, out, env, learnt or {}) and points_at_page(given):
            out[name] = value
            replaced = {"argument": name, "given": given, "used": value}
    return out, replaced


def object_used(spec: ToolSpec, args: dict[str, Any], context: dict[str, Any] | None) -> dict[str, Any] | None:
    """The object a call acts on, for the result the model reads: ``{"type", "id", "env_id", "page_object"}``.

    ``page_object`` is True only when type, id and environment are the page's (``get_health_summary
    {"env_id": "prod", "dashboard_id": 2}`` on the page of dashboard 2 of ss-dev is prod's dashboard 2: False).
    ``env_id`` is the environment the id lives in (``object_env``; for a tool with only ``target_env_id``, that).
    None for a tool that names no dashboard or dataset by id.
    """
    context = context or {}
    for object_type, arg in PAGE_OBJECT_ARGS.items():
        if arg in spec.args_schema.model_fields and args.get(arg) is not None:
            env = object_env(spec, args) or (str(args["target_env_id"]) if args.get("target_env_id") else None)
            on_page = (
                context.get("objectType") == object_type
                and str(context.get("objectId")) == str(args[arg])
                and _same_env(env, context.get("envId"))
            )
            return {"type": object_type, "id": args[arg], "env_id": env, "page_object": on_page}
    return None
