#!/usr/bin/env bash
# Starts the embedded default: one django-tasks db_worker in the background and daphne (HTTP + WebSocket).
# Used by `make run`; Ctrl-C stops both.
set -euo pipefail
PY=${PY:-.venv/bin/python}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
"$PY" manage.py db_worker --queue-name '*' --no-reload --no-startup-delay -v 0 &
WORKER=$!
trap 'kill "$WORKER" 2>/dev/null || true; wait "$WORKER" 2>/dev/null || true' EXIT INT TERM
echo "agentchat on http://$HOST:$PORT/  (logins: analyst / engineer / admin, password: ${DEMO_PASSWORD:-demo})"
"$PY" -m daphne -b "$HOST" -p "$PORT" agentchat.asgi:application
