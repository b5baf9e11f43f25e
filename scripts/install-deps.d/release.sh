#!/bin/sh
# Releases (src/update/, tests/release/, docs/releases.md): faketime moves
# the clock of the second build of scripts/reproduce.sh; debootstrap makes
# the fresh Debian 12 that tests/release/test_install_sh.py runs install.sh
# in (its Release signatures checked with the host's archive keyring).
# Idempotent: installs only what is missing.
set -eu
PKGS="faketime debootstrap debian-archive-keyring"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
