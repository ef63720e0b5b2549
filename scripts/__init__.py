"""Developer scripts; a package so tests import ``scripts.devstack`` (the local Superset) by name."""
