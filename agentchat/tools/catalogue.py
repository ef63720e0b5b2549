"""Imports every tool module so that their ``@assistant_tool`` decorators register them."""

from . import databases, dataset_create, datasets, git, llm_review, meta, permissions, sql, superset  # noqa: F401
