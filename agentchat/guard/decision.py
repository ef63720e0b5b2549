"""The guardrail decision for one tool call (DESIGN §9; seed AGGRD-FR-001…003).

``GuardrailDecision`` = f(tool category, target environment tier, ``RiskRule`` row, user permissions, impact).
``policies`` answers the table look-ups; the impact look-up in Superset happens here, before the card is shown.
"""

import asyncio
import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.utils.translation import gettext
from pydantic import BaseModel

from agentchat.errors import NOT_APPLICABLE, ApplicationError
from agentchat.language import in_language
from agentchat.runtime.context import ToolContext
from agentchat.runtime.executor import tool_timeout_s
from agentchat.runtime.spec import ToolSpec
from agentchat.superset.call import CallState
from policies import services as policy
from policies.models import AuthMode, Environment, RiskRule

IMPACT_TIMEOUT_S = 15.0


@dataclass
class GuardrailDecision:
    """What the card shows and whether the call waits for the user.

    Attributes:
        risk_level: ``safe|guarded|dangerous``; tone: ``success|info|warning|destructive``.
        env_id / env_name / tier: the environment the call acts on (``tier`` ``none`` without one).
        operation: ``read`` or ``write`` (write and dangerous tools).
        requires_confirmation: the call waits for an approval; typed_confirmation: the approval needs the env id
            typed in (prod + dangerous by default).
        prompt: the rule's card text in the user's language («Изменения в dev-окружении»).
        impact: what the call would change, looked up before the card (``summary``, ``objects``…), or None.
        category: the tool's category.
        acts_as: ``user`` (the user's own Superset identity) or ``service`` (the environment is in service mode:
            the card says «действует от сервисной учётной записи», DESIGN §15).
        options: ``[{"name", "label"}]``, choices the card offers as unticked boxes, each a boolean argument of the
            tool the impact found a reason for (``remove_detached``: delete the charts a deploy leaves on no
            dashboard, issue 28 item 2); a ticked one is set to true in the stored call when it is approved
            (``confirmations.confirmation_decide``), so it runs as confirmed.
    """

    risk_level: str
    tone: str
    env_id: str | None
    env_name: str | None
    tier: str
    operation: str
    category: str
    requires_confirmation: bool
    typed_confirmation: bool
    prompt: str
    impact: dict[str, Any] | None = field(default=None)
    acts_as: str = "user"
    options: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Return the decision as the JSON object stored and sent in ``confirm_required``."""
        return asdict(self)


def args_sha256(args: dict[str, Any]) -> str:
    """Return the sha256 (hex) of ``args`` serialised canonically (sorted keys, compact)."""
    canonical = json.dumps(args, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def target_env_id(spec: ToolSpec, args: dict[str, Any], context: dict[str, Any] | None) -> str | None:
    """The environment a call acts on: its ``target_env_id``/``env_id`` argument, else the context's envId."""
    name = spec.target_env_arg
    if name and args.get(name):
        return str(args[name])
    env_id: str | None = (context or {}).get("envId")  # a validated UIContext (``context.uicontext``)
    return env_id


def _rule_inputs(spec: ToolSpec, env_id: str | None) -> tuple[Environment | None, RiskRule]:
    environment = policy.environment_get(env_id=env_id) if env_id else None
    tier = environment.tier if environment else "none"
    return environment, policy.risk_rule_for(category=spec.category, tier=tier)


async def _impact(
    spec: ToolSpec,
    parsed: BaseModel,
    *,
    user: User,
    conversation_id: int | None,
    context: dict[str, Any] | None,
    language: str,
) -> dict[str, Any] | None:
    if spec.impact is None:
        return None
    ctx = ToolContext(
        user=user,
        conversation_id=conversation_id,
        ui_context=context,
        language=language,
        call=CallState(retry_transient=True),
        timeout_s=min(IMPACT_TIMEOUT_S, await sync_to_async(tool_timeout_s)(spec)),
    )
    try:
        with in_language(language):  # the impact's summary speaks the turn's language (also outside a turn)
            async with asyncio.timeout(ctx.timeout_s):
                impact = await spec.impact(ctx, parsed)
    except ApplicationError as exc:
        impact = {"error": exc.text(language)}
        if exc.code in ("invalid_args", NOT_APPLICABLE):  # a branch name git refuses, nothing to roll back: no card
            impact["invalid"] = True
            impact["error_code"] = exc.code
            if exc.ask_user:  # the person's words apart from the model's (PlanContradiction)
                impact["ask_user"] = exc.ask_user
            if exc.message is None and type(exc).text is ApplicationError.text and exc.detail:
                # ERROR_TEXTS' «Неверные аргументы инструмента: …» is the caller's to add (``turn.calls``): once
                impact["error"] = str(exc.detail)
            elif exc.message is not None and not exc.ask_user and exc.code == "invalid_args":
                # the tool's own sentence («Недопустимое имя ветки …»): the person reads it with no validator's prefix
                impact["ask_user"] = impact["error"]
    except TimeoutError:
        with in_language(language):
            impact = {"error": gettext("impact look-up timed out")}
    finally:
        await ctx.aclose()
    impact = dict(impact or {})
    impact.setdefault("summary", "")  # an impact's one-line summary, in the call's language
    return impact


async def guardrail_decide(
    *,
    spec: ToolSpec,
    args: dict[str, Any],
    parsed: BaseModel,
    user: User,
    conversation_id: int | None,
    context: dict[str, Any] | None,
    language: str,
) -> GuardrailDecision:
    """Decide how a permitted, schema-valid call proceeds (DESIGN §9).

    Args:
        spec: the tool; args: its validated arguments as a dict; parsed: the same as the pydantic model.
        user / conversation_id / context / language: the turn.

    Returns:
        The decision; its ``impact`` is looked up (read-only, ≤ 15 s) only when a confirmation is required.
    """
    env_id = target_env_id(spec, args, context)
    environment, rule = await sync_to_async(_rule_inputs)(spec, env_id)
    requires = rule.requires_confirmation or (spec.category == "read" and settings.HITL_CONFIRM_READS)
    decision = GuardrailDecision(
        risk_level=rule.risk_level,
        tone=rule.tone,
        env_id=env_id,
        env_name=environment.name if environment else None,
        tier=environment.tier if environment else "none",
        operation="read" if spec.category == "read" else "write",
        category=spec.category,
        requires_confirmation=requires,
        typed_confirmation=rule.typed_confirmation and requires,
        prompt=rule.prompt(language),
        acts_as="service" if environment is not None and environment.auth_mode == AuthMode.SERVICE else "user",
    )
    if requires:
        impact = await _impact(
            spec, parsed, user=user, conversation_id=conversation_id, context=context, language=language
        )
        decision.options = card_options(spec, args, impact.pop("options", None) if impact else None)
        decision.impact = impact
    return decision


def card_options(spec: ToolSpec, args: dict[str, Any], offered: Any) -> list[dict[str, str]]:
    """The options of ``offered`` (an impact's ``[{"name", "label"}]``) a card may show: boolean arguments of
    ``spec`` that ``args`` does not already set to true."""
    fields = spec.args_schema.model_fields
    return [
        {"name": str(o["name"]), "label": str(o.get("label") or o["name"])}
        for o in offered or []
        if isinstance(o, dict)
        and o.get("name") in fields
        and fields[o["name"]].annotation is bool
        and args.get(o["name"]) is not True
    ]
