"""A PostgreSQL outage as an operator causes one: the app's backends terminated (a restart or a failover), or the
database closed to new connections for a while (issue 17). Plain psycopg on the server's ``postgres`` database,
so nothing here goes through Django's connections.
"""

import psycopg


def _maintenance(database_url: str) -> tuple[str, str]:
    """Split ``postgres://…/name`` into (the URL of the server's ``postgres`` database, ``name``)."""
    base, name = database_url.rsplit("/", 1)
    return f"{base}/postgres", name


def backends_terminate(database_url: str, *, keep: set[int] = frozenset()) -> int:  # type: ignore[assignment]
    """Terminate every client backend connected to the database of ``database_url``; return how many.

    Args:
        database_url: ``postgres://user[:password]@host:port/name``.
        keep: backend pids to spare (e.g. the test's own connection).
    """
    server, name = _maintenance(database_url)
    with psycopg.connect(server, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = %s AND backend_type = 'client backend' AND NOT (pid = ANY(%s))",
            [name, list(keep)],
        ).fetchone()
    return int(row[0]) if row else 0


def read_only(database_url: str, on: bool) -> None:
    """Make new sessions of the database read-only or writable again (``ALTER DATABASE … SET
    default_transaction_read_only``), as a failover to a standby and back does; sessions already open keep
    their setting (terminate them to make it take)."""
    server, name = _maintenance(database_url)
    with psycopg.connect(server, autocommit=True) as conn:
        action = "SET default_transaction_read_only = on" if on else "RESET default_transaction_read_only"
        conn.execute(f'ALTER DATABASE "{name}" {action}')


def connections_allow(database_url: str, allow: bool) -> None:
    """Open or close the database of ``database_url`` to new connections (``ALTER DATABASE … ALLOW_CONNECTIONS``;
    connections already open stay)."""
    server, name = _maintenance(database_url)
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {"true" if allow else "false"}')
