"""The tool set offered to the LLM for one turn (DESIGN §5 step 3; seed AGCTX-FR-005, AGTL-FR-001/005)."""

from django.contrib.auth.models import AbstractBaseUser

from policies import services as policy

from .tools.registry import ToolSpec, registry

ALWAYS_OFFERED = "show_capabilities"


def toolset_for(*, user: AbstractBaseUser, context: dict | None) -> list[ToolSpec]:
    """Return the tools ``user`` is offered on the page described by ``context``, ordered by name.

    Registry ∩ enabled ∩ affinity(objectType) ∩ role ∩ (envId present or tool not env-specific), plus
    ``show_capabilities``. No objectType → every tool the role has. Reads the database on every call.

    Args:
        user: the server-side user (the only source of roles).
        context: the validated UIContext dict, or None.
    """
    context = context or {}
    rows = policy.tools_allowed(
        user=user, object_type=context.get("objectType"), env_present=bool(context.get("envId"))
    )
    specs = registry()
    names = {row.name for row in rows if row.name in specs}
    if ALWAYS_OFFERED in specs:
        names.add(ALWAYS_OFFERED)
    return [specs[name] for name in sorted(names)]
