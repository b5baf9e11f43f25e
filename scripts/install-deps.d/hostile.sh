#!/bin/sh
# Toolchains for the runtime compatibility tests (tests/runtimes/): a plugin
# built with musl, Go and Rust must answer inside the sandbox. Also bubblewrap
# for bench/sandbox. Run as root by scripts/install-deps.sh; idempotent.
set -eu
PKGS="musl-tools golang-go rustc libstd-rust-dev bubblewrap strace"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
[ -n "$missing" ] || exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
