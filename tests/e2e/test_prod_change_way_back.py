"""A prod change a person can see before and undo after (issue 28 Must show 1; DESIGN §16), in a real browser on the
local pair with the offline planner.

A dashboard of ss-dev is deployed to prod through the chat. Then prod is edited by hand — its title renamed (drift)
and a hand-made chart with the same name as the deployed one put on it (a duplicate) — and the chart's metric is
changed in ss-dev. Asked to deploy again, the card shows the title and metric diff, the drift line naming the
editor, the copy line and the chart that would be left detached; approved with its deletion ticked, prod matches
ss-dev with no duplicate-named chart. «откати последний деплой в prod» → card → approved → prod's export equals the
copy saved before that deploy (and the test's own export of prod taken before it), ids and dates aside.
Screenshots go to ``<pytest tmp>/test-results/`` (the path is printed).
"""

import json
from pathlib import Path

import psycopg
from playwright.sync_api import expect

from agentchat.superset.bundle import bundle_comparable, bundle_read
from tests.support import superset_api
from tests.support.browser import ask, login
from tests.support.superset_scratch import scratch

CARD = "[data-card=confirm]"


def _export(env_id: str, dashboard_id: int):
    with superset_api.superset(env_id) as client:
        response = client.get("/api/v1/dashboard/export/", params={"q": f"!({dashboard_id})"})
        response.raise_for_status()
    return bundle_read(response.content)


def _approve(page, *, tick: bool = False) -> None:
    card = page.locator(CARD).last
    card_id = card.get_attribute("data-confirmation-id")
    if tick:
        card.locator("input[data-option=remove_detached]").check()
    card.locator("[data-role=typed-env]").fill("prod")
    card.locator("[data-action=approve]").click()
    done = page.locator(f"[data-card=state][data-confirmation-id='{card_id}'][data-status=executed]")
    expect(done).to_be_visible(timeout=90_000)


def _last_copy_path(server, tool: str) -> str:
    with psycopg.connect(server.env["DATABASE_URL"], autocommit=True) as conn:
        row = conn.execute(
            "SELECT path FROM agentchat_backup WHERE kind = 'pre_change' AND change->>'tool' = %s ORDER BY id DESC",
            (tool,),
        ).fetchone()
    assert row is not None, f"no copy made before {tool}"
    return row[0]


def test_a_prod_deploy_shows_its_diff_drift_copy_and_detached_chart_and_is_rolled_back(page, app_server, tmp_path):
    shots = Path(tmp_path) / "test-results"
    shots.mkdir()
    with scratch() as made:
        dev = made.dashboard("ss-dev", "Путь назад", slug="way-back")
        chart = made.chart("ss-dev", "Потребление", [dev["id"]], params={"metrics": ["count"]})
        login(page, app_server, "engineer")
        page.goto(f"{app_server.url}/dashboards/{dev['id']}/?env_id=ss-dev")
        page.get_by_test_id("ask-agent").click()
        page.wait_for_selector("body[data-ws=open]")

        # a first deploy through the chat: prod gets the dashboard, the audit knows when
        page.fill("[data-testid=chat-input]", "задеплой этот дашборд в prod")
        page.click("[data-testid=send]")
        expect(page.locator(CARD).last).to_be_visible(timeout=60_000)
        _approve(page)
        prod = superset_api.dashboard_by_slug("prod", dev["slug"])

        # prod edited by hand afterwards: renamed (drift) and a second chart of the same name put on it
        edited = f"Путь назад (правка в prod) {made.tag}"
        made.rename("prod", "dashboard", prod["id"], "dashboard_title", edited)
        made.chart("prod", "Потребление", [prod["id"]], params={"metrics": ["count"]})
        [layout] = _export("prod", prod["id"]).by_uuid("dashboards").values()  # stored as a person's save stores it
        made.rename("prod", "dashboard", prod["id"], "position_json", json.dumps(layout["position"]))
        editor = superset_api.api("prod", "GET", f"/api/v1/dashboard/{prod['id']}")["result"]["changed_by"]
        editor_name = " ".join(p for p in (editor.get("first_name"), editor.get("last_name")) if p)
        before = _export("prod", prod["id"])
        assert sorted(superset_api.dashboard_chart_names("prod", prod["id"])) == [chart["slice_name"]] * 2
        # and in ss-dev the chart's metric changed
        dataset_id = made.dataset_id("ss-dev", "energy_consumption")
        form = {"viz_type": "table", "datasource": f"{dataset_id}__table", "metrics": ["sum__kwh"]}
        made.rename("ss-dev", "chart", chart["id"], "params", json.dumps(form))

        # the second deploy's card: the diff, the drift line naming the editor, the copy line, the detached chart
        page.fill("[data-testid=chat-input]", "задеплой этот дашборд в prod ещё раз")
        page.click("[data-testid=send]")
        card = page.locator(CARD).last
        expect(card).to_be_visible(timeout=60_000)
        expect(card.get_by_test_id("prod-badge")).to_be_visible()
        changes = card.get_by_test_id("card-changes")
        expect(changes).to_contain_text(f"заголовок «{edited}» → «{dev['dashboard_title']}»")
        expect(changes).to_contain_text(f"«{chart['slice_name']}»: метрики «count» → «sum__kwh»")
        expect(card.get_by_test_id("card-drift")).to_contain_text("prod изменён после последнего деплоя")
        expect(card.get_by_test_id("card-drift")).to_contain_text(editor_name)
        expect(card.get_by_test_id("card-copy")).to_contain_text("Перед изменением сохраняется копия текущей версии")
        expect(card.get_by_test_id("card-detached")).to_contain_text(f"останется без дашборда: «{chart['slice_name']}»")
        expect(card.locator("input[data-option=remove_detached]")).not_to_be_checked()
        page.screenshot(path=shots / "1-deploy-card.png", full_page=True)
        _approve(page, tick=True)
        page.screenshot(path=shots / "2-deployed.png", full_page=True)

        # then prod matches ss-dev, and no chart of that name is left twice
        now = superset_api.dashboard_by_slug("prod", dev["slug"])
        assert now["dashboard_title"] == dev["dashboard_title"]
        assert superset_api.dashboard_chart_names("prod", now["id"]) == [chart["slice_name"]]
        assert len(superset_api.chart_ids_named(chart["slice_name"], "prod")) == 1
        [deployed] = _export("prod", now["id"]).by_uuid("charts").values()
        assert deployed["params"]["metrics"] == ["sum__kwh"]
        copy_path = _last_copy_path(app_server, "deploy_dashboard")

        # «откати последний деплой в prod» → its card → approved
        page.fill("[data-testid=chat-input]", "откати последний деплой в prod")
        page.click("[data-testid=send]")
        card = page.locator(CARD).last
        expect(card).to_be_visible(timeout=60_000)
        expect(card).to_have_attribute("data-tool", "rollback_deploy")
        expect(card.get_by_test_id("card-changes")).to_contain_text(f"«{dev['dashboard_title']}» → «{edited}»")
        page.screenshot(path=shots / "3-rollback-card.png", full_page=True)
        _approve(page)
        answer = page.locator("[data-testid=assistant-message][data-final='1']").last
        expect(answer).to_contain_text("Проверено", timeout=60_000)
        page.screenshot(path=shots / "4-rolled-back.png", full_page=True)

        # then prod's export equals the copy saved before the deploy, and the test's own export from before it
        restored = _export("prod", superset_api.dashboard_by_slug("prod", dev["slug"])["id"])
        copy = bundle_read(Path(copy_path).read_bytes())
        assert bundle_comparable(restored) == bundle_comparable(copy)
        assert bundle_comparable(restored) == bundle_comparable(before)
        assert sorted(superset_api.dashboard_chart_names("prod", prod["id"])) == [chart["slice_name"]] * 2

        # the history names both deploys and the rollback
        history = ask(page, "когда этот дашборд последний раз деплоили в prod и кто?")
        assert history.count("ss-dev → prod, выполнено") == 2, history
        assert "откачено" in history, history
    print(f"screenshots: {shots}")  # noqa: T201 - where a person finds the pictures
