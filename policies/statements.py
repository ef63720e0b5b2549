"""Rows inserted by a statement written once per database backend (issue 17), for the writes of every turn.

Building an ``INSERT`` through the ORM (``save``, ``bulk_create``) costs about ten times the CPU the database then
spends on it (``bench/turn_profile.py``): the query is assembled and compiled again for every row. ``rows_insert``
writes the same statement once per model, row count and backend, from the model's meta (table and columns quoted
by the backend), and adapts each value with its own field (``pre_save``: ``auto_now_add``; ``get_db_prep_save``:
JSON, datetimes, foreign keys), so the text runs on PostgreSQL and on SQLite (``RETURNING``: SQLite ≥ 3.35; an
older one gets the ORM's ``save`` per row). Models with ``save`` overrides or signals that must run are not for it.
"""

import functools
from collections.abc import Sequence

from django.db import connection
from django.db.models import Field, Model


def rows_insert(rows: Sequence[Model]) -> None:
    """Insert unsaved ``rows`` of one model (auto primary key) in one statement; each gets its ``pk`` in list order
    and is marked saved, as ``bulk_create`` leaves them.

    Args:
        rows: at least one unsaved instance, all of the same model; their ``auto_now_add`` fields are set here.

    Raises:
        ValueError: no rows, or rows of different models. django.db.Error: what the database refuses.
    """
    if not rows or len({type(row) for row in rows}) != 1:
        raise ValueError("rows_insert needs rows of one model")
    model = type(rows[0])
    if not connection.features.can_return_rows_from_bulk_insert:
        for row in rows:  # an old SQLite: no RETURNING
            row.save(force_insert=True)
        return
    fields = _insert_fields(model)
    params = [field.get_db_prep_save(field.pre_save(row, add=True), connection) for row in rows for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(connection.vendor, model, len(rows)), params)
        ids = cursor.fetchall()
    for row, (pk,) in zip(rows, ids, strict=True):
        row.pk = pk
        row._state.adding = False
        row._state.db = connection.alias


def _insert_fields(model: type[Model]) -> list[Field]:
    """The concrete fields of ``model`` an ``INSERT`` writes: all but the auto primary key."""
    return [field for field in model._meta.concrete_fields if not field.primary_key]


@functools.cache
def _insert_sql(vendor: str, model: type[Model], count: int) -> str:
    """``INSERT INTO <table> (<columns>) VALUES (%s, …), … RETURNING <pk>`` for ``count`` rows, written once per
    backend (``vendor``): identifiers from the model's meta, quoted by the backend; the values are parameters."""
    q = connection.ops.quote_name
    columns = [str(field.column) for field in _insert_fields(model)]  # concrete fields: always a column
    values = "(" + ", ".join(["%s"] * len(columns)) + ")"
    return (
        f"INSERT INTO {q(model._meta.db_table)} ({', '.join(q(c) for c in columns)}) "  # noqa: S608 - identifiers only
        f"VALUES {', '.join([values] * count)} RETURNING {q(str(model._meta.pk.column))}"
    )
