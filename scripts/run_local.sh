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
# 8 MiB WebSocket messages reach the app, which answers any frame over 64 KiB with «сообщение слишком большое» and
# keeps the socket open (daphne's 1 MiB default would close it with 1009; DESIGN §6).
"$PY" -m daphne -b "$HOST" -p "$PORT" --websocket-max-message-size 8388608 --websocket-max-frame-size 8388608 \
    agentchat.asgi:application
