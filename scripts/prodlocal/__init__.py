"""The production shape of ``docker/compose.yaml`` run without containers (issue 31 item 1): ``make prod-local``.

nginx (Debian's, ``docker/nginx.conf``) in front of N daphne web processes and M ``db_worker`` processes, on this
machine's PostgreSQL and Redis, with the image's and compose's own commands and environment (``compose``: read from
those files, never copied), the local Superset pair as the environments. ``python -m scripts.prodlocal up|stop|
status``; ``ProdLocal`` for tests and ``bench/load``. Modules: ``compose`` (the plan read from the files), ``nginx``
(its configuration), ``stack`` (the processes).
"""

from scripts.prodlocal.compose import Machine, Plan, PlanError, plan
from scripts.prodlocal.stack import ProdLocal, ProdLocalError, Settings

__all__ = ["Machine", "Plan", "PlanError", "ProdLocal", "ProdLocalError", "Settings", "plan"]
