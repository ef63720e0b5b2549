"""Fixtures of the tool tests (tools run through the executor, as the agent runs them)."""

import pytest

# The executor reads policies from asgiref's worker thread: close its connection so the test DB can drop.
from tests.support.db_threads import close_thread_connections  # noqa: F401 - autouse for every tool test


@pytest.fixture
def engineer(users):
    return users["engineer"]
