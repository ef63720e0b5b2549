"""The health summary's git line when Superset answers the summary's reads but refuses the export with a 5xx (a
fresh check: the analyst on «Обзор регионов», whose regions dataset they may not read, was told «Superset
недоступен (HTTP 500), повторите позже» while the rest of the same answer came from Superset)."""

import pytest

from tests.support.superset_api import dashboards_all
from tests.support.tool_runs import run_tool
from tests.support.wording import DASHBOARD_EXPORT_REFUSED, plural, text

pytestmark = pytest.mark.django_db(transaction=True)


async def test_an_export_refused_to_the_account_is_not_said_to_be_an_outage(analyst):
    (regions,) = [d for d in dashboards_all("ss-dev") if d["dashboard_title"] == "Обзор регионов"]

    outcome = await run_tool("get_health_summary", analyst, env_id="ss-dev", dashboard_id=regions["id"])

    assert outcome.ok, outcome.error_message  # the summary itself is read
    error = outcome.result["git"]["error"]
    assert error == plural(
        "ru",
        *DASHBOARD_EXPORT_REFUSED,
        1,
        ids=f"#{regions['id']}",
        env="ss-dev",
        status=500,
    )
    assert text("ru", "Superset is unavailable (%(detail)s), try again later.", detail="§").split("§")[0] not in error
