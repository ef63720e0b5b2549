"""Close the database connection of asgiref's sync thread after async tests (import the fixture to use it).

Async tests that call ``sync_to_async`` (the executor, the async ORM) open a connection in asgiref's
thread-sensitive worker thread; left open, it keeps pytest-django from dropping the test database.
"""

import pytest
from asgiref.sync import sync_to_async
from django.db import connections


@pytest.fixture(autouse=True)
async def close_thread_connections():
    yield
    await sync_to_async(connections.close_all)()
