"""A Superset title with a bidi override in a real browser (issue 13 item 6; DESIGN §7): the dashboard page, the
chat's answer and the «Спросить агента» context. The dashboard is created in ss-dev through Superset's API and
deleted afterwards."""

import re

from playwright.sync_api import expect

from tests.support import superset_api
from tests.support.browser import ask, login
from tests.support.superset_scratch import scratch
from tests.support.wording import text

RLO = "\u202e"
TITLE = f"Отчёт {RLO}txt.exe"
SHOWN = "Отчёт ⟨U+202E⟩txt.exe"


def test_a_title_with_a_bidi_override_is_shown_visibly_and_the_button_opens_a_valid_chat(page, app_server):
    with scratch() as made:
        dashboard = made.dashboard("ss-dev", TITLE)
        assert RLO in dashboard["dashboard_title"]  # Superset stores it as it is
        with superset_api.superset("ss-dev") as client:  # Superset shows a dashboard without charts to its owners
            users = client.get(
                "/api/v1/security/users/", params={"q": "(filters:!((col:username,opr:eq,value:engineer)))"}
            )
            engineer_id = users.json()["result"][0]["id"]
            client.put(f"/api/v1/dashboard/{dashboard['id']}", json={"owners": [engineer_id]}).raise_for_status()
        login(page, app_server, "engineer")

        page.goto(f"{app_server.url}/dashboards/{dashboard['id']}/?env_id=ss-dev")
        heading = page.get_by_test_id("dashboard-title").inner_text()
        assert heading.startswith(SHOWN)
        assert RLO not in page.content()

        page.get_by_test_id("ask-agent").click()
        page.wait_for_url(re.compile(r"/agent\?"))
        page.wait_for_selector("body[data-ws=open]")
        expect(page.get_by_test_id("context-summary")).to_contain_text(f"Дашборд #{dashboard['id']}")
        answer = ask(page, "расскажи про этот дашборд")
        assert SHOWN in answer  # the title read from Superset by id, shown visibly
        assert RLO not in answer
        messages = page.get_by_test_id("messages").inner_text()
        assert text("ru", "The page context was rejected: %(detail)s", detail="").rstrip(": ") not in messages
        assert RLO not in page.content()
