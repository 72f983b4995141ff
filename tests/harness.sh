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

echo "== make bench when a step and a boot hang ($a boot, $b fio)"
t0=$(date +%s)
"$here/bench-hang.sh" "$a" "$b" | tee "$build/vm/bench-hang.tap"
rc=${PIPESTATUS[0]}
count bench-hang "$build/vm/bench-hang.tap" "$rc"
"$lab/.ci/phase.sh" add "harness: bench-hang" "$t0" "$(date +%s)" "$([ "$rc" = 0 ] && echo ok || echo "failed ($rc)")"

echo "== make bench BOOTS=2 ICOUNT=0 ($a, $b)"
t0=$(date +%s)
"$here/bench-boots.sh" "$a" "$b" | tee "$build/vm/bench-boots.tap"
rc=${PIPESTATUS[0]}
count bench-boots "$build/vm/bench-boots.tap" "$rc"
"$lab/.ci/phase.sh" add "harness: bench-boots" "$t0" "$(date +%s)" "$([ "$rc" = 0 ] && echo ok || echo "failed ($rc)")"

echo "== summary"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
