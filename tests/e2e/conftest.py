"""Browser tests: a real daphne process (HTTP + WebSocket) on its own PostgreSQL database, driven by Playwright
with Debian's Chromium (no browser download). Run in their own pytest invocation (``make test-e2e``)."""

import os

import pytest
from playwright.sync_api import sync_playwright

from tests.support.browser import CHROMIUM, CHROMIUM_ARGS, AppServer, service_mode
from tests.support.processes import free_port, fresh_database
from tests.support.screenshots import VIEWPORT


@pytest.fixture(scope="session")
def app_server():
    """agentchat on a free port with a fresh, migrated, demo-seeded PostgreSQL database (``<name>_e2e``), its
    environments in service mode (``test_acting_as_user`` starts a password-mode server of its own)."""
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    env = {
        **os.environ,
        "DATABASE_URL": fresh_database(base, "_e2e"),
        "DEBUG": "1",
        "DJANGO_SETTINGS_MODULE": "agentchat.settings",
    }
    server = AppServer(env, free_port())
    server.manage("migrate", "--noinput")
    server.manage("seed_demo")
    service_mode(server)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(locale="ru-RU")
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    yield pg
    context.close()


LOCALES = {"ru": "ru-RU", "en": "en-US"}


@pytest.fixture
def page_in(browser):
    """``page_in(language)``: a new signed-out page at 1366×900 of a browser that asks for ``language`` (``ru``
    or ``en``), allowed to use the clipboard (issue 30's pages in both languages)."""
    contexts = []

    def make(language: str):
        context = browser.new_context(locale=LOCALES[language], viewport=VIEWPORT)
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        contexts.append(context)
        made = context.new_page()
        made.set_default_timeout(30_000)
        return made

    yield make
    for context in contexts:
        context.close()
