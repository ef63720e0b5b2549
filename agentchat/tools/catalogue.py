"""Imports every tool module so that their ``@assistant_tool`` decorators register them."""

from . import meta, superset  # noqa: F401
