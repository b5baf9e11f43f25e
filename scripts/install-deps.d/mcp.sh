#!/bin/sh
# Client area (tests/mcp): the real MCP clients the tests drive `lockfile
# mcp` with -- @modelcontextprotocol/sdk and @modelcontextprotocol/inspector,
# pinned in tests/mcp/package-lock.json -- installed with `npm ci` into
# tests/mcp/node_modules (git-ignored). Idempotent: skipped while the
# installed tree matches the lock file. Needs the machine's Node.js (>= 20)
# and npm.
set -eu
cd "$(dirname "$0")/../../tests/mcp"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	echo "install-deps mcp: node and npm are needed for tests/mcp" >&2
	exit 1
fi
want=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.lockfile-installed
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
