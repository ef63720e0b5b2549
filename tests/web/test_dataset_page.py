"""The dataset page (/datasets/<id>/) shows what get_dataset_details reads from Superset: dependencies, the
same dataset in the other environments and the review status."""

import re

import pytest
from django.utils.html import escape

from tests.support.superset_api import api, datasets_named
from tests.support.wording import text

pytestmark = pytest.mark.django_db


@pytest.fixture
def viewer(request, users):
    """Who looks at the page: the analyst (energy_consumption only, in Superset too) unless parametrized."""
    return users[getattr(request, "param", "analyst")]


@pytest.fixture
def page(client, viewer, superset_stack):
    client.force_login(viewer)

    def get(dataset_id: int, env_id: str = "ss-dev"):
        return client.get(f"/datasets/{dataset_id}/", {"env_id": env_id})

    return get


def related(dataset_id: int) -> dict[str, dict[int, str]]:
    body = api("ss-dev", "GET", f"/api/v1/dataset/{dataset_id}/related_objects")
    return {
        "dashboards": {d["id"]: d["title"] for d in body["dashboards"]["result"]},
        "charts": {c["id"]: c["slice_name"] for c in body["charts"]["result"]},
    }


def assert_dependents_listed(html: str, before: dict, after: dict) -> None:
    """Every dashboard and chart of dataset 1 that stayed the same while the page was read (Superset on SQLite
    reuses a deleted object's id for the next one) is linked on the page. Names are escaped on the page (another
    test's scratch title may hold «<»: issue 31), so escaped is compared with escaped."""
    for dashboard_id, title in before["dashboards"].items() & after["dashboards"].items():
        assert f'<a href="/dashboards/{dashboard_id}/?env_id=ss-dev">{escape(title)}</a>' in html
    for _chart_id, name in before["charts"].items() & after["charts"].items():
        assert f">{escape(name)}</a>" in html


def test_dataset_page_shows_dependents_mapping_and_review_status(page):
    before = related(1)  # other engineers' tests may add or remove charts meanwhile: check what stayed
    response = page(1)
    after = related(1)

    assert response.status_code == 200
    html = response.content.decode()
    assert_dependents_listed(html, before, after)
    assert {1, 2} <= before["dashboards"].keys()
    prod_id = next(
        d["id"] for d in datasets_named("prod", "energy_consumption") if d["database"]["database_name"] == "Energy"
    )
    link = f'<a href="/datasets/{prod_id}/?env_id=prod">есть (id {prod_id})</a>'
    assert re.search('data-env="prod" data-status="found">[^<]*<small>prod</small>:\\s*' + re.escape(link), html)
    assert re.search('data-testid="dataset-review">' + re.escape(text("ru", "not certified")), html)
    assert 'data-testid="dataset-table">energy_consumption<' in html
    assert "objectType=dataset" in html


@pytest.mark.parametrize("viewer", ["engineer"], indirect=True)  # the virtual dataset reads regions
def test_virtual_dataset_page_shows_sql_missing_in_prod_and_certification(page, virtual_dataset):
    api(
        "ss-dev",
        "PUT",
        f"/api/v1/dataset/{virtual_dataset['id']}",
        json={"extra": '{"certification": {"certified_by": "QA", "details": "ok"}}'},
    )

    html = page(virtual_dataset["id"]).content.decode()

    assert 'data-env="prod" data-status="missing">' in html
    assert 'data-testid="dataset-review">' + text("ru", "certified: %(by)s", by="QA") + " — ok" in html
    assert "SELECT region, population FROM regions" in html


def test_unknown_dataset_page_says_why(page):
    response = page(999_999)

    assert response.status_code == 404  # the dataset does not exist there: not an outage
    assert (
        text(
            "ru",
            "Dataset #%(id)s was not found in %(env)s, or Superset does not show it to your account.",
            id=999_999,
            env="ss-dev",
        )
        in response.content.decode()
    )


@pytest.mark.parametrize("viewer", ["engineer"], indirect=True)
def test_dependents_whose_names_hold_markup_are_listed_escaped(page, scratch):
    """A dashboard and a chart of dataset 1 named with «<», «>» and «&» (as another test's scratch objects may be):
    listed as text, never as markup, and the comparison above holds with them."""
    dashboard = scratch.dashboard("ss-dev", "<b>Энергия & «доля»</b>")
    chart = scratch.chart("ss-dev", "A<B & C>D", [dashboard["id"]], dataset_id=1)

    before = related(1)
    html = page(1).content.decode()
    after = related(1)

    assert chart["id"] in before["charts"]
    assert_dependents_listed(html, before, after)
    assert dashboard["dashboard_title"] not in html
    assert escape(dashboard["dashboard_title"]) in html
