"""Rows inserted by a statement written once per database backend (issue 17), for the writes of every turn.

Building an ``INSERT`` through the ORM (``save``, ``bulk_create``) costs about ten times the CPU the database then
spends on it (``bench/turn_profile.py``): the query is assembled and compiled again for every row. ``rows_insert``
writes the same statement once per model, row count and backend, from the model's meta (table and columns quoted
by the backend), and adapts each value with its own field (``pre_save``: ``auto_now_add``; ``get_db_prep_save``:
JSON, datetimes, foreign keys), so the text runs on PostgreSQL and on SQLite (``RETURNING``: SQLite ≥ 3.35; an
older one gets the ORM's ``save`` per row). Models with ``save`` overrides or signals that must run are not for it.
``row_update`` does the same for an ``UPDATE`` of one row by primary key, and ``Columns`` gives the quoted names
every fixed statement of the product is written with (conversations.selectors, chat.sessions).
"""

import functools
from collections.abc import Sequence
from typing import Any, cast

from django.db import connection
from django.db.models import Field, Model


class Columns:
    """The quoted table (``.table``) and column names (``.<field name>``, ``.pk``) of ``model``, as the connection's
    backend quotes them: ``Columns(Message).role`` → ``"role"``. Identifiers come from the model's meta only; values
    are always parameters.

    Raises:
        django.core.exceptions.FieldDoesNotExist: an attribute that names no field of the model.
    """

    def __init__(self, model: type[Model]):
        self.meta = model._meta
        self.table = connection.ops.quote_name(self.meta.db_table)

    def __getattr__(self, name: str) -> str:
        if name.startswith("__"):
            raise AttributeError(name)
        field = self.meta.pk if name == "pk" else cast("Field", self.meta.get_field(name))
        return connection.ops.quote_name(str(field.column))  # concrete fields: always a column


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
    names = Columns(model)
    columns = [getattr(names, field.name) for field in _insert_fields(model)]
    values = "(" + ", ".join(["%s"] * len(columns)) + ")"
    return (
        f"INSERT INTO {names.table} ({', '.join(columns)}) "  # noqa: S608 - identifiers only
        f"VALUES {', '.join([values] * count)} RETURNING {names.pk}"
    )


def row_update(model: type[Model], values: list[tuple[Field, Any]], pk: int) -> None:
    """``UPDATE <table> SET <column> = %s, … WHERE <pk> = %s`` of one row of ``model``; each value adapted by its
    field (``get_db_prep_save``: JSON, datetimes) for the connection. No ``save``, no signals, no ``auto_now``.

    Args:
        values: ``(field, new value)`` pairs of ``model``'s concrete fields.
        pk: the row's primary key (no row: nothing is updated, nothing raised).
    """
    sql = _update_sql(connection.vendor, model, tuple(field.name for field, _ in values))
    params = [field.get_db_prep_save(value, connection) for field, value in values]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, pk])


@functools.cache
def _update_sql(vendor: str, model: type[Model], names: tuple[str, ...]) -> str:
    """The ``UPDATE`` of ``names`` of one row of ``model``, written once per database backend (``vendor``)."""
    columns = Columns(model)
    assignments = ", ".join(f"{getattr(columns, name)} = %s" for name in names)
    return f"UPDATE {columns.table} SET {assignments} WHERE {columns.pk} = %s"  # noqa: S608 - identifiers
