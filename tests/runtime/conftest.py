"""Fixtures of the tool-execution tests: the fault proxy in front of the real ss-dev Superset and its Environment."""

import pytest

from tests.support import superset_api
from tests.support.faultproxy import FAULTY_ENV, FaultProxy


@pytest.fixture
def fault_proxy(superset_stack):
    """A fault proxy forwarding to the local ss-dev Superset, fresh per test (own port, so own JWT cache)."""
    with FaultProxy(superset_api.URLS["ss-dev"]) as proxy:
        yield proxy


@pytest.fixture
def faulty_env(policy_defaults, fault_proxy):
    """An active dev ``Environment`` ``faulty`` whose Superset URL is the fault proxy, in service mode (these tests
    are about the call's failures, not whom it acts as: the local stack's service account)."""
    from policies.models import Environment

    Environment.objects.update_or_create(
        env_id=FAULTY_ENV,
        defaults={
            "name": "ss-dev через прокси сбоев",
            "tier": "dev",
            "superset_url": fault_proxy.url,
            "credentials_env": "SUPERSET_FAULTY",
            "auth_mode": "service",
            "is_active": True,
        },
    )
    return FAULTY_ENV
