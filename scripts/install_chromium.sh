#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests (Playwright drives /usr/bin/chromium; no browser download).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
echo "installing Debian's chromium (browser tests)…"
$SUDO apt-get update -qq || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
/usr/bin/chromium --version
