"""Issue 15's scenario in a real browser: a saved migration ss-dev → prod of «Отчёт по энергопотреблению» made on
/migrations/, opened, «Спросить агента»; «что изменится при этой миграции?» previews it; «запусти миграцию» shows
the red PRODUCTION card with typed confirmation naming the plan; approved, a real db_worker runs it, the page shows
the progress and ``done``, and the dashboard is in prod with its charts. Objects the run created in prod are
removed afterwards (the seeded prod dashboard has the same uuid, so it is overwritten with the same content).
The demo ``admin`` signs in with the demo password and acts as Superset's ``admin`` person in both instances
(password mode, DESIGN §15): prod records the import under that person, not the stack's service account."""

import re
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from playwright.sync_api import expect

from tests.support.browser import ROOT, ask, login
from tests.support.superset_api import api, dashboard_by_slug, dashboard_chart_names
from tests.support.superset_scratch import objects_delete

ENERGY = "Отчёт по энергопотреблению"
CARD = "[data-card=confirm]"


@pytest.fixture
def worker(app_server, tmp_path):
    """A ``manage.py db_worker`` on the app server's database (runs the migration job)."""
    log = Path(tmp_path) / "db_worker.log"
    args = ["db_worker", "--interval", "0.2", "--no-startup-delay", "--no-reload", "--queue-name", "*"]
    process = subprocess.Popen(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=app_server.env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    yield process
    process.terminate()
    process.wait(10)


@pytest.fixture
def password_mode(app_server):
    """Every environment acts as the signed-in user (DESIGN §15; the session's server runs in service mode): the demo
    ``admin`` signs in with the demo password and gets its own identity in both instances. Modes put back after."""
    with psycopg.connect(app_server.env["DATABASE_URL"], autocommit=True) as conn:
        modes = conn.execute("SELECT env_id, auth_mode FROM policies_environment").fetchall()
        conn.execute("UPDATE policies_environment SET auth_mode = 'password'")
    yield
    with psycopg.connect(app_server.env["DATABASE_URL"], autocommit=True) as conn:
        for env_id, mode in modes:
            conn.execute("UPDATE policies_environment SET auth_mode = %s WHERE env_id = %s", (mode, env_id))


def uuids(env_id: str, kind: str) -> dict[str, int]:
    rows = api(env_id, "GET", f"/api/v1/{kind}/", params={"q": "(columns:!(id,uuid),page_size:100)"})["result"]
    return {r["uuid"]: r["id"] for r in rows}


@pytest.fixture
def prod_restored():
    """Whatever dashboards and charts the migration creates in prod are deleted after the test: by id, not uuid —
    an import that takes over a prod dashboard of the same slug keeps its id and gives it the source's uuid, and
    deleting that row would delete prod's own dashboard."""
    before = {kind: set(uuids("prod", kind).values()) for kind in ("dashboard", "chart")}
    yield
    for kind in ("dashboard", "chart"):
        created = [i for i in uuids("prod", kind).values() if i not in before[kind]]
        if created:
            objects_delete("prod", kind, created)


def test_migration_of_the_energy_report_from_the_migrations_page_to_prod(
    page, app_server, password_mode, worker, prod_restored
):
    login(page, app_server, "admin")
    page.goto(f"{app_server.url}/migrations/?source_env_id=ss-dev")
    form = page.get_by_test_id("migration-form")
    name = "Энергетика в прод (e2e)"
    form.locator("input[name=name]").fill(name)
    form.locator("select[name=target_env_id]").select_option("prod")
    form.get_by_label(ENERGY).check()
    form.get_by_test_id("migration-create").click()
    page.wait_for_url(re.compile(r"/migrations/\d+/$"))
    migration_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    expect(page.get_by_test_id("migration-status")).to_have_attribute("data-status", "draft")
    expect(page.get_by_test_id("migration-dashboards")).to_contain_text(ENERGY)

    page.get_by_test_id("ask-agent").click()
    page.wait_for_url(re.compile(r"/agent\?objectType=migration"))
    preview = ask(page, "что изменится при этой миграции?")
    assert f"#{migration_id}" in preview
    assert name in preview
    assert ENERGY in preview
    assert "prod" in preview

    page.fill("[data-testid=chat-input]", "запусти миграцию")
    page.click("[data-testid=send]")
    card = page.locator(CARD).last
    expect(card).to_be_visible(timeout=60_000)
    expect(card).to_have_attribute("data-tone", "destructive")
    expect(card.get_by_test_id("prod-badge")).to_have_text("⚠️ PRODUCTION")
    expect(card.get_by_test_id("card-plan")).to_contain_text(f"#{migration_id} «{name}»")
    expect(card.get_by_test_id("card-impact")).to_contain_text(ENERGY)
    approve = card.locator("[data-action=approve]")
    expect(approve).to_be_disabled()
    card.locator("[data-role=typed-env]").fill("prod")
    approve.click()
    expect(page.get_by_test_id("task-progress").last).to_have_attribute("data-state", "succeeded", timeout=120_000)

    page.goto(f"{app_server.url}/migrations/{migration_id}/")
    expect(page.get_by_test_id("migration-status")).to_have_attribute("data-status", "done")
    expect(page.locator("[data-outcome=deployed]")).to_contain_text(ENERGY)
    prod = dashboard_by_slug("prod", "energy-report")
    source = dashboard_by_slug("ss-dev", "energy-report")
    assert prod["dashboard_title"] == ENERGY
    people = api(
        "prod", "GET", "/api/v1/security/users/", params={"q": "(filters:!((col:username,opr:eq,value:admin)))"}
    )
    assert prod["changed_by"]["id"] == people["result"][0]["id"]
    assert sorted(dashboard_chart_names("prod", prod["id"])) == sorted(dashboard_chart_names("ss-dev", source["id"]))
    page.goto(f"{app_server.url}/migrations/?env_id=prod&status=done")
    expect(page.locator(f"[data-migration-id='{migration_id}']")).to_be_visible()
