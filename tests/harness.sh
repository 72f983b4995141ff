#!/bin/bash
# tests/harness.sh KERNEL KERNEL2: the bench harness's own self-tests, on
# two built kernels (make test-harness; not in CI's per-submission run,
# README "Tests"): make bench when a guest step and a whole boot hang
# (tests/bench-hang.sh, KERNEL's boot hangs, KERNEL2's fio step), and
# wall-clock mode's interleaved boots (tests/bench-boots.sh). Prints one
# summary per test and "N passed, N failed"; non-zero on any failure.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
. "$here/tap-count.sh"
mkdir -p "$build/vm"
[ $# = 2 ] || { echo "usage: tests/harness.sh KERNEL KERNEL2 (make test-harness: KERNELS' second and third)" >&2; exit 2; }
a=$1 b=$2

# selftest NAME TITLE: run tests/NAME.sh on the two kernels, count its TAP
selftest() {
	local t0 rc
	echo "== $2"
	t0=$(date +%s)
	"$here/$1.sh" "$a" "$b" | tee "$build/vm/$1.tap"
	rc=${PIPESTATUS[0]}
	count "$1" "$build/vm/$1.tap" "$rc"
	"$lab/.ci/phase.sh" add "harness: $1" "$t0" "$(date +%s)" "$([ "$rc" = 0 ] && echo ok || echo "failed ($rc)")"
}
selftest bench-hang "make bench when a step and a boot hang ($a boot, $b fio)"
selftest bench-boots "make bench BOOTS=2 ICOUNT=0 ($a, $b)"

echo "== summary"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
