#!/bin/sh
# Install what the build and the tests need on Debian 12, then create the
# test accounts. Idempotent; run as root (CI runs it through `make`).
#
#   scripts/install-deps.sh            everything `make check` needs: the
#                                      build, the test toolchain, every hook
#                                      in scripts/install-deps.d/, Node.js
#                                      and the npm packages of the MCP client
#                                      tests, the test accounts
#   scripts/install-deps.sh --deploy   only what `make docker` needs on the
#                                      operator's host: the build and the
#                                      Docker engine (docker.sh); no test
#                                      toolchain, no npm, no accounts
set -eu
cd "$(dirname "$0")/.."

mode=all
case ${1:-} in
"") ;;
--deploy) mode=deploy ;;
*) echo "usage: scripts/install-deps.sh [--deploy]" >&2; exit 64 ;;
esac

# The build: every executable, lockhub and the plugins (meson.build).
BUILD_PKGS="build-essential meson ninja-build pkg-config
libseccomp-dev libjansson-dev libsodium-dev libssl-dev libcurl4-openssl-dev
libssh-dev libcmocka-dev libmicrohttpd-dev libgnutls28-dev libsqlite3-dev
libicu-dev libfido2-dev libcbor-dev libpq-dev
python3 curl ca-certificates util-linux procps"
# The tests: the fuzz tree, the harnesses, terminals, test servers, linters.
TEST_PKGS="clang llvm python3-pytest python3-pexpect tmux bubblewrap hyperfine
openssh-server openssh-client cppcheck"

PKGS=$BUILD_PKGS
[ "$mode" = all ] && PKGS="$BUILD_PKGS $TEST_PKGS"

if [ "$(id -u)" != 0 ]; then
	missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
	if [ -n "$missing" ]; then
		echo "install-deps: missing packages (run as root): $missing" >&2
		exit 1
	fi
	exit 0
fi

missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

if [ "$mode" = deploy ]; then
	sh scripts/install-deps.d/docker.sh
	exit 0
fi

for hook in scripts/install-deps.d/*.sh; do
	[ -e "$hook" ] || continue
	sh "$hook"
done

tests/setup-accounts.sh
