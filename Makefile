# agentchat: `make run` starts the product on the embedded default; `make test` sets up and runs every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
REQ_HASH := $(shell cat requirements/base.txt requirements/dev.txt | sha256sum | cut -c1-12)
STAMP := $(VENV)/.installed-$(REQ_HASH)
HOST ?= 127.0.0.1
PORT ?= 8000

# Tests run against PostgreSQL and Redis (CI machines run both on loopback).
TEST_DATABASE_URL ?= postgres://postgres@127.0.0.1:5432/agentchat
TEST_REDIS_URL ?= redis://127.0.0.1:6379/14
# Parallel pytest workers for the fast part. It waits on sockets and deadlines as much as it computes, but each
# worker pays ~7 s of CPU (imports, migrations, the embedding model): on two cores 3 workers took 72-76 s, 4 took
# 86-103 s (issue 12).
TEST_WORKERS ?= 3
# The Superset part runs on fewer: its tests share two SQLite-backed Superset instances, and a dashboard list racing
# another test's scratch-dashboard delete gets Superset's own HTTP 500 (ObjectDeletedError).
SLOW_WORKERS ?= 2

.PHONY: setup prepare prepare-tests chromium gettext axe nginx superset-install superset superset-stop run prod-local \
	prod-local-stop image-smoke test test-fast test-slow test-unit test-e2e lint format messages clean

$(STAMP): requirements/base.txt requirements/dev.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements/dev.txt
	@rm -f $(VENV)/.installed-*
	@touch $@

setup: $(STAMP)

chromium:
	@scripts/install_chromium.sh

# axe-core (npm) for the browser tests' accessibility pass (tests/support/accessibility.py), pinned by sha256.
axe:
	@scripts/install_axe.sh
# Debian's nginx for `make prod-local` and the fault tests of the production shape (tests/prodlocal).
nginx:
	@scripts/install_nginx.sh

# GNU gettext for `make messages` and the catalogue test (tests/agentchat/test_catalogue.py); `make run` needs none:
# the compiled catalogue is committed.
gettext:
	@scripts/install_gettext.sh

# Superset's own virtualenv needs only the standard library to install, so it is built beside the project's.
# `python -m scripts.devstack` runs from the repository root (make's working directory).
superset-install:
	$(PYTHON) -m scripts.devstack install

prepare:
	$(MAKE) -j2 setup superset-install

prepare-tests:
	$(MAKE) -j3 setup superset-install chromium gettext axe nginx

superset: setup
	$(PY) -m scripts.devstack up

superset-stop: setup
	$(PY) -m scripts.devstack stop

run: prepare superset
	DEBUG=1 $(PY) manage.py migrate --noinput
	DEBUG=1 $(PY) manage.py seed_demo
	DEBUG=1 PY=$(PY) HOST=$(HOST) PORT=$(PORT) scripts/run_local.sh

# The production shape of docker/compose.yaml without containers: nginx (:8310) in front of PROD_WEB daphne web
# processes (:8311…) and a db_worker, on this machine's PostgreSQL and Redis (README "Production"; PROD_LOCAL_*
# variables move the ports, database, Redis db and directory). Returns once nginx answers; prod-local-stop ends it.
PROD_WEB ?= 2
prod-local: prepare nginx superset
	$(PY) -m scripts.prodlocal up --web $(PROD_WEB)

prod-local-stop: setup
	$(PY) -m scripts.prodlocal stop

# docker/Dockerfile built and smoke-checked with Debian's docker.io (a running dockerd, root; not part of CI): README
# "The image, built and smoke-checked".
image-smoke: setup
	$(PY) -m scripts.image_smoke

# .pre-commit-config.yaml runs the same four commands.
lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: setup
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

# The Russian catalogue (English msgids in the code): extract the messages of the code and templates into
# locale/ru/LC_MESSAGES/django.po, then compile django.mo. Fill in every new or fuzzy msgstr between the two steps
# (the catalogue test fails on an empty or fuzzy one) and commit both files.
messages: setup gettext
	DEBUG=1 $(PY) manage.py makemessages -l ru --no-obsolete --no-location --ignore='.venv/*' --ignore='var/*' --ignore='tests/*' \
		--ignore='bench/*' --ignore='docker/*'
	DEBUG=1 $(PY) manage.py compilemessages -l ru --ignore='.venv/*' --ignore='var/*'

# The suite in three parts by marker (tests/conftest.py sets them): every test runs in exactly one.
PYTEST := DATABASE_URL=$(TEST_DATABASE_URL) REDIS_URL=$(TEST_REDIS_URL) $(PY) -m pytest

# Needs neither Superset nor processes, and no test of it takes more than 10 s: PostgreSQL and Redis only.
test-fast: setup
	$(PYTEST) -n $(TEST_WORKERS) --dist worksteal -m "not superset and not processes and not browser and not slow" \
		tests --ignore=tests/e2e

# The rest of the unit suite: the local Superset pair, db_worker and daphne processes, the long fuzz runs.
test-slow: setup gettext superset
	$(PYTEST) -n $(SLOW_WORKERS) --dist worksteal -m "superset or processes or slow" tests --ignore=tests/e2e

test-unit:
	$(MAKE) test-fast test-slow

test-e2e: setup chromium axe superset
	$(PYTEST) tests/e2e

# Lint and the fast tests first, so a broken unit fails within a minute, before Superset and Chromium are set up.
test: setup
	$(MAKE) lint test-fast
	$(MAKE) prepare-tests
	$(MAKE) test-slow test-e2e

clean:
	rm -rf $(VENV) var/static .pytest_cache .ruff_cache .mypy_cache
