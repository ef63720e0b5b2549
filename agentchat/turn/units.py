"""One unit of database work of a turn (issue 17): ``database_sync_to_async`` without the ping before it.

Channels' ``database_sync_to_async`` prepares each call like a request (``close_old_connections``), and with
``CONN_HEALTH_CHECKS`` the first query of each call is preceded by ``SELECT 1`` — one more round trip and one more
PostgreSQL transaction per unit, twice per turn. A turn's units check optimistically instead: they run on the kept
connection, and when the very first statement fails because the connection is dead (the database restarted or
terminated the backend, issue 17) the unit runs once more on a new connection. Only a unit that executed nothing
is repeated, so no write can happen twice; any other database error propagates (the consumer answers
``database_unavailable``). Everything else — the thread (asgiref's one thread-sensitive executor), the age of the
connection (``DB_CONN_MAX_AGE``), connections left broken — is as with ``database_sync_to_async``.
"""

import functools
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from asgiref.sync import sync_to_async
from django.db import InterfaceError, OperationalError, close_old_connections, connection

P = ParamSpec("P")
R = TypeVar("R")


def _attempt(fn: Callable[..., R], args: tuple, kwargs: dict, executed: list[int]) -> R:
    def counted(execute: Callable, sql: str, params: Any, many: bool, context: dict) -> Any:
        result = execute(sql, params, many, context)
        executed[0] += 1
        return result

    with connection.execute_wrapper(counted):
        return fn(*args, **kwargs)


def _run(fn: Callable[..., R], args: tuple, kwargs: dict) -> R:
    close_old_connections()  # aged or broken connections are closed, as before every unit of work
    if connection.connection is not None:
        # The kept connection is used without ``SELECT 1``: a dead one fails on the first statement (below).
        connection.health_check_done = True  # type: ignore[attr-defined]  # Django >= 4.1; not in django-stubs
    executed = [0]
    try:
        return _attempt(fn, args, kwargs, executed)
    except (OperationalError, InterfaceError):
        if executed[0] or connection.in_atomic_block:
            raise  # something ran (or an outer transaction is open): repeating could write twice
        connection.close()
        return _attempt(fn, args, kwargs, [0])
    finally:
        close_old_connections()


def unit(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Wrap the sync ``fn`` as one awaitable unit of database work in the database thread (see the module).

    Args:
        fn: a sync function whose database work is one transaction (``transaction.atomic``) or one statement, so a
            failure before its first statement leaves nothing behind.

    Returns:
        An async function with ``fn``'s arguments and result; raises what ``fn`` raises (a dead connection only
        when the repeat on a new connection fails too).
    """

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return _run(fn, args, kwargs)

    return sync_to_async(run, thread_sensitive=True)
