"""Helpers of the browser tests (tests/e2e) and the card bench: agentchat as a real daphne process on its own
fresh PostgreSQL database, Debian's Chromium (no browser download) and the chat page driven through Playwright."""

import os
import re
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
from playwright.sync_api import expect

from tests.support.processes import free_port, fresh_database

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class AppServer:
    """A daphne process serving agentchat; ``url`` is its base URL."""

    def __init__(self, env: dict[str, str], port: int):
        self.env = env
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log = ROOT / "var" / f"e2e-daphne-{port}.log"
        self.process: subprocess.Popen | None = None

    def manage(self, *args: str) -> None:
        subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env, check=True, stdout=subprocess.DEVNULL
        )

    def start(self) -> None:
        self.log.parent.mkdir(exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port), "agentchat.asgi:application"],
            cwd=ROOT,
            env=self.env,
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url + "/accounts/login/", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        raise RuntimeError(f"daphne did not start: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.process:
            self.process.terminate()
            self.process.wait(10)


def service_mode(server: AppServer) -> None:
    """Put the server's environments in service mode: browser tests about something else than whom the agent acts
    as run as the shared account, explicitly (DESIGN §15; ``tests/e2e/test_acting_as_user.py`` does not)."""
    for env_id in ("ss-dev", "staging", "prod"):
        server.manage("set_environment", env_id, "--auth-mode", "service")


@contextmanager
def openai_app_server_with(app_server: AppServer, *, db_suffix: str, llm, extra_env: dict[str, str] | None = None):
    """Yield another agentchat process with ``LLM_PROVIDER=openai`` pointed at the scripted server ``llm``
    (``tests.support.chat_server.ChatServer``, already started), on its own fresh database
    ``<name>_e2e_<db_suffix>``."""
    base = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentchat")
    env = {
        **app_server.env,
        "DATABASE_URL": fresh_database(base, f"_e2e_{db_suffix}"),
        "LLM_PROVIDER": "openai",
        "LLM_BASE_URL": llm.url,
        "LLM_API_KEY": "test-key",
        "LLM_MODEL": llm.model,
        **(extra_env or {}),
    }
    server = AppServer(env, free_port())
    server.manage("migrate", "--noinput")
    server.manage("seed_demo")
    service_mode(server)
    server.start()
    server.llm = llm
    try:
        yield server
    finally:
        server.stop()


def ask(page, text: str) -> str:
    """Type ``text`` into the chat, send it and return the text of the next final assistant answer."""
    page.wait_for_selector("body[data-ws=open]")
    before = page.locator("[data-testid=assistant-message][data-final='1']").count()
    page.fill("[data-testid=chat-input]", text)
    page.click("[data-testid=send]")
    answer = page.locator("[data-testid=assistant-message][data-final='1']").nth(before)
    expect(answer).to_be_visible(timeout=60_000)
    return answer.inner_text()


def login(page, server: AppServer, username: str, password: str = "demo") -> None:
    """Sign in through Django's login form."""
    page.goto(server.url + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def open_agent_from(page, server: AppServer, path: str) -> None:
    """Open the object page ``path`` and press «Спросить агента» (a fresh visit of /agent)."""
    page.goto(server.url + path)
    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent\?"))
    page.wait_for_selector("body[data-ws=open]")


def final_answer(page, question: str):
    """Send ``question`` and return the locator of its final answer (``ask`` returns only its text)."""
    final = "[data-testid=assistant-message][data-final='1']"
    before = page.locator(final).count()
    page.fill("[data-testid=chat-input]", question)
    page.click("[data-testid=send]")
    answer = page.locator(final).nth(before)
    expect(answer).to_be_visible(timeout=60_000)
    return answer
