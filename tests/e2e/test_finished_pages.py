"""Pages that read like a finished product, in Chromium at 1366×900, in Russian and English (issue 30 items 2, 3, 5
and the Must show): a stored migration preview in the reader's language; /settings/ messages; the admin's lists
fitting the screen, branded, counted as labels, «Добавить: группа», django-tasks in Russian; an accessibility
pass (axe-core, no serious or critical violation) of /agent, a confirmation card and /migrations/<id>/; and the
screenshot set of the main pages, a card, the admin lists (``var/test-results/screenshots``).
"""

import re

import psycopg
import pytest
from playwright.sync_api import expect

from tests.e2e.test_finished_answers import dataset_id
from tests.support.accessibility import serious_violations
from tests.support.browser import final_answer, login, open_agent_from
from tests.support.screenshots import VIEWPORT, keep
from tests.support.superset_api import dashboard_by_slug
from tests.support.wording import ptext, text

ENERGY = "Отчёт по энергопотреблению"


@pytest.fixture(scope="module")
def migration_id(app_server) -> int:
    """A saved migration ss-dev → prod of «Отчёт по энергопотреблению» (made in the app's database; never run)."""
    energy = dashboard_by_slug("ss-dev", "energy-report")
    dashboards = f'[{{"id": {energy["id"]}, "uuid": "{energy["uuid"]}", "title": "{ENERGY}"}}]'
    with psycopg.connect(app_server.env["DATABASE_URL"], autocommit=True) as conn:
        admin = conn.execute("SELECT id FROM auth_user WHERE username = 'admin'").fetchone()[0]
        row = conn.execute(
            "INSERT INTO agentchat_migration (name, source_env_id, target_env_id, dashboards, database_mapping, "
            "status, created_by_id, created_at, updated_at) VALUES (%s, 'ss-dev', 'prod', %s::jsonb, '{}'::jsonb, "
            "'draft', %s, now(), now()) RETURNING id",
            ("Квартальный перенос в prod", dashboards, admin),
        ).fetchone()
    return int(row[0])


def test_a_preview_stored_in_russian_reads_in_english_with_labels(page_in, app_server, migration_id):
    ru = page_in("ru")
    login(ru, app_server, "admin")
    open_agent_from(ru, app_server, f"/migrations/{migration_id}/")
    final_answer(ru, "что изменится при этой миграции?")
    en = page_in("en")
    login(en, app_server, "admin")

    en.goto(f"{app_server.url}/migrations/{migration_id}/")

    preview = en.get_by_test_id("migration-preview")
    expect(preview).to_contain_text("will be changed in prod")
    summary = preview.locator("p").inner_text()  # Superset's names in it are data: our words must be English
    assert not [word for word in ("будет", "Создать", "Оставить", "Изменения", "копия", "дашборд") if word in summary]
    cells = preview.locator("tbody tr td:first-child").all_inner_texts()
    assert set(cells) <= {"Dashboard", "Chart", "Dataset", "Database"}
    actions = set(preview.locator("tbody tr td:last-child").all_inner_texts())
    planned = ("will be created", "will be overwritten", "will be replaced (same slug)", "kept as is")
    assert actions <= {text("en", a) for a in planned}
    keep(en, "migration-page-en")
    assert serious_violations(en) == []  # /migrations/<id>/
    ru.goto(f"{app_server.url}/migrations/{migration_id}/")
    keep(ru, "migration-page-ru")
    assert serious_violations(ru) == []


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_agent_page_and_a_prod_card_pass_the_accessibility_check(page_in, app_server, language):
    energy = dashboard_by_slug("ss-dev", "energy-report")
    page = page_in(language)
    login(page, app_server, "engineer")
    open_agent_from(page, app_server, f"/dashboards/{energy['id']}/?env_id=ss-dev")
    assert serious_violations(page) == []  # the empty chat with its examples
    final_answer(page, {"ru": "расскажи про этот дашборд", "en": "tell me about this dashboard"}[language])

    page.fill(
        "[data-testid=chat-input]",
        {"ru": "задеплой этот дашборд в prod", "en": "deploy this dashboard to prod"}[language],
    )
    page.click("[data-testid=send]")
    card = page.locator("[data-card=confirm]").last
    expect(card).to_be_visible(timeout=60_000)

    assert serious_violations(page) == []  # /agent with an answer, its links and the card
    assert serious_violations(page, "[data-card=confirm]") == []
    keep(page, f"chat-with-card-{language}")
    page.add_style_tag(content=".messages { max-height: none; }")  # the whole card in its picture
    keep(page, f"card-prod-deploy-{language}", element=card)
    card.locator("[data-action=deny]").click()
    cancelled = page.locator("[data-card=cancelled]").last
    expect(cancelled).to_be_visible()
    keep(page, f"card-cancelled-{language}", element=cancelled)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_settings_messages_are_one_line_and_the_main_pages_are_kept(page_in, app_server, language):
    page = page_in(language)
    login(page, app_server, "engineer")
    page.goto(app_server.url + "/settings/")
    page.fill("input[name=api_key]", "sst_not-a-key")
    page.click(".api-key-form button[type=submit]")

    message = page.get_by_test_id("settings-message")
    expect(message).to_have_text(text(language, "Superset %(env)s did not accept this API key.", env="prod"))
    assert message.bounding_box()["height"] < 80  # the chat's message list was at least half a screen high
    assert page.locator("main").bounding_box()["height"] < VIEWPORT["height"]
    keep(page, f"settings-{language}")
    energy = dashboard_by_slug("ss-dev", "energy-report")
    for name, path in (
        ("dashboards", "/dashboards/?env_id=ss-dev"),
        ("dashboard", f"/dashboards/{energy['id']}/?env_id=ss-dev"),
        ("datasets", "/datasets/?env_id=ss-dev"),
        ("dataset", f"/datasets/{dataset_id()}/?env_id=ss-dev"),
        ("migrations", "/migrations/"),
    ):
        page.goto(app_server.url + path)
        expect(page.locator("main")).to_be_visible()
        keep(page, f"{name}-{language}")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_admin_is_branded_fits_the_screen_and_reads_without_agreement_errors(page_in, app_server, language):
    page = page_in(language)
    login(page, app_server, "admin")

    page.goto(app_server.url + "/admin/policies/tool/")
    expect(page.locator("#site-name")).to_have_text(text(language, "agentchat administration"))
    results = page.locator("#changelist .results")
    fits = results.evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    assert fits  # no column is cut off at 1366 px
    count = page.get_by_test_id("result-count").inner_text()
    assert re.fullmatch(rf"{text(language, 'tools')[:1].upper()}{text(language, 'tools')[1:]}: \d+", count)
    expect(page.locator("#result_list tbody tr").first.locator("code.tool-code")).to_be_visible()
    keep(page, f"admin-tools-{language}")

    page.goto(app_server.url + "/admin/auth/group/add/")
    expect(page.locator("h1")).to_have_text(text(language, "Add %s") % text(language, "group"))
    page.goto(app_server.url + "/admin/policies/auditevent/")
    expect(page.locator("#result_list")).to_be_visible()
    assert page.locator("#changelist .results").evaluate("el => el.scrollWidth <= el.clientWidth + 1")
    keep(page, f"admin-audit-{language}")
    page.goto(app_server.url + "/admin/django_tasks_database/dbtaskresult/")
    expect(page.locator("#changelist-filter")).to_contain_text(ptext(language, "Task", "Successful"))
    keep(page, f"admin-tasks-{language}")
    if language == "ru":
        assert "Task Result" not in page.content()
        assert "Successful" not in page.content()
