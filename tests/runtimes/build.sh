#!/bin/sh
# Build the runtime-compatibility plugin one way: glibc, musl, go or rust,
# always a static binary, into OUTDIR/answer-RUNTIME. Prints the toolchain
# used. A missing toolchain is an error (scripts/install-deps.sh installs
# them, through scripts/install-deps.d/hostile.sh), never a skip.
#
#   tests/runtimes/build.sh RUNTIME OUTDIR
set -eu
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 2 ] || { echo "usage: build.sh glibc|musl|go|rust OUTDIR" >&2; exit 64; }
rt=$1
out=$2
mkdir -p "$out"

missing() {
	echo "build.sh: $1 not found: run scripts/install-deps.sh as root" >&2
	exit 1
}

case $rt in
glibc)
	command -v gcc >/dev/null || missing gcc
	gcc --version | head -n 1
	gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static -pthread \
	    -o "$out/answer-glibc" "$here/answer.c"
	;;
musl)
	command -v musl-gcc >/dev/null || missing "musl-gcc (musl-tools)"
	echo "musl-gcc $(dpkg-query -W -f '${Version}' musl-tools 2>/dev/null || true)"
	musl-gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	    -o "$out/answer-musl" "$here/answer.c"
	;;
go)
	command -v go >/dev/null || missing "go (golang-go)"
	go version
	# A private cache and no network: the build needs nothing but std.
	cache="$out/.go"
	mkdir -p "$cache"
	(cd "$here" && CGO_ENABLED=0 GO111MODULE=off GOPROXY=off \
	    GOCACHE="$cache/cache" GOPATH="$cache/path" HOME="$cache" \
	    go build -trimpath -o "$out/answer-go" answer.go)
	;;
rust)
	# From PATH like the others (Debian's rustc, what install-deps adds),
	# never a toolchain at a fixed path outside the tree.
	command -v rustc >/dev/null || missing "rustc (rustc, libstd-rust-dev)"
	rustc --version
	rustc --edition 2021 -O -C target-feature=+crt-static \
	    -o "$out/answer-rust" "$here/answer.rs"
	;;
*)
	echo "build.sh: unknown runtime $rt" >&2
	exit 64
	;;
esac
