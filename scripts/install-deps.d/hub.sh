#!/bin/sh
# Hub mode (docs/hub.md): lockhub's libraries (libmicrohttpd with GnuTLS,
# SQLite, libpq), libfido2 and libcbor (passkeys, src/hubwire/passkey.c),
# PostgreSQL 15 for the hub-pg suite (tests/hub/pgenv.py starts its own
# server with initdb/pg_ctl, not Debian's cluster), HAProxy for the
# balancer in front of several hubs (tests/hub/multihub.py), spin
# for the protocol model (tests/hub/model/), PyNaCl for the
# hostile hub test double and the second implementation of the layouts
# (tests/hub/), openssl for the test TLS certificate. Run as root by
# scripts/install-deps.sh; idempotent: installs only what is missing.
set -eu
PKGS="libfido2-dev libcbor-dev libmicrohttpd-dev libgnutls28-dev libsqlite3-dev libpq-dev postgresql-15 haproxy spin python3-nacl openssl"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
