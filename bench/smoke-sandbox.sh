#!/bin/sh
# Suite `bench-sandbox-smoke`: run bench-sandbox and bench/commands briefly and check only that
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
echo "1..5"
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
# bench/commands, a few rounds: it completes and prints its two ratios.
if /usr/bin/python3 "$(dirname "$0")/commands/run.py" "$build" --rounds 5 \
    >"$out" 2>&1; then
	echo "ok 4 - bench/commands completes"
else
	echo "not ok 4 - bench/commands completes"
	sed 's/^/#   /' "$out"
fi
if grep -Eq "^  lockfile --version / static no-op = [0-9]+\.[0-9]+x" "$out" &&
    grep -Eq "^  bwrap / lockfile sandbox-run = [0-9]+\.[0-9]+x" "$out"; then
	echo "ok 5 - bench/commands prints its ratios"
else
	echo "not ok 5 - bench/commands prints its ratios"
fi
