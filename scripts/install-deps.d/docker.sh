#!/bin/sh
# The Docker deployment (docker/, src/lox/, tests/docker/, docs/docker.md):
# Debian's engine (docker.io: dockerd, runc, containerd, docker-init),
# docker-compose 1.29 for docker/docker-compose.yml, and debootstrap for the
# offline base image (docker/mkbase.sh). Nothing is started here: the tests
# start their own dockerd and stop it. Run as root by
# scripts/install-deps.sh; idempotent: installs only what is missing.
set -eu
PKGS="docker.io docker-compose debootstrap tmux"
missing=$(for p in $PKGS; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
[ -z "$missing" ] && exit 0
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing
