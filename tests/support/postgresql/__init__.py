"""A test-only PostgreSQL backend whose flush deletes rows instead of truncating tables (see ``base``)."""
