#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests (Playwright drives /usr/bin/chromium; no browser download).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
echo "installing Debian's chromium (browser tests)…"
"$(dirname "$0")/apt_install.sh" chromium fonts-noto-color-emoji
/usr/bin/chromium --version
