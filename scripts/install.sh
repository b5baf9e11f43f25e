#!/bin/sh
# Install one lockfile release on Debian 12 (docs/releases.md).
#
#   sh install.sh [--prefix DIR] [--url URL | --from DIR] [--sysconfdir DIR]
#                 [--no-accounts] [--no-packages]
#
#   --prefix DIR      where to install (default /usr/local): DIR/bin/lockfile
#                     (and the other launchers), DIR/share/lockfile/,
#                     DIR/lib/tmpfiles.d/, and the release record in
#                     DIR/lib/lockfile/release/
#   --url URL         fetch from this mirror of the release instead
#                     (https://HOST/PATH laid out as GitHub's releases)
#   --from DIR        take the files from a directory (an offline copy)
#   --sysconfdir DIR  the trust configuration (default /etc/lockfile)
#   --no-accounts     do not create the lockfile account and the
#                     lockfile-clients group
#   --no-packages     do not apt-get install the runtime libraries
#
# This file is a template: release.yml publishes, with each release vX.Y.Z,
# an install.sh whose PINS block names the sha256 of every file it installs
# (the launchers, the shipped files, the trust configuration, the signed
# release manifest and its bundle). Those pins are the whole trust of this
# script: it never runs a downloaded program to decide whether the download
# is genuine. It checks every file with sha256sum (Debian's coreutils)
# before it installs anything, and installs nothing if one differs.
# Obtain the script itself over HTTPS from the release page, and check it as
# docs/releases.md says (its own bundle, install.sh.sigstore.json).
set -eu

# BEGIN PINS (the template has none; release.yml writes them)
TAG=
REPOSITORY=
RELEASE_URL=
RUNTIME_PACKAGES=
PINS=
# END PINS

prefix=/usr/local
sysconfdir=/etc/lockfile
url=
from=
accounts=1
packages=1

die() {
	echo "install.sh: $*" >&2
	exit 1
}
usage() {
	sed -n '4,16p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 64
}
while [ $# -gt 0 ]; do
	case $1 in
	--prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
	--url) [ $# -ge 2 ] || usage; url=$2; shift 2 ;;
	--from) [ $# -ge 2 ] || usage; from=$2; shift 2 ;;
	--sysconfdir) [ $# -ge 2 ] || usage; sysconfdir=$2; shift 2 ;;
	--no-accounts) accounts=0; shift ;;
	--no-packages) packages=0; shift ;;
	*) usage ;;
	esac
done

[ -n "$TAG" ] || die "this is the template: run the install.sh published with a release (docs/releases.md)"
[ "$(id -u)" = 0 ] || die "run as root (it installs root's files)"
for d in "$prefix" "$sysconfdir"; do
	case $d in
	/*) ;;
	*) die "$d: an absolute path" ;;
	esac
	case $d in
	*..*|*[!A-Za-z0-9._/-]*) die "$d: letters, digits, . _ - / only, no .." ;;
	esac
done
[ -n "$url" ] || url=$RELEASE_URL
case $url in
https://*) ;;
*) [ -n "$from" ] || die "--url: https:// only" ;;
esac

# The binaries are built for Debian 12 on amd64 (release.yml builds them in
# a Debian 12 container).
. /etc/os-release 2>/dev/null || die "no /etc/os-release"
[ "${ID:-}" = debian ] && [ "${VERSION_ID:-}" = 12 ] ||
    die "this release is built for Debian 12 (this is ${PRETTY_NAME:-unknown})"
[ "$(dpkg --print-architecture)" = amd64 ] || die "this release is built for amd64"

# Every directory the launcher is installed under must be root's and closed
# to writes by group and others (lockfile update and doctor check the same).
# A sticky world-writable directory (/tmp) is fine above the prefix, never
# as it: there any account could have made the names we write into first
# (lockfile update's rule, docs/releases.md).
safe_dir() {
	p=$1
	own_dir "$p" exists-or-not
	while :; do
		p=$(dirname "$p")
		if [ -e "$p" ]; then
			set -- $(stat -L -c '%u %a' "$p")
			[ "$1" = 0 ] || die "$p is not root's"
			case $2 in
			1???) ;;			# sticky (/tmp): fine above us
			*) [ $(( 0$2 & 022 )) = 0 ] || die "$p is writable by group or others" ;;
			esac
		fi
		[ "$p" = / ] && break
	done
}
# A directory we write into (the prefix, the system configuration directory
# and each one made below them): a directory, not a symlink, root's, not
# sticky, closed to writes by group and others. Checked again after
# install -d made it, before anything is written into it: install -d keeps
# a directory another account made first.
own_dir() {
	if [ ! -e "$1" ] && [ ! -L "$1" ]; then
		[ "${2:-}" = exists-or-not ] && return 0
		die "$1: missing"
	fi
	[ -d "$1" ] && [ ! -L "$1" ] || die "$1 is not a directory (a symlink or a file): not a place to install into"
	set -- "$1" $(stat -c '%u %a' "$1")
	[ "$2" = 0 ] || die "$1 is not root's: not a place to install into"
	case $3 in
	1???|3???|5???|7???) die "$1 is sticky (mode $3): not a place to install into (use a directory of root's, 0755)" ;;
	esac
	[ $(( 0$3 & 022 )) = 0 ] || die "$1 is writable by group or others (mode $3)"
}
safe_dir "$prefix"
safe_dir "$sysconfdir"

need=
if [ "$packages" = 1 ]; then
	[ -n "$from" ] || need="curl ca-certificates"
	for p in $RUNTIME_PACKAGES $need; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q ' installed$' ||
		    missing="${missing:-} $p"
	done
	if [ -n "${missing:-}" ]; then
		echo "install.sh: apt-get install$missing"
		apt-get update -q >/dev/null
		# shellcheck disable=SC2086
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		    --no-install-recommends $missing >/dev/null
	fi
fi

tmp=$(mktemp -d /tmp/lockfile-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
umask 022

# Fetch every pinned file, then check them all before anything is installed.
: > "$tmp/SHA256SUMS"
echo "$PINS" | while read -r kind sum name; do
	[ -n "$kind" ] || continue
	case $name in
	*/*|.*|"") die "a pinned name is not a file name" ;;
	esac
	if [ -n "$from" ]; then
		cp "$from/$name" "$tmp/$name" || die "$from/$name: cannot copy"
	else
		curl --proto '=https' --proto-redir '=https' --tlsv1.2 -fsSL \
		    --retry 2 --connect-timeout 20 --speed-limit 512 --speed-time 30 \
		    -o "$tmp/$name" "$url/download/$TAG/$name" ||
		    die "$url/download/$TAG/$name: cannot fetch"
	fi
	printf '%s  %s\n' "$sum" "$name" >> "$tmp/SHA256SUMS"
done
( cd "$tmp" && sha256sum --strict --quiet -c SHA256SUMS ) ||
    die "a downloaded file is not the one this script pins: nothing installed"
n=$(grep -c . "$tmp/SHA256SUMS")
[ "$n" = "$(echo "$PINS" | grep -c .)" ] || die "not every pinned file was fetched"
echo "install.sh: $TAG of $REPOSITORY: $n files match the pinned sha256"

record=$prefix/lib/lockfile/release
if [ -e "$record/release.json" ] &&
    ! cmp -s "$record/release.json" "$tmp/release.json"; then
	die "another release is installed in $prefix: use lockfile update (or lockfile update --version $TAG)"
fi

# Install: each file complete in its directory, then renamed over the old one.
put() {	# put SRC DIR NAME MODE
	t="$2/.lockfile-update.$3.install-sh.$$"
	install -o root -g root -m "$4" "$1" "$t"
	mv -f "$t" "$2/$3"
}
for d in "$prefix" "$prefix/bin" "$prefix/share" "$prefix/share/lockfile" \
    "$prefix/lib" "$prefix/lib/lockfile" "$prefix/lib/tmpfiles.d" "$record" \
    "$sysconfdir"; do
	# one level at a time, each checked before the next is made in it
	[ -e "$d" ] || [ -L "$d" ] || install -d -o root -g root -m 0755 "$d"
	own_dir "$d"
done
# and again above them, now that they exist: a parent install -d made is
# root's; one another account made meanwhile is refused here
safe_dir "$prefix"
safe_dir "$sysconfdir"
echo "$PINS" | while read -r kind sum name; do
	case $kind in
	bin) put "$tmp/$name" "$prefix/bin" "$name" 0755 ;;
	share) put "$tmp/$name" "$prefix/share/lockfile" "$name" 0644 ;;
	tmpfiles) put "$tmp/$name" "$prefix/lib/tmpfiles.d" "$name" 0644 ;;
	trust)
		# Root's own trust configuration is never overwritten.
		if [ ! -e "$sysconfdir/$name" ]; then
			put "$tmp/$name" "$sysconfdir" "$name" 0644
		elif ! cmp -s "$tmp/$name" "$sysconfdir/$name"; then
			echo "install.sh: kept $sysconfdir/$name (it differs from the release's)"
		fi ;;
	esac
done
printf 'install.sh\n' > "$tmp/installed-by"
put "$tmp/installed-by" "$record" installed-by 0644
put "$tmp/release.json.sigstore.json" "$record" release.json.sigstore.json 0644
put "$tmp/release.json" "$record" release.json 0644

if [ "$accounts" = 1 ]; then
	getent group lockfile-clients >/dev/null || groupadd --system lockfile-clients
	if ! id -u lockfile >/dev/null 2>&1; then
		useradd --system --create-home --home-dir /home/lockfile \
		    --shell /usr/sbin/nologin --groups lockfile-clients \
		    --user-group lockfile
		usermod -p '*' lockfile
	fi
	chmod 0700 "$(getent passwd lockfile | cut -d: -f6)"
fi
# The socket directory, now and at every boot (docs/host.md).
if command -v systemd-tmpfiles >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
	for f in "$prefix"/lib/tmpfiles.d/lockfile*.conf; do
		[ ! -e "$f" ] || systemd-tmpfiles --create "$f" || true
	done
fi
echo "install.sh: installed $TAG in $prefix"

# What the installed launcher says of itself. Informational only: the pins
# above decided; a downloaded binary does not vouch for itself.
if id -u lockfile >/dev/null 2>&1; then as=lockfile; else as=nobody; fi
line=$(setpriv --reuid="$as" --regid="$as" --init-groups \
    "$prefix/bin/lockfile" doctor 2>/dev/null | grep '^[A-Za-z]* *launcher ' || true)
echo "$line"
case $line in
ok*) exit 0 ;;
*) die "lockfile doctor does not report the launcher as installed" ;;
esac
