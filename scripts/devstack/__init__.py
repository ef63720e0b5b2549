"""Local Apache Superset stack for the demo (``make run``), the tests and CI (DESIGN §13).

Two Superset 6.1 instances run from one dedicated virtualenv: ``ss-dev`` on http://127.0.0.1:8088 and ``prod``
on http://127.0.0.1:8089, each with its own home directory (SQLite metadata database, secret key, logs, pid
file) and the same demo content, seeded through the REST API only.

Usage (from the repository root)::

    python -m scripts.devstack install   # create the Superset virtualenv (skipped when up to date)
    python -m scripts.devstack start     # set up (first time) and start both instances
    python -m scripts.devstack seed      # create the demo data and objects (idempotent)
    python -m scripts.devstack up        # install + start + seed; seconds when all is up already
    python -m scripts.devstack status    # running or not, URL, dashboard count
    python -m scripts.devstack stop      # stop the instances this stack started

Environment variables:

- ``AGENTCHAT_CACHE``: cache root (default ``~/.cache/agentchat``); the virtualenv is
  ``$AGENTCHAT_CACHE/superset-venv-<12 hex of sha256(requirements/superset.txt)>``, shared by every clone.
- ``SUPERSET_VENV``: use this virtualenv path instead.
- ``SUPERSET_STACK_DIR``: parent of the instance directories (default ``<repo>/var/superset``).
- ``SUPERSET_ADMIN_PASSWORD``: password of the stack's service account ``agentchat_service`` (role Admin,
  default ``admin``), set when an instance is created and used to log in; ``admin``, ``analyst`` and
  ``engineer`` are demo people with ``DEMO_PASSWORD`` (default ``demo``, ``users.py``).
- ``SUPERSET_BIND_HOST``: address the instances listen on (default ``127.0.0.1``; ``0.0.0.0`` in a container).

Modules, in the order a start goes through them: ``config`` (instances, paths, settings), ``install`` (the
cached virtualenv), ``home`` (an instance's secret key, environment, one-time setup), ``processes`` (start, stop,
status), ``client`` (the small REST client), ``energy_data`` (the SQLite demo data), ``demo`` (datasets, charts
and dashboards as data files in ``data/``), ``seed`` (creates them through the API). ``superset_config.py`` is
Superset's own configuration file.

Only the standard library and ``httpx`` are used, so the stack runs with the project's virtualenv (or any
Python 3.11 with httpx) and never imports Django; ``install`` needs the standard library only. The names below
are the same operations for tests.
"""

from __future__ import annotations

from typing import Any

from scripts.devstack.client import SupersetClient, rison
from scripts.devstack.config import ADMIN_USERNAME, INSTANCES, SERVICE_USERNAME, Instance, admin_password, instance_urls
from scripts.devstack.demo import DASHBOARDS, DATABASE_NAME, DATASETS, layout_chart_ids, position_json
from scripts.devstack.energy_data import build_energy_db
from scripts.devstack.install import install
from scripts.devstack.processes import start, status, stop
from scripts.devstack.report import StackError
from scripts.devstack.seed import seed, seed_instance

__all__ = [
    "ADMIN_USERNAME",
    "DASHBOARDS",
    "DATABASE_NAME",
    "DATASETS",
    "INSTANCES",
    "Instance",
    "SERVICE_USERNAME",
    "StackError",
    "SupersetClient",
    "admin_password",
    "build_energy_db",
    "install",
    "instance_urls",
    "layout_chart_ids",
    "position_json",
    "rison",
    "seed",
    "seed_instance",
    "start",
    "status",
    "stop",
    "up",
]


def up() -> dict[str, dict[str, Any]]:
    """Install (if needed), start (or reuse) and seed both instances: the one call for ``make run`` and tests.

    Returns:
        The ``seed()`` result, by instance name.

    Raises:
        StackError: any step failed.
    """
    install()
    start()
    return seed()
