#!/usr/bin/env bash
# Installs Debian packages for the project's own scripts (install_chromium.sh, install_gettext.sh, install_nginx.sh,
# install_axe.sh). `make prepare-tests` runs those scripts in parallel (make -j3) and apt/dpkg allow one process at a
# time: each install takes this machine-wide lock first (flock(1)), and apt itself waits up to 600 s for dpkg's lock
# held by anything else (DPkg::Lock::Timeout).
# Usage: scripts/apt_install.sh PACKAGE...
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
exec 9>"${TMPDIR:-/tmp}/agentchat-apt.lock"
flock -w 1200 9
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "$@" >/dev/null
