"""Imports every tool module so that their ``@assistant_tool`` decorators register them."""

from . import git, llm_review, meta, superset  # noqa: F401
