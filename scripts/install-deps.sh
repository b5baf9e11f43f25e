#!/bin/sh
# Install everything the build and the tests need on Debian 12, then create
# the test accounts. Idempotent; run as root (CI runs it through `make`).
set -eu
cd "$(dirname "$0")/.."

PKGS="build-essential meson ninja-build pkg-config clang llvm
libseccomp-dev libjansson-dev libsodium-dev libssl-dev libcurl4-openssl-dev
libssh-dev libcmocka-dev libmicrohttpd-dev libunistring-dev libicu-dev
python3 python3-pytest python3-pexpect tmux bubblewrap hyperfine
openssh-server openssh-client curl ca-certificates util-linux procps
cppcheck"

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

for hook in scripts/install-deps.d/*.sh; do
	[ -e "$hook" ] || continue
	sh "$hook"
done

tests/setup-accounts.sh
