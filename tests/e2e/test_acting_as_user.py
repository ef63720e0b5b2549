"""Who the agent acts as, in a real browser (issue 13): the analyst signs in with their Superset password, asks for
a table Superset does not let them read from a dataset's page and reads Superset's refusal; an API key made in
Superset and pasted on /settings/ is listed (masked). A server of its own in password mode (the demo default)."""

import re

import pytest
from playwright.sync_api import expect

from tests.support.api_keys import api_key_create, api_key_revoke
from tests.support.browser import AppServer, ask, login
from tests.support.processes import free_port, fresh_database
from tests.support.wording import table_refused


@pytest.fixture(scope="module")
def password_server(app_server):
    """agentchat on its own fresh database, every environment in password mode (as ``make run`` has it)."""
    env = {**app_server.env, "DATABASE_URL": fresh_database(app_server.env["DATABASE_URL"], "_identity")}
    server = AppServer(env, free_port())
    server.manage("migrate", "--noinput")
    server.manage("seed_demo")
    server.start()
    yield server
    server.stop()


def test_analyst_is_refused_by_superset_and_adds_an_api_key(page, password_server):
    login(page, password_server, "analyst")
    page.goto(f"{password_server.url}/datasets/?env_id=ss-dev")
    page.get_by_role("link", name="energy_consumption", exact=True).click()
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent\?objectType=dataset"))

    allowed = ask(page, "выполни SELECT COUNT(*) AS n FROM energy_consumption")
    refused = ask(page, "выполни SELECT * FROM regions LIMIT 5")

    refuses = table_refused("ru", "main.regions", "ss-dev")  # Superset refused, naming the table (issue 30)
    assert refuses not in allowed
    assert refuses in refused

    key, key_uuid = api_key_create("ss-dev", "analyst")
    page.goto(f"{password_server.url}/settings/")
    for env_id in ("ss-dev", "prod"):  # signed in with the Superset password: an identity per instance
        expect(page.locator(f'[data-testid=identities] tr[data-kind="password"][data-env="{env_id}"]')).to_have_count(1)
    form = page.get_by_test_id("api-key-form")
    form.locator("select[name=env_id]").select_option("ss-dev")
    form.locator("input[name=api_key]").fill(key)
    form.get_by_role("button").click()
    row = page.locator('[data-testid=identities] tr[data-kind="api_key"][data-env="ss-dev"]')
    try:
        expect(row).to_have_count(1)
    finally:
        api_key_revoke("ss-dev", "analyst", key_uuid)
    expect(row).to_contain_text(f"{key[:4]}…{key[-4:]}")
    expect(row).to_contain_text("analyst")
    assert key not in page.content()
