"""The greeting of an empty chat (issue 30 item 5): 3–4 example questions for the page's object and the user's role,
each one click from being asked.

Each example names the tool it is answered by; it is shown only when that tool is offered to this person on this
page (``toolset.toolset_explain``: role, page kind, environment, their Superset identity), so an analyst is never
invited to deploy and a page without an environment does not suggest a search it cannot run.
``tests/web/test_greeting.py`` checks that the offline planner answers each example with its tool.
"""

from django.contrib.auth.models import User
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from agentchat.identity.services import identity_env_ids
from agentchat.toolset.selection import toolset_explain
from policies import services as policy

GREETING_MAX = 4

# Page kind (None: no object) → (tool, example question) in the order they are offered.
EXAMPLES: dict[str | None, tuple[tuple[str, Promise], ...]] = {
    "dashboard": (
        ("get_health_summary", _("Tell me about this dashboard")),
        ("deploy_history", _("Who deployed this dashboard and when?")),
        ("compare_versions", _("How does this dashboard differ from the one in prod?")),
        ("run_llm_validation", _("Check this dashboard for problems")),
        ("deploy_dashboard", _("Deploy this dashboard to prod")),
    ),
    "dataset": (
        ("superset_explore_database", _("Which columns does this dataset have?")),
        ("superset_execute_sql", _("How many rows does this dataset have?")),
        ("superset_explore_database", _("Which dashboards use this dataset?")),
        ("superset_audit_permissions", _("Who has access to this dataset?")),
    ),
    "migration": (
        ("preview_migration", _("What will this migration change?")),
        ("deploy_history", _("Who deployed what to prod, and when?")),
        ("execute_migration", _("Run this migration")),
        ("get_task_status", _("How is the last run of this migration going?")),
    ),
    None: (
        ("show_capabilities", _("What can you do?")),
        ("list_environments", _("Which Superset environments are there?")),
        ("deploy_history", _("Who deployed what to prod, and when?")),
        ("search_dashboards", _("Find the dashboards about energy")),
        ("list_backups", _("Which backups are there?")),
    ),
}


def greeting_examples(*, user: User, object_type: str | None, env_id: str | None) -> list[dict[str, str]]:
    """The example questions for ``user`` on a page of ``object_type`` in ``env_id``, in the active language.

    Args:
        user: the signed-in person (their roles and Superset identities decide what is offered).
        object_type: ``dashboard``, ``dataset``, ``migration`` or None (an unknown kind reads as None).
        env_id: the page's environment, or None.

    Returns:
        At most ``GREETING_MAX`` ``{"tool", "text"}``, the ones whose tool is offered there.
    """
    kind = object_type if object_type in EXAMPLES else None
    roles = policy.user_roles(user=user)
    context = {"objectType": kind, "envId": env_id}
    choices = toolset_explain(roles=roles, context=context, acting_envs=identity_env_ids(user=user))
    offered = {choice.name for choice in choices if choice.offered}
    shown = [{"tool": tool, "text": str(text)} for tool, text in EXAMPLES[kind] if tool in offered]
    return shown[:GREETING_MAX]
