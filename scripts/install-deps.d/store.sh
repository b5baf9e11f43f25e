#!/bin/sh
# Store area (src/store/, tests/store/, docs/marketplace.md): python3-yaml
# reads .github/workflows/release.yml in tests/store/test_release.py; the
# openssl command makes the test CA of tests/store/test_store_https.py.
# Idempotent: installs only what is missing.
set -eu
PKGS="python3-yaml openssl"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
