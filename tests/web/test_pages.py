"""Object pages read from Superset: what a user sees for missing objects and unknown environments."""

import re

import pytest
from django.test import Client

from tests.support.superset_api import api
from tests.support.superset_scratch import scratch
from tests.support.wording import text as catalogue_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def engineer_client(users):
    client = Client()
    client.force_login(users["engineer"])
    return client


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "/dashboards/999999/?env_id=ss-dev",
            "Дашборд #999999 не найден в ss-dev или Superset не показывает его вашей учётной записи.",
        ),
        (
            "/datasets/999999/?env_id=prod",
            "Датасет #999999 не найден в prod или Superset не показывает его вашей учётной записи.",
        ),
    ],
)
def test_missing_object_is_a_404_page_that_says_so(engineer_client, superset_stack, url, expected):
    response = engineer_client.get(url)
    assert response.status_code == 404
    text = response.content.decode()
    assert expected in text
    assert "HTTP 404" not in text  # no raw upstream status
    unavailable = catalogue_text("ru", "Superset is unavailable (%(detail)s), try again later.", detail="\0").split(
        "\0"
    )[0]
    assert unavailable.rstrip(" (") not in text  # not an outage


def test_unknown_environment_is_an_app_404_page(engineer_client):
    response = engineer_client.get("/dashboards/?env_id=nonexistent")
    assert response.status_code == 404
    missing = catalogue_text("ru", "Environment “%(env_id)s” was not found or is switched off.", env_id="nonexistent")
    assert missing in response.content.decode()
    assert 'data-testid="page-error"' in response.content.decode()


def test_dashboard_page_links_to_the_agent_with_its_context(engineer_client, energy_dashboard):
    response = engineer_client.get(f"/dashboards/{energy_dashboard['id']}/?env_id=ss-dev")
    assert response.status_code == 200
    body = response.content.decode()
    assert "Отчёт по энергопотреблению" in body
    assert f"/agent?objectType=dashboard&amp;objectId={energy_dashboard['id']}" in body


@pytest.mark.parametrize("url", ["/dashboards/?env_id=ss-dev", "/dashboards/{id}/?env_id=ss-dev"])
def test_pages_show_times_as_the_chat_does(engineer_client, energy_dashboard, url):
    body = engineer_client.get(url.format(id=energy_dashboard["id"])).content.decode()
    assert re.search(r"\d\d\.\d\d\.\d{4} \d\d:\d\d MSK", body)
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d", body)  # no raw ISO timestamps


def test_datasets_page_lists_the_environments_datasets_from_superset(engineer_client, superset_stack):
    """Every dataset Superset lists for prod is a row: name linking to its page, database, schema, owners."""
    rows = api("prod", "GET", "/api/v1/dataset/", params={"q": "(page_size:100)"})["result"]
    assert rows

    response = engineer_client.get("/datasets/?env_id=prod")

    assert response.status_code == 200
    body = response.content.decode()
    for row in rows:
        link = f'<a href="/datasets/{row["id"]}/?env_id=prod">{row["table_name"]}</a>'
        assert link in body
        cells = re.search(rf'<tr data-dataset-id="{row["id"]}">(.*?)</tr>', body, re.S).group(1)
        assert f"<td>{row['database']['database_name']}</td>" in cells
        assert f"<td>{row['schema'] or '—'}</td>" in cells
        owners = ", ".join(f"{o['first_name']} {o['last_name']}".strip() for o in row["owners"]) or "—"
        assert f"<td>{owners}</td>" in cells
    assert 'href="/datasets/?env_id=prod"' in body  # the menu keeps the environment


def test_datasets_page_of_an_unknown_environment_is_a_404(engineer_client):
    assert engineer_client.get("/datasets/?env_id=nonexistent").status_code == 404


def test_agent_page_shows_a_raw_name_from_the_url_visibly_and_keeps_the_rest(engineer_client):
    """An ``objectName`` with bidi/zero-width characters typed into the URL is redirected to its visible form, so
    the page never shows it active and makes a valid context from it (issue 13 item 6)."""
    raw = "/agent?objectType=dataset&objectId=1&objectName=energy%E2%80%AEconsumption%E2%80%8B&envId=ss-dev"

    response = engineer_client.get(raw)

    assert response.status_code == 302
    page = engineer_client.get(response["Location"])
    assert page.wsgi_request.GET["objectName"] == "energy⟨U+202E⟩consumption⟨U+200B⟩"
    assert {k: page.wsgi_request.GET[k] for k in ("objectType", "objectId", "envId")} == {
        "objectType": "dataset",
        "objectId": "1",
        "envId": "ss-dev",
    }
    assert page.status_code == 200
    assert "\u202e" not in page.content.decode()


def test_agent_page_with_a_clean_name_is_not_redirected(engineer_client):
    response = engineer_client.get("/agent?objectType=dataset&objectId=1&objectName=energy_consumption")

    assert response.status_code == 200


def test_dashboard_page_names_chart_types_and_links_charts(engineer_client, energy_dashboard):
    """Issue 30 item 1: «Линейный график», not ``echarts_timeseries_line``; each chart opens in Superset."""
    body = engineer_client.get(f"/dashboards/{energy_dashboard['id']}/?env_id=ss-dev").content.decode()

    assert "<small>Линейный график</small>" in body
    assert "<small>Круговая диаграмма</small>" in body
    assert "echarts_timeseries" not in body
    assert re.search(r'<a href="http://127\.0\.0\.1:8088/explore/\?slice_id=\d+">', body)


def test_the_new_migration_form_shows_a_bidi_title_visibly(users, superset_stack):
    """Issue 30 item 5: the form's dashboard list drew «Sandbox ⟨U+202E⟩prod» as «Sandbox prod» reordered."""
    client = Client()
    client.force_login(users["admin"])
    with scratch() as made:
        made.dashboard("ss-dev", "Sandbox \u202eprod")
        body = client.get("/migrations/?env_id=ss-dev").content.decode()

    assert "Sandbox ⟨U+202E⟩prod" in body
    assert "\u202e" not in body
