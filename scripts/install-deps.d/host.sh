#!/bin/sh
# Operator area (docs/host.md, tests/e2e/test_host_guide.py,
# tests/e2e/test_source_perms.py): setfacl gives a source directory an ACL
# the console must refuse; systemd-tmpfiles creates the socket directory
# from the shipped tmpfiles.d line as the host guide does. Idempotent:
# installs only what is missing.
set -eu
PKGS="acl systemd"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
