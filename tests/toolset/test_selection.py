"""The tool set offered to the LLM (DESIGN §5 step 3, §8; seed AGCTX-FR-005, AGTL-FR-001, SC-005 prompt layer).

Expected sets are checked two ways so the tests are exact today and after every tool is registered: the policy
tables alone must give exactly the DESIGN §8 sets, and the offered set must be those names ∩ the code registry.
"""

import pytest
from django.test import override_settings

from agentchat.runtime.registry import registry
from agentchat.toolset.selection import ALWAYS_OFFERED, tool_call_refusal, toolset_explain, toolset_for
from policies.defaults import ROLES, TOOLS
from policies.models import ContextToolAffinity, Tool, ToolPermission
from policies.services import Refusal
from tests.support.contexts import ui_context
from tests.support.users import ensure_policy_defaults as _ensure_defaults
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

OBJECT_TYPES = (None, "dashboard", "dataset", "migration")

# Issue 28 adds a tool to the seed's sets of both pages: the page's object against its version elsewhere.
ISSUE_28_PAGE_TOOLS = {"compare_versions"}
ISSUE_28_DASHBOARD_TOOLS = ISSUE_28_PAGE_TOOLS | {"deploy_history", "rollback_deploy", "list_backups"}
SEED_ENGINEER_ON_DASHBOARD = {
    "search_dashboards",
    "get_health_summary",
    "deploy_dashboard",
    "run_llm_validation",
    "run_llm_documentation",
    "create_branch",
    "commit_changes",
    "show_capabilities",
}
ENGINEER_ON_DASHBOARD = SEED_ENGINEER_ON_DASHBOARD | ISSUE_28_DASHBOARD_TOOLS
ADMIN_ON_DASHBOARD = ENGINEER_ON_DASHBOARD | {"execute_migration"}
SEED_ON_DATASET = {
    "superset_explore_database",
    "superset_format_sql",
    "superset_audit_permissions",
    "superset_execute_sql",
    "superset_create_dataset",
    "search_dashboards",
    "get_task_status",
    "list_environments",
    "show_capabilities",
}
ADMIN_ON_DATASET = SEED_ON_DATASET | ISSUE_28_PAGE_TOOLS


@pytest.fixture(scope="module")
def users(django_db_setup, django_db_blocker) -> dict:
    """The default policy rows and one user per role, committed once for this module's ~300 tests.

    Each test still runs in a transaction that is rolled back, so changes made by a test do not leak.
    """
    with (
        django_db_blocker.unblock(),
        override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]),
    ):
        _ensure_defaults()
        return {role: make_user(role) for role in ROLES}


def context(object_type: str | None, env_id: str | None = "ss-dev") -> dict:
    return ui_context(object_type, 1 if object_type else None, env_id=env_id)


def offered(user, object_type, env_id="ss-dev") -> set[str]:
    return {spec.name for spec in toolset_for(user=user, context=context(object_type, env_id))}


def policy_offers(role: str, object_type: str | None, env_id: str | None = "ss-dev") -> set[str]:
    """What the policy tables alone offer (the registry filter left out)."""
    choices = toolset_explain(roles=[role], context=context(object_type, env_id))
    return {c.name for c in choices if set(c.refusals) <= {Refusal.UNKNOWN}} | {ALWAYS_OFFERED}


def test_engineer_on_dashboard_is_offered_exactly_the_seed_set_and_issue_28s(users):
    """DESIGN §8 dashboard list minus execute_migration (admin-only), plus issue 28's compare_versions and
    deploy_history; today ∩ what is registered."""
    assert policy_offers("engineer", "dashboard") == ENGINEER_ON_DASHBOARD
    assert offered(users["engineer"], "dashboard") == ENGINEER_ON_DASHBOARD & set(registry())


def test_admin_on_dashboard_is_offered_the_seeds_nine_and_issue_28s(users):
    assert len(SEED_ENGINEER_ON_DASHBOARD | {"execute_migration"}) == 9
    assert policy_offers("admin", "dashboard") == ADMIN_ON_DASHBOARD
    assert offered(users["admin"], "dashboard") == ADMIN_ON_DASHBOARD & set(registry())


def test_admin_on_dataset_is_offered_exactly_the_seeds_nine_and_issue_28s(users):
    assert len(SEED_ON_DATASET) == 9
    assert policy_offers("admin", "dataset") == ADMIN_ON_DATASET
    assert offered(users["admin"], "dataset") == ADMIN_ON_DATASET & set(registry())


@pytest.mark.parametrize("role", ROLES)
def test_without_object_type_every_tool_of_the_role_is_offered(users, role):
    role_tools = {name for name, (_, _, _, roles) in TOOLS.items() if role in roles}
    assert policy_offers(role, None) == role_tools
    assert offered(users[role], None) == role_tools & set(registry())


@pytest.mark.parametrize("object_type", OBJECT_TYPES)
@pytest.mark.parametrize("env_id", ["ss-dev", None])
def test_analyst_never_offered_write_or_dangerous_tools(users, object_type, env_id):
    """SC-005, prompt layer: no write or dangerous tool reaches an analyst's LLM, in any context."""
    names = policy_offers("analyst", object_type, env_id) | offered(users["analyst"], object_type, env_id)
    categories = {TOOLS[name][0] for name in names}
    assert categories == {"read"}
    assert not Tool.objects.filter(name__in=names).exclude(category="read").exists()


def test_without_env_env_specific_tools_are_not_offered(users):
    names = policy_offers("admin", None, None) | offered(users["admin"], None, None)
    assert names == {name for name, (_, env_specific, _, _) in TOOLS.items() if not env_specific}


def _tables_offer(role: str, object_type: str | None, env_present: bool, name: str) -> bool:
    """Oracle from the policy tables, by direct queries (independent of the code under test)."""
    if name == ALWAYS_OFFERED:
        return True
    tool = Tool.objects.get(name=name)
    return (
        tool.enabled
        and ToolPermission.objects.filter(tool=tool, group__name=role).exists()
        and (object_type is None or ContextToolAffinity.objects.filter(tool=tool, object_type=object_type).exists())
        and (env_present or not tool.env_specific)
    )


def _design_offers(role: str, object_type: str | None, env_present: bool, name: str) -> bool:
    """Oracle from the DESIGN §8 table (``policies.defaults``)."""
    _, env_specific, affinities, roles = TOOLS[name]
    if name == ALWAYS_OFFERED:
        return True
    return role in roles and (object_type is None or object_type in affinities) and (env_present or not env_specific)


@pytest.mark.parametrize("tool_name", sorted(TOOLS))
@pytest.mark.parametrize("object_type", OBJECT_TYPES)
@pytest.mark.parametrize("role", ROLES)
def test_offered_set_matches_policy_tables(users, role, object_type, tool_name):
    """Every role × object type × tool: offered iff registered and the tables allow it (with and without env)."""
    registered = tool_name in registry()
    for env_id in ("ss-dev", None):
        by_tables = _tables_offer(role, object_type, env_id is not None, tool_name)
        assert by_tables == _design_offers(role, object_type, env_id is not None, tool_name)
        assert (tool_name in offered(users[role], object_type, env_id)) == (registered and by_tables)


def test_row_not_registered_in_code_is_never_offered(users):
    """A catalogue row without code (retired, or not merged yet) is never offered, even fully permitted."""
    tool = Tool.objects.create(name="retired_tool", category="read", env_specific=False)
    for role in ROLES:
        ToolPermission.objects.create(group=users[role].groups.get(), tool=tool)
    ContextToolAffinity.objects.create(object_type="dashboard", tool=tool)
    for role in ROLES:
        assert "retired_tool" in policy_offers(role, "dashboard")
        assert "retired_tool" not in offered(users[role], "dashboard")
        assert "retired_tool" not in offered(users[role], None)


def test_disabled_tool_is_offered_to_nobody(users):
    Tool.objects.filter(name="get_health_summary").update(enabled=False)
    for role in ROLES:
        assert "get_health_summary" not in offered(users[role], "dashboard")


def test_show_capabilities_is_always_offered(users):
    """Even to a user with no role, disabled and without permission rows (seed AGCTX-FR-005)."""
    Tool.objects.filter(name=ALWAYS_OFFERED).update(enabled=False)
    ToolPermission.objects.filter(tool_id=ALWAYS_OFFERED).delete()
    nobody = users["analyst"]
    nobody.groups.clear()
    for object_type in OBJECT_TYPES:
        assert offered(nobody, object_type) == {ALWAYS_OFFERED}


def test_toolset_reads_the_database_on_every_call(users):
    """No cache: a change to the tables shows in the very next call (the next message)."""
    engineer = users["engineer"]
    assert "get_health_summary" in offered(engineer, "dashboard")
    ToolPermission.objects.filter(tool_id="get_health_summary", group__name="engineer").delete()
    assert "get_health_summary" not in offered(engineer, "dashboard")
    ContextToolAffinity.objects.create(tool_id="list_environments", object_type="dashboard")
    assert "list_environments" in offered(engineer, "dashboard")
    engineer.groups.set([users["analyst"].groups.get()])
    assert offered(engineer, "dashboard") == offered(users["analyst"], "dashboard")


def test_admin_descriptions_are_what_the_llm_reads(users):
    Tool.objects.filter(name="search_dashboards").update(description_en="Admin text EN", description_ru="Текст RU")
    spec = next(s for s in toolset_for(user=users["analyst"], context=context(None)) if s.name == "search_dashboards")
    assert spec.openai_schema()["function"]["description"] == "Admin text EN"  # the LLM reads English (issue 16)
    assert spec.description("ru") == "Текст RU"
    assert registry()["search_dashboards"].description_en != "Admin text EN"


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda: None, None),
        (lambda: Tool.objects.filter(name="get_health_summary").update(enabled=False), Refusal.DISABLED),
        (lambda: ToolPermission.objects.filter(tool_id="get_health_summary").delete(), Refusal.ROLE),
    ],
)
def test_invocation_check_rereads_the_database(users, change, expected):
    """Offered at the start of the turn, then disabled or revoked before the call: the call is refused."""
    change()
    assert tool_call_refusal(user=users["engineer"], name="get_health_summary", offered=["get_health_summary"]) == (
        expected
    )


def test_invocation_check_refuses_unknown_and_not_offered(users):
    engineer = users["engineer"]
    assert tool_call_refusal(user=engineer, name="drop_everything", offered=["drop_everything"]) == Refusal.UNKNOWN
    assert tool_call_refusal(user=engineer, name="get_health_summary", offered=[]) == Refusal.NOT_OFFERED
    assert tool_call_refusal(user=engineer, name=ALWAYS_OFFERED, offered=[ALWAYS_OFFERED]) is None
