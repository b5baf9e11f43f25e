#!/bin/sh
# Build the local base image the Dockerfile can start FROM when no image
# registry is reachable: `debootstrap --variant=minbase bookworm` from the
# Debian mirror (signatures checked against the host's Debian archive
# keyring) with the runtime packages of docker/runtime-packages, imported
# with `docker import`. Prints the tag (lockfile-base:KEY) on stdout.
#
#   docker/mkbase.sh [--cache DIR]
#
# KEY is a hash of everything the tree is made from (this script, the
# package list, suite, mirror, architecture): the tarball is cached in DIR
# (default build/docker-cache) under that key, and an image with that tag is
# reused, so a second run neither bootstraps nor imports again. Run as root.
# DOCKER names the docker client (default: docker on PATH); DOCKER_HOST is
# honoured as by docker itself. LOCKFILE_DEB_MIRROR overrides the mirror.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cache=$here/../build/docker-cache
if [ "${1:-}" = "--cache" ] && [ $# -eq 2 ]; then
	cache=$2
elif [ $# -ne 0 ]; then
	echo "usage: docker/mkbase.sh [--cache DIR]" >&2
	exit 64
fi
DOCKER=${DOCKER:-docker}
suite=bookworm
mirror=${LOCKFILE_DEB_MIRROR:-http://deb.debian.org/debian}
arch=$(dpkg --print-architecture)
pkgs=$(grep -v '^#' "$here/runtime-packages" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')

key=$( { cat "$0" "$here/runtime-packages"; echo "$suite $mirror $arch"; } |
    sha256sum | cut -c1-16)
tag=lockfile-base:$key

if "$DOCKER" image inspect "$tag" >/dev/null 2>&1; then
	echo "$tag"
	exit 0
fi

mkdir -p "$cache"
tarball=$cache/base-$key.tar
if [ ! -s "$tarball" ]; then
	[ "$(id -u)" = 0 ] || { echo "mkbase: debootstrap needs root" >&2; exit 1; }
	root=$(mktemp -d /tmp/lockfile-base.XXXXXX)
	trap 'rm -rf "$root" "$tarball.tmp"' EXIT
	echo "mkbase: debootstrap $suite ($pkgs), about a minute" >&2
	if ! debootstrap --variant=minbase --arch="$arch" --include="$pkgs" \
	    "$suite" "$root" "$mirror" >"$root.log" 2>&1; then
		tail -20 "$root.log" >&2
		rm -f "$root.log"
		exit 1
	fi
	rm -f "$root.log"
	# What a built tree should not carry: the package caches and lists,
	# logs and the host's name resolution (Docker mounts its own).
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
	    "$root"/var/log/* "$root"/tmp/* "$root"/debootstrap
	: > "$root/etc/resolv.conf"
	: > "$root/etc/hostname"
	tar --numeric-owner --xattrs -C "$root" -cf "$tarball.tmp" .
	mv "$tarball.tmp" "$tarball"
	# Older bases (other keys) are never used again.
	find "$cache" -maxdepth 1 -name 'base-*.tar' ! -name "base-$key.tar" -delete
	rm -rf "$root"
	trap - EXIT
fi
"$DOCKER" import "$tarball" "$tag" >/dev/null
echo "$tag"
