# A demo Apache Superset 6.1 for docker/compose.yaml: the two seeded instances of the local stack, `ss-dev` on :8088
# and `prod` on :8089 (scripts/devstack, DESIGN §13), listening on all interfaces of the container.
# Real deployments point the Environments at their own Superset instead (manage.py set_environment).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SUPERSET_VENV=/opt/superset-venv \
    SUPERSET_STACK_DIR=/data/superset \
    SUPERSET_BIND_HOST=0.0.0.0

WORKDIR /app
RUN groupadd --system --gid 10002 superset \
    && useradd --system --uid 10002 --gid superset --home-dir /data --shell /usr/sbin/nologin superset \
    && mkdir -p /data /opt/superset-venv \
    && chown superset:superset /data /opt/superset-venv

COPY requirements/superset.txt requirements/superset.txt
COPY scripts/__init__.py scripts/
COPY scripts/devstack scripts/devstack
# The stack needs only httpx besides the standard library (pinned as in requirements/base.txt).
RUN pip install httpx==0.28.1

USER 10002:10002
# The pinned Superset virtualenv, built once into the image (the stack skips it later: same requirements hash).
RUN python -m scripts.devstack install

EXPOSE 8088 8089
HEALTHCHECK --interval=15s --timeout=5s --start-period=180s --retries=5 \
    CMD ["python", "-c", "import sys, urllib.request as u; sys.exit(any(u.urlopen(f'http://127.0.0.1:{p}/health', timeout=4).status != 200 for p in (8088, 8089)))"]

# `up` sets up, starts and seeds both instances (idempotent), then the logs keep the container in the foreground.
CMD ["sh", "-c", "python -m scripts.devstack up && exec tail -F /data/superset/ss-dev/superset.log /data/superset/prod/superset.log"]
