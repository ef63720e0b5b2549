"""Superset configuration for the local demo/test instances (``ss-dev`` and ``prod``).

Loaded by Superset through ``SUPERSET_CONFIG_PATH`` (by file path: it is not imported as part of the package);
``scripts/devstack`` sets the environment variables below for every ``superset`` command it runs:

- ``SUPERSET_SECRET_KEY``: the instance's secret key (generated once per instance, stored outside git);
- ``SUPERSET_METADATA_DB``: absolute path of the instance's SQLite metadata database file;
- ``SUPERSET_HOME``: the instance directory (Superset's ``DATA_DIR``: uploads, logs of its own).

This is a local, single-user setup: CSRF is off so the REST API works with a bearer token only, SQLite data
sources are allowed, no examples are loaded, caches are in-process. Never use it for a shared instance.
"""

import os

try:
    SECRET_KEY = os.environ["SUPERSET_SECRET_KEY"]
    _METADATA_DB = os.environ["SUPERSET_METADATA_DB"]
except KeyError as exc:  # pragma: no cover - only when run by hand without the stack script
    raise RuntimeError(
        f"{exc.args[0]} is not set: run Superset through `python -m scripts.devstack`, which sets it"
    ) from None

# Metadata database: one SQLite file per instance. check_same_thread=false because the dev server
# runs with threads.
SQLALCHEMY_DATABASE_URI = f"sqlite:///{_METADATA_DB}?check_same_thread=false"
# Examples are never loaded; point them at the metadata DB so nothing else is created.
SQLALCHEMY_EXAMPLES_URI = SQLALCHEMY_DATABASE_URI

# Allow registering SQLite files as data sources (the seeded «Energy» database).
PREVENT_UNSAFE_DB_CONNECTIONS = False

# REST API: the security API (roles, users) and token-only access without CSRF tokens.
FAB_ADD_SECURITY_API = True
WTF_CSRF_ENABLED = False
# Personal API keys (``POST /api/v1/security/api_keys/``, ``Authorization: Bearer sst_…``): agentchat's
# ``api_key`` identities (DESIGN §15). Who may create them is the ``ApiKey`` permission (seeded for the demo roles).
FAB_API_KEY_ENABLED = True
# JWT lifetimes of ``/api/v1/security/login`` tokens, in seconds (flask-jwt-extended; defaults 15 min and 30
# days). agentchat refreshes a rejected access token once with the refresh token (DESIGN §15).
JWT_ACCESS_TOKEN_EXPIRES = int(os.environ.get("SUPERSET_JWT_ACCESS_S") or 900)
JWT_REFRESH_TOKEN_EXPIRES = int(os.environ.get("SUPERSET_JWT_REFRESH_S") or 30 * 24 * 3600)

# Simple in-process caches: fast, nothing to run beside Superset.
_SIMPLE_CACHE = {"CACHE_TYPE": "SimpleCache", "CACHE_DEFAULT_TIMEOUT": 3600}
CACHE_CONFIG = {**_SIMPLE_CACHE, "CACHE_KEY_PREFIX": "superset_"}
DATA_CACHE_CONFIG = {**_SIMPLE_CACHE, "CACHE_KEY_PREFIX": "superset_data_"}

# No rate limiting and an in-memory limiter store (silences flask-limiter's warning).
RATELIMIT_ENABLED = False
RATELIMIT_STORAGE_URI = "memory://"

# Quiet, local instance: no CSP warning, no telemetry-ish extras, no background features.
CONTENT_SECURITY_POLICY_WARNING = False
FEATURE_FLAGS = {
    "ALERT_REPORTS": False,
    "THUMBNAILS": False,
    "GLOBAL_ASYNC_QUERIES": False,
}
SQLLAB_TIMEOUT = 60
SUPERSET_WEBSERVER_TIMEOUT = 60
ROW_LIMIT = 50000
