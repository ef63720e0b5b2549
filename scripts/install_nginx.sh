#!/usr/bin/env bash
# Installs Debian's nginx for `make prod-local` (the load balancer of docker/compose.yaml, run without containers).
# nginx-light: the core HTTP modules (proxy, upstream, map) the configuration uses, nothing else. The package's own
# service is not used: prod-local runs nginx under its own prefix in var/ on its own port.
set -euo pipefail
if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
echo "installing Debian's nginx (make prod-local)…"
"$(dirname "$0")/apt_install.sh" nginx-light
/usr/sbin/nginx -v
