#!/usr/bin/env bash
# Fetches axe-core (Deque's accessibility rules engine, MPL-2.0) from the npm registry for the browser tests'
# accessibility pass (tests/support/accessibility.py injects var/axe/axe.min.js into the page; issue 30). Pinned by
# version and by the sha256 of the file the tests inject; nothing of it is served by the product.
set -euo pipefail
VERSION=4.14.1
SHA256=29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c
DEST=var/axe
if [ -f "$DEST/axe.min.js" ] && echo "$SHA256  $DEST/axe.min.js" | sha256sum -c --status; then
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "installing Debian's npm (to fetch axe-core)…"
  "$(dirname "$0")/apt_install.sh" npm
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && npm pack --silent "axe-core@$VERSION" >/dev/null && tar xzf "axe-core-$VERSION.tgz")
echo "$SHA256  $WORK/package/axe.min.js" | sha256sum -c --status || { echo "axe-core $VERSION: unexpected sha256" >&2; exit 1; }
mkdir -p "$DEST"
cp "$WORK/package/axe.min.js" "$WORK/package/LICENSE" "$DEST/"
echo "axe-core $VERSION in $DEST"
