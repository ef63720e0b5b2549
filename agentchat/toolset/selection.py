"""The tool set offered to the LLM for one turn (DESIGN §5 step 3; seed AGCTX-FR-005, AGTL-FR-001/005).

Tool set = registry ∩ enabled ∩ affinity(objectType) ∩ role permissions ∩ (envId present or tool not
env-specific) ∩ router top-K (when a question is given and the router is on) ∪ {``show_capabilities``}; no
objectType → every tool the role has. Routing only ever narrows the policy set (DESIGN §12).

One assembly, ``toolset_explain``, serves every caller: the chat turn (``toolset_for``), the preview API
(``GET /api/agent/tools/``) and the admin's policy preview (``toolset_for_roles``). Nothing is cached: each call
reads the user's groups and the policy tables, so a change made in the admin applies to the next message without
a restart. ``tool_call_refusal`` is the second, invocation-level layer (DESIGN §5 step 6).
"""

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import User

from agentchat.identity.services import identity_env_ids
from agentchat.runtime.registry import registry
from agentchat.runtime.spec import ToolSpec
from agentchat.toolset.intents import READ_COUNTERPART, action_requested
from agentchat.toolset.reading import read_question, reading_tool
from agentchat.toolset.router import routable, route_select
from policies import services as policy
from policies.services import Refusal

ALWAYS_OFFERED = "show_capabilities"


@dataclass(frozen=True)
class ToolChoice:
    """Whether one tool is offered in a situation, and why not.

    Attributes:
        name / category / env_specific: the tool (from its catalogue row, or the registry if it has none).
        registered: the name is in the code registry.
        roles / object_types: who may use it and which pages offer it, per the policy tables.
        refusals: the reasons it is not offered (``policies.services.Refusal``); empty when offered.
        description_ru / description_en: the admin's texts from the catalogue row ('' = the code's).
        catalogued: the tool has a ``policies.Tool`` row (False: registered after the last sync).
    """

    name: str
    category: str
    env_specific: bool
    registered: bool
    roles: tuple[str, ...]
    object_types: tuple[str, ...]
    refusals: tuple[Refusal, ...]
    description_ru: str = ""
    description_en: str = ""
    routed_out: bool = False
    route_score: float | None = None
    catalogued: bool = True

    @property
    def offered(self) -> bool:
        """True when the tool is in the set offered to the LLM (allowed by policy and kept by the router)."""
        return not self.refusals and not self.routed_out


def toolset_explain(
    *,
    roles: Collection[str],
    context: dict | None,
    question: str | None = None,
    acting_envs: Collection[str] | None = None,
) -> list[ToolChoice]:
    """Judge every tool of the catalogue and of the code registry for ``roles`` on the page ``context``.

    Args:
        roles: role (Django group) names, taken from the server-side user or chosen by an admin.
        context: a validated UIContext dict (``objectType``, ``envId`` are used), or None.
        question: the user's message; when given and the router is on (``EMBEDDINGS`` ≠ off), the policy set
            is narrowed to the router's top ``ROUTER_TOP_K`` plus ``show_capabilities`` (DESIGN §12).
        acting_envs: the environments where the user can act in Superset (``identity_env_ids``); an env-specific
            tool is refused as ``no_identity`` when the context's ``envId`` is not among them (DESIGN §15). None:
            not judged (a role without a user).

    Returns:
        One ``ToolChoice`` per tool, ordered by name. A catalogue row not registered in code is refused as
        ``unknown_tool``; a registered tool without a row has no roles, so it is refused as ``role``;
        ``show_capabilities`` is offered whenever it is registered. Tools allowed by policy but not kept by
        the router have ``routed_out`` set; every routed candidate carries its ``route_score``.
    """
    choices = _policy_choices(roles=roles, context=context or {})
    env_id = (context or {}).get("envId")
    if acting_envs is not None and env_id and env_id not in acting_envs:
        choices = [
            replace(c, refusals=(*c.refusals, Refusal.NO_IDENTITY))
            if c.env_specific and c.name != ALWAYS_OFFERED
            else c
            for c in choices
        ]
    if question:
        choices = _routed(choices, question=question, object_type=(context or {}).get("objectType"))
    return choices


def _routed(choices: list[ToolChoice], *, question: str, object_type: str | None) -> list[ToolChoice]:
    specs = registry()
    allowed = [_with_policy_texts(specs[c.name], c) for c in choices if c.offered]
    routing = route_select(question=question, specs=allowed, object_type=object_type)
    if not routing.routed:
        return choices
    kept, scores = set(routing.kept), {r.name: r.score for r in routing.ranked}
    return [
        replace(c, routed_out=c.name not in kept, route_score=scores.get(c.name)) if c.offered else c for c in choices
    ]


def _policy_choices(*, roles: Collection[str], context: dict) -> list[ToolChoice]:
    specs = registry()
    verdicts = policy.tool_verdicts(
        roles=roles, object_type=context.get("objectType"), env_present=bool(context.get("envId"))
    )
    choices = []
    for verdict in verdicts:
        refusals = verdict.refusals
        if verdict.name not in specs:
            refusals = (Refusal.UNKNOWN, *refusals)
        elif verdict.name == ALWAYS_OFFERED:
            refusals = ()
        choices.append(
            ToolChoice(
                name=verdict.name,
                category=verdict.category,
                env_specific=verdict.env_specific,
                registered=verdict.name in specs,
                roles=verdict.roles,
                object_types=verdict.object_types,
                refusals=refusals,
                description_ru=verdict.description_ru,
                description_en=verdict.description_en,
            )
        )
    known = {c.name for c in choices}
    for spec in specs.values():
        if spec.name not in known:  # registered after the last sync: no policy rows yet
            refusals = () if spec.name == ALWAYS_OFFERED else (Refusal.ROLE,)
            choices.append(
                ToolChoice(spec.name, spec.category, spec.env_specific, True, (), (), refusals, catalogued=False)
            )
    return sorted(choices, key=lambda c: c.name)


def toolset_for_roles(*, roles: Collection[str], context: dict | None, question: str | None = None) -> list[ToolSpec]:
    """Return the tools offered to a user with ``roles`` on the page ``context``, ordered by name.

    Args:
        roles: role names (server-side only; never from a client frame or context).
        context: a validated UIContext dict, or None.
        question: the user's message, for the router (None: no routing).

    Returns:
        The registered ``ToolSpec`` of every offered tool, carrying the admin's descriptions where set (they
        are what the LLM reads).
    """
    specs = registry()
    choices = toolset_explain(roles=roles, context=context, question=question)
    return [_with_policy_texts(specs[c.name], c) for c in choices if c.offered]


def _with_policy_texts(spec: ToolSpec, choice: ToolChoice) -> ToolSpec:
    """``spec`` with the admin's descriptions where they are set (a blank one keeps the code's)."""
    ru = choice.description_ru if choice.description_ru.strip() else spec.description_ru
    en = choice.description_en if choice.description_en.strip() else spec.description_en
    if (ru, en) == (spec.description_ru, spec.description_en):
        return spec
    return replace(spec, description_ru=ru, description_en=en)


@dataclass(frozen=True)
class Offer:
    """The tools of one turn, judged once (DESIGN §5 step 3).

    Attributes:
        choices: one ``ToolChoice`` per tool of the catalogue and the registry (what the offline planner reads to
            say why a tool is not offered here).
        allowed: the policy set before routing, ordered by name (what ``show_capabilities`` lists).
        offered: ``allowed`` narrowed by the router (what the LLM is offered and may call this turn), the router's
            best first and ``show_capabilities`` last (``_best_first``).
    """

    choices: tuple[ToolChoice, ...]
    allowed: tuple[ToolSpec, ...]
    offered: tuple[ToolSpec, ...]

    @property
    def routable(self) -> bool:
        """True when the policy set is large enough to be routed (``router.routable``): a smaller one is offered
        whole, its question never embedded."""
        return routable(self.allowed)


def toolset_offer(*, user: User, context: dict | None, question: str | None = None) -> Offer:
    """Judge every tool for ``user`` on the page ``context`` and the ``question`` once; see ``toolset_for``.

    Reads the user's groups and the policy tables (three queries) and, with a question and the router on,
    embeds the question once.
    """
    specs = registry()
    acting_envs = identity_env_ids(user=user)
    choices = toolset_explain(
        roles=policy.user_roles(user=user), context=context, question=question, acting_envs=acting_envs
    )
    allowed = tuple(_with_policy_texts(specs[c.name], c) for c in choices if not c.refusals)
    return Offer(choices=tuple(choices), allowed=allowed, offered=_best_first(allowed, choices))


def _best_first(allowed: Sequence[ToolSpec], choices: Sequence[ToolChoice]) -> tuple[ToolSpec, ...]:
    """The offered tools of ``allowed`` (kept by the router), the router's best first and ``show_capabilities``
    last; unrouted ones (a small policy set, the router off) by name, ``show_capabilities`` last as well.

    A small model leans to the first tools of its list (issue 16: «расскажи про этот дашборд» on a 1.5B model
    called ``show_capabilities``, listed first by name): the order of the list is the router's judgement."""
    by_name = {c.name: c for c in choices}
    offered = [spec for spec in allowed if by_name[spec.name].offered]
    score = {name: c.route_score for name, c in by_name.items() if c.route_score is not None}
    return tuple(sorted(offered, key=lambda spec: (spec.name == ALWAYS_OFFERED, -score.get(spec.name, float("-inf")))))


def toolset_for(*, user: User, context: dict | None, question: str | None = None) -> list[ToolSpec]:
    """Return the tools ``user`` is offered on the page described by ``context``, ordered by name.

    Registry ∩ enabled ∩ affinity(objectType) ∩ role ∩ (envId present or tool not env-specific) ∩ (an identity
    of the user in envId, or the tool not env-specific; DESIGN §15) ∩ router top-K for ``question`` (when given
    and the router is on), plus ``show_capabilities``. No objectType → every tool the role has. Reads the database
    on every call.

    Args:
        user: the server-side user (the only source of roles; groups are read from the database now).
        context: the validated UIContext dict, or None.
        question: the user's message (None: the whole policy set, e.g. for show_capabilities).
    """
    specs = registry()
    choices = toolset_explain(
        roles=policy.user_roles(user=user),
        context=context,
        question=question,
        acting_envs=identity_env_ids(user=user),
    )
    return [_with_policy_texts(specs[c.name], c) for c in choices if c.offered]


def tool_call_refusal(*, user: User, name: str, offered: Iterable[str]) -> Refusal | None:
    """Invocation-level check of one tool call, whatever the LLM produced (AGTL-FR-005 b, DESIGN §5 step 6).

    The tool must be registered in code, enabled, permitted for the user's current roles in the database and
    in this turn's offered set; ``show_capabilities`` only needs to be registered and offered.

    Args:
        user: the server-side user.
        name: the tool name from the LLM's call (any string).
        offered: the names offered to the LLM this turn.

    Returns:
        None when the call may run, else the first reason: ``unknown_tool``, ``disabled``, ``role`` or
        ``not_offered``.
    """
    if name not in registry():
        return Refusal.UNKNOWN
    if name != ALWAYS_OFFERED:
        refusal = policy.tool_refusal(user=user, tool_name=name)
        if refusal is Refusal.UNKNOWN:  # registered, but synced to no catalogue row yet: nobody has it
            return Refusal.ROLE
        if refusal is not None:
            return refusal
    if name not in set(offered):
        return Refusal.NOT_OFFERED
    return None


def not_offered_detail(*, offer: Offer, name: str, context: dict | None) -> dict[str, Any]:
    """Why the permitted tool ``name`` is not in this turn's offered set (``Refusal.NOT_OFFERED``), for the card and
    the tool result: the roles are no reason there (second review of issue 16: get_git_status on a dashboard page
    was refused with every role listed as "required").

    Args:
        offer: the turn's judged tools; name: the refused call's tool; context: the turn's validated UIContext.

    Returns:
        ``{"why", "page", "offered_on", "env_id"}``: ``why`` is the first policy reason of the tool's choice —
        ``object_type`` (``offered_on``: the object types whose pages offer it; empty: only a page without an
        object), ``needs_env``, ``no_identity`` (in ``env_id``) — or ``routed_out`` (the router kept other tools for
        the question), ``""`` when the offer does not know the tool; ``page`` is the page's object type.
    """
    page = context or {}
    choice = next((c for c in offer.choices if c.name == name), None)
    reasons = [r for r in (choice.refusals if choice else ()) if r in _PAGE_REASONS]
    why = str(reasons[0]) if reasons else ("routed_out" if choice is not None and choice.routed_out else "")
    return {
        "why": why,
        "page": page.get("objectType"),
        "offered_on": sorted(choice.object_types) if choice else [],
        "env_id": page.get("envId"),
    }


# The policy reasons a permitted tool is not offered on a page (the role, enabled state and registry are judged
# by ``tool_call_refusal`` itself).
_PAGE_REASONS = (Refusal.OBJECT_TYPE, Refusal.NEEDS_ENV, Refusal.NO_IDENTITY)


def _meant_choice(question: str, offer: Offer, object_type: str | None) -> ToolChoice | None:
    """The judged tool the offline reading of ``question`` names (``reading.reading_tool``), or None."""
    meant = reading_tool(read_question(question), object_type)
    return next((c for c in offer.choices if c.name == meant), None)


def role_refused_request(*, question: str | None, offer: Offer, object_type: str | None) -> ToolChoice | None:
    """The tool a request for a change asks for when the user's roles may not use it, else None (issue 16: a small
    model offered only reads answers «создай ветку» with a search; the prompt then names the refusal instead).

    The tool is the offline reading's (``reading.reading_tool``), the request an action (``intents.action_requested``:
    not a question about one); only a ``Refusal.ROLE`` counts (a tool another page offers is not a denial). Only
    where the user may change nothing on the page (no write or dangerous tool offered), and not when the read that
    goes with the change is offered (``intents.READ_COUNTERPART``: «сделай dry-run» is a preview the role may
    run): there the reading could be wrong, and the model judges.

    Args:
        question: the user's message (None or blank: None).
        offer: the turn's judged tools.
        object_type: the page's object type.

    Returns:
        The refused tool's ``ToolChoice`` (its ``roles``: who may use it), or None.
    """
    if not question or not question.strip() or not action_requested(question):
        return None
    if any(spec.category != "read" for spec in offer.allowed):
        return None
    offered = {spec.name for spec in offer.allowed}
    choice = _meant_choice(question, offer, object_type)
    if choice is None or Refusal.ROLE not in choice.refusals or READ_COUNTERPART.get(choice.name) in offered:
        return None
    return choice


def page_refused_request(*, question: str | None, offer: Offer, object_type: str | None) -> ToolChoice | None:
    """The tool a question asks for when only the page's object type keeps it from the person (issue 29 item 2):
    the reading's tool (``reading.reading_tool``) is refused here for the object type alone — the person's roles
    may use it, and without the page's context it would be offered. None on a page without an object, or when an
    offered tool is what the question asks for.

    Args:
        question: the user's message (None or blank: None).
        offer: the turn's judged tools.
        object_type: the page's object type.

    Returns:
        The refused tool's ``ToolChoice`` (its ``object_types``: where it is offered), or None.
    """
    if not question or not question.strip() or not object_type:
        return None
    choice = _meant_choice(question, offer, object_type)
    if choice is None or Refusal.OBJECT_TYPE not in choice.refusals:
        return None
    return None if {Refusal.ROLE, Refusal.DISABLED, Refusal.UNKNOWN} & set(choice.refusals) else choice
