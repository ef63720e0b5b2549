"""Django's PostgreSQL backend with a cheaper flush, for the test database only (``tests/conftest.py``).

A transactional test (``transaction=True``, the consumers' tests: their database calls run in other threads) ends
with Django's ``flush``, which on PostgreSQL is one ``TRUNCATE`` of every table. Truncating recreates each table's
files and syncs them at commit: about 1 s for our 26 tables on the 2-core CI machine, per test. The tables of a
test hold a few rows, so ``DELETE FROM`` each of them does the same work in about 0.1 s. Django creates foreign keys
on PostgreSQL as ``DEFERRABLE INITIALLY DEFERRED`` and runs the flush in one transaction, so the order of the
deletes does not matter: the constraints are checked at commit, when every table is empty.

The flush keeps ``django_content_type`` and ``auth_permission``: Django re-creates both after every flush
(``post_migrate``) from the installed models, which costs another 0.3 s when they are empty and a few queries when
they are whole; no test writes either. Sequences are not reset by either form unless a test asks
(``reset_sequences=True``); then Django's own ``TRUNCATE ... RESTART IDENTITY`` runs. Processes a test starts
(daphne, db_worker) use the normal backend.
"""

from django.db.backends.postgresql import base, operations

# Rows that ``post_migrate`` would create again, identical, after each flush (see the module docstring).
KEPT_TABLES = frozenset({"django_content_type", "auth_permission"})


class DatabaseOperations(operations.DatabaseOperations):
    """PostgreSQL operations whose :meth:`sql_flush` deletes rows (see the module docstring)."""

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        """Return one ``DELETE FROM`` per table of ``tables`` (list of names) except :data:`KEPT_TABLES`, or
        Django's ``TRUNCATE`` statement when sequences must restart; ``style`` colours SQL as in Django."""
        if reset_sequences:
            return super().sql_flush(style, tables, reset_sequences=True, allow_cascade=allow_cascade)
        return [
            f"{style.SQL_KEYWORD('DELETE')} {style.SQL_KEYWORD('FROM')} {style.SQL_FIELD(self.quote_name(table))};"
            for table in tables
            if table not in KEPT_TABLES
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    """Django's PostgreSQL connection with :class:`DatabaseOperations`."""

    ops_class = DatabaseOperations
