#!/bin/sh
# Build this tree twice and compare what a release ships (docs/releases.md):
# every file `meson install` installs (lockfile, lox, lockhub, seccomp.json)
# and every official plugin with its manifest. The two builds differ in
# everything a build must not depend on: the directory (and its depth
# below the build), the user (root, then REPRODUCE_USER, default nobody),
# the umask, the time zone, the locale and the clock (a few years ahead,
# with faketime when installed). Only tracked and new files of the working
# tree are copied (git ls-files); ccache is off; tests and benchmarks are
# not built.
#
#   scripts/reproduce.sh [--tap] [--keep] [--build DIR]
#
# --build DIR: the first build is this tree itself, in build directory DIR,
# kept (release.yml ships what it built there); otherwise both are copies.
# Prints "sha256  path" of each compared file and "reproduce: N files
# identical" (or the differing ones, exit 1). --tap prints TAP instead (the
# release-reproduce suite). Run as root (the second build runs as another
# user); not as root both builds are yours.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
tap=0
keep=0
build1=
while [ $# -gt 0 ]; do
	case $1 in
	--tap) tap=1; shift ;;
	--keep) keep=1; shift ;;
	--build) [ $# -ge 2 ] || set -- --usage; build1=$2; shift 2 ;;
	*) echo "usage: scripts/reproduce.sh [--tap] [--keep] [--build DIR]" >&2
	   exit 64 ;;
	esac
done
case $build1 in ""|/*) ;; *) build1=$(pwd)/$build1 ;; esac
user=${REPRODUCE_USER:-nobody}
work=$(mktemp -d "${TMPDIR:-/tmp}/lockfile-reproduce.XXXXXX")
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT INT TERM
chmod 0755 "$work"
say() { if [ "$tap" = 1 ]; then echo "# $*"; else echo "reproduce: $*" >&2; fi; }
fail() {
	if [ "$tap" = 1 ]; then echo "not ok 1 - $*"; else echo "reproduce: $*" >&2; fi
	exit 1
}
[ "$tap" = 0 ] || echo "1..1"

# The same commit's files, twice: the working tree as git sees it.
a=$work/a/lockfile
b=$work/b/some/other/place/lockfile
mkdir -p "$a" "$b" "$work/b/out/deeper"
(cd "$here" && git ls-files -z --cached --others --exclude-standard |
    xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
    tar --null -T - -cf -) > "$work/tree.tar" || fail "cannot list the tree (git)"
tar -xf "$work/tree.tar" -C "$a"
tar -xf "$work/tree.tar" -C "$b"
SOURCE_DATE_EPOCH=$(cd "$here" && git log -1 --format=%ct 2>/dev/null || echo 0)
export SOURCE_DATE_EPOCH
opts="-Dtests=false -Dbench=false"

build() {	# build SRC BUILDDIR (in the current user, umask, clock)
	(cd "$1" && CCACHE_DISABLE=1 meson setup "$2" $opts >/dev/null &&
	    CCACHE_DISABLE=1 ninja -C "$2" >/dev/null &&
	    meson install -C "$2" --destdir "$2/stage" --no-rebuild --quiet >/dev/null)
}
if [ -n "$build1" ]; then
	a=$here
	[ ! -e "$build1" ] || fail "$build1 exists"
else
	build1=$a/build
fi
say "build 1: $build1 as $(id -un)"
( umask 022; TZ=UTC LC_ALL=C.UTF-8 build "$a" "$build1" ) || fail "build 1 failed"

when=
if command -v faketime >/dev/null 2>&1; then
	when=$(date -u -d '+3 years' '+%Y-%m-%d %H:%M:%S')
fi
if [ "$(id -u)" = 0 ] && id -u "$user" >/dev/null 2>&1; then
	chown -R "$user" "$work/b"
	as="setpriv --reuid=$user --regid=$(id -g "$user") --clear-groups"
else
	as=
	user=$(id -un)
fi
say "build 2: $work/b/out/deeper/build as $user${when:+, clock at $when}"
# shellcheck disable=SC2086
$as env -i PATH=/usr/bin:/bin HOME="$work/b" TZ=Pacific/Kiritimati \
    LANG=C LC_ALL=POSIX SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" \
    CCACHE_DISABLE=1 WHEN="$when" OPTS="$opts" sh -c '
	t() { if [ -n "$WHEN" ]; then faketime "$WHEN" "$@"; else "$@"; fi; }
	umask 077
	cd "$1" && t meson setup "$2" $OPTS >/dev/null &&
	    t ninja -C "$2" >/dev/null &&
	    t meson install -C "$2" --destdir "$2/stage" --no-rebuild --quiet >/dev/null' \
    sh "$b" "$work/b/out/deeper/build" || fail "build 2 failed"

# What a release ships: the install, the plugins and their manifests.
list() {	# list BUILDDIR: "sha256  path" of each shipped file
	(cd "$1/stage" && find . -type f | sort | xargs sha256sum)
	(cd "$1" && for m in plugins/*/manifest.json; do
		d=${m%/manifest.json}
		sha256sum "$d/${d#plugins/}" "$m"
	done)
}
list "$build1" > "$work/a.sums"
list "$work/b/out/deeper/build" > "$work/b.sums"
n=$(grep -c . "$work/a.sums")
[ "$n" -ge 6 ] || fail "only $n files to compare"
grep -q ' ./usr/local/bin/lockfile$' "$work/a.sums" || fail "no lockfile installed"
if ! cmp -s "$work/a.sums" "$work/b.sums"; then
	diff "$work/a.sums" "$work/b.sums" | sed 's/^/# /'
	fail "the two builds differ"
fi
if [ "$tap" = 1 ]; then
	sed 's/^/# /' "$work/a.sums"
	echo "ok 1 - $n shipped files byte-identical across two builds"
else
	cat "$work/a.sums"
	echo "reproduce: $n files identical"
fi
