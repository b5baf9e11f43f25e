#!/bin/sh
# Suite `bench-sandbox-smoke`: run bench-sandbox briefly and check only that
# it completes and prints its ratios. No timing is asserted here (speed is
# judged by `make bench`, bench/README.md). TAP.
set -u
build=${BUILD:-$(dirname "$0")/../build}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
if [ "$(id -u)" = 0 ]; then
	set -- setpriv --reuid=lockfile --regid=lockfile --init-groups
else
	set --
fi
echo "1..3"
if "$@" "$build/bench/bench-sandbox" -n 10 -w 2 "$build/bench/noop-plugin" \
    >"$out" 2>&1; then
	echo "ok 1 - bench-sandbox completes"
else
	echo "not ok 1 - bench-sandbox completes"
	sed 's/^/#   /' "$out"
fi
for r in "sandboxed/bare" "bwrap/sandboxed"; do
	n=$((${n:-1} + 1))
	if grep -Eq "^ratio $r = [0-9]+\.[0-9]+$" "$out"; then
		echo "ok $n - it prints ratio $r"
	else
		echo "not ok $n - it prints ratio $r"
	fi
done
