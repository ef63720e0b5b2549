#!/usr/bin/env bash
# Installs Debian's GNU gettext (xgettext, msgfmt): `make messages` and the test that the catalogue lists every
# message of the code need it. `make run` does not: the compiled catalogue (locale/*/LC_MESSAGES/django.mo) is
# committed, and a test checks it matches its .po.
set -euo pipefail
if command -v xgettext >/dev/null && command -v msgfmt >/dev/null; then
  exit 0
fi
echo "installing Debian's gettext (message catalogues)…"
"$(dirname "$0")/apt_install.sh" gettext
xgettext --version | head -1
