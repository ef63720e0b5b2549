"""Imports every tool module so that their ``@assistant_tool`` decorators register them."""

from . import (  # noqa: F401
    backups,
    databases,
    dataset_create,
    datasets,
    deploy,
    git,
    llm_review,
    meta,
    migration,
    migration_impact,
    permissions,
    sql,
    superset,
    tasks,
)
