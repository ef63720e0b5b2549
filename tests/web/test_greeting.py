"""An empty chat greets with example questions for the page's object and the person's role (issue 30 item 5):
each example is offered only where its tool is, and the offline planner answers each with that tool (so a click
never lands on a refusal or a question back)."""

import pytest
from django.test import Client
from django.utils import translation

from agentchat.web.greeting import EXAMPLES, greeting_examples
from tests.llm.test_offline_planner import knowledge, specs, step  # noqa: F401 - the planner's fixtures

pytestmark = pytest.mark.django_db

PAGES = [("dashboard", "ss-dev"), ("dataset", "ss-dev"), ("migration", "ss-dev"), (None, None)]
# A row count reads the dataset's table first, then counts; a migration is previewed before it runs (README "LLM
# providers": the planner chains them).
LOOKED_UP_FIRST = {"superset_execute_sql": "superset_explore_database", "execute_migration": "preview_migration"}


@pytest.mark.parametrize("role", ["analyst", "engineer", "admin"])
@pytest.mark.parametrize(("kind", "env_id"), PAGES)
@pytest.mark.parametrize("language", ["ru", "en"])
def test_each_example_shown_is_answered_by_its_tool(users, specs, knowledge, role, kind, env_id, language):  # noqa: F811
    with translation.override(language):
        examples = greeting_examples(user=users[role], object_type=kind, env_id=env_id)

    assert 3 <= len(examples) <= 4
    where = f"{kind or ''}/1@{env_id or ''}" if kind else f"@{env_id or ''}"
    for example in examples:
        message = step(specs, knowledge, example["text"], where, role=role)
        first = message.tool_calls[0]["name"] if message.tool_calls else None
        assert first in (example["tool"], LOOKED_UP_FIRST.get(example["tool"])), (example, message.content[:200])


def test_an_analyst_is_not_invited_to_change_anything(users):
    tools = {e["tool"] for e in greeting_examples(user=users["analyst"], object_type="dashboard", env_id="ss-dev")}
    engineer = {e["tool"] for e in greeting_examples(user=users["engineer"], object_type="dashboard", env_id="ss-dev")}

    assert "get_health_summary" in tools
    assert not tools & {"deploy_dashboard", "run_llm_validation", "execute_migration"}
    assert engineer - tools  # the engineer's role offers more


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_chat_page_shows_the_examples_as_buttons(users, language):
    client = Client()
    client.force_login(users["engineer"])
    headers = {} if language == "ru" else {"accept_language": "en"}

    page = client.get("/agent?objectType=dashboard&objectId=1&envId=ss-dev", headers=headers).content.decode()

    with translation.override(language):
        first = str(EXAMPLES["dashboard"][0][1])
    assert f'data-tool="get_health_summary" data-testid="example">{first}</button>' in page
