#!/bin/sh
# The phone page's browser suite (tests/browser, suite hub-page; docs/hub.md,
# "Approving from a phone"): Debian's chromium, driven headless, never a
# downloaded browser, and puppeteer-core pinned in
# tests/browser/package-lock.json, installed with `npm ci` into
# tests/browser/node_modules (git-ignored; PUPPETEER_SKIP_DOWNLOAD: no
# browser fetched). Idempotent: skipped while the installed tree matches
# the lock file. Run as root by scripts/install-deps.sh.
set -eu
# Node.js and npm from Debian only when the machine has none: a machine
# with its own Node (another vendor's package, without Debian's npm) keeps
# it, as scripts/install-deps.d/mcp.sh does.
missing=$(dpkg -s chromium >/dev/null 2>&1 || echo chromium)
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	missing="$missing nodejs npm"
fi
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
cd "$(dirname "$0")/../../tests/browser"
want=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.lockfile-installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
