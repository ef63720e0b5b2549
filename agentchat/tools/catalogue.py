"""Imports every tool module so that their ``@assistant_tool`` decorators register them."""

from . import backups, deploy, meta, migration, migration_impact, superset, tasks  # noqa: F401
