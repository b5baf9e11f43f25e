#!/bin/sh
# Client area (tests/mcp): the real MCP client the tests drive `lockfile
# mcp` with -- @modelcontextprotocol/sdk 1.x, pinned in
# tests/mcp/package-lock.json -- installed with `npm ci` into
# tests/mcp/node_modules (git-ignored). Idempotent: skipped while the
# installed tree matches the lock file. Every locked package runs on Debian
# 12's Node.js 18, installed from Debian when the machine has no node or npm
# (docs/mcp.md).
set -eu
cd "$(dirname "$0")/../../tests/mcp"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends nodejs npm
fi
want=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.lockfile-installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
