"""Policy look-ups once per policy version (issue 17, ``policies.snapshot``), on PostgreSQL.

Two caches stand for two processes: they share nothing but the database. An edit made in the admin (committed
by its own request) must be seen by both at their next read; while nothing changes a read is one query (the
version row) and the tables are not read again.
"""

import pytest
from django.contrib.auth.models import Group
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from policies.models import Tool, ToolPermission
from policies.snapshot import PolicyCache
from tests.support.admin_forms import change_form_data

pytestmark = pytest.mark.django_db(transaction=True)
TOOL = "get_health_summary"


def _tool(cache: PolicyCache, name: str = TOOL):
    return next(t for t in cache.snapshot().tools if t.name == name)


def test_an_admin_edit_is_seen_by_every_cache_at_its_next_read(root_client, users):
    first, second = PolicyCache(), PolicyCache()
    assert _tool(first).enabled
    assert _tool(second).enabled
    roles_before = first.snapshot().roles_of[TOOL]
    assert "analyst" in roles_before
    version = first.snapshot().version

    url = reverse("admin:policies_tool_change", args=[TOOL])
    data = change_form_data(root_client.get(url))
    data.pop("enabled", None)  # unchecked: switched off
    assert root_client.post(url, data).status_code == 302

    for cache in (first, second):
        snapshot = cache.snapshot()
        assert snapshot.version != version
        assert not _tool(cache).enabled
        assert cache.loads == 2


def test_reads_while_nothing_changed_are_one_query_and_no_table_read(users):
    cache = PolicyCache()
    cache.snapshot()
    with CaptureQueriesContext(connection) as queries:
        for _ in range(5):
            assert _tool(cache).enabled
    assert [q["sql"] for q in queries.captured_queries] == ["SELECT n FROM policies_version WHERE id = 1"] * 5
    assert cache.loads == 1
    with CaptureQueriesContext(connection) as queries, cache.pinned():
        cache.snapshot()
        cache.snapshot()
    assert len(queries.captured_queries) == 1  # one unit of work reads the version once


def test_writes_that_bypass_signals_and_group_memberships_are_seen_too(users):
    """A queryset ``update()``, a deleted permission and a user's new group all change the version (triggers)."""
    cache = PolicyCache()
    analyst = users["analyst"]
    assert cache.snapshot().user_roles(analyst.pk) == ("analyst",)
    Tool.objects.filter(name=TOOL).update(description_en="edited in bulk")
    assert _tool(cache).description_en == "edited in bulk"
    ToolPermission.objects.filter(tool_id=TOOL, group__name="analyst").delete()
    assert "analyst" not in cache.snapshot().roles_of[TOOL]
    analyst.groups.add(Group.objects.get(name="engineer"))
    assert cache.snapshot().user_roles(analyst.pk) == ("analyst", "engineer")
    assert cache.loads == 4


def test_a_rolled_back_edit_is_not_served_afterwards(users):
    """An edit read inside its transaction, then rolled back: the next read gets the committed rows again."""
    cache = PolicyCache()
    assert _tool(cache).enabled
    seen_inside = []

    def edit_then_fail() -> None:
        with transaction.atomic():
            Tool.objects.filter(name=TOOL).update(enabled=False)
            seen_inside.append(_tool(cache).enabled)
            raise RuntimeError("roll back")

    with pytest.raises(RuntimeError):
        edit_then_fail()
    assert seen_inside == [False]
    assert _tool(cache).enabled
    Tool.objects.filter(name="search_dashboards").update(description_en="another edit")  # a new number, not reused
    assert _tool(cache).enabled
    assert _tool(cache, "search_dashboards").description_en == "another edit"
