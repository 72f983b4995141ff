#!/bin/bash
# make fuzz-filters: the BPF filter differential's long mode. One boot of
# patched runs tests/bpf-fold-diff.c over FILTER_FUZZ_CASES rings (default
# 50 000) from FUZZ_SEED (default: the time, printed), every SQE's verdict
# against libpcap's bpf_filter() running the chain as registered, with
# progress every 5 000 cases. A mismatch is printed whole (the programs,
# the SQE, its context, both answers) with the command that replays it.
# Its TAP under build/vm/fuzz-filters-SEED/.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"
seed=${FUZZ_SEED:-$(date +%s)}
cases=${FILTER_FUZZ_CASES:-50000}
out=$build/vm/fuzz-filters-$seed
rm -rf "$out"
mkdir -p "$out"
echo "== fuzz-filters: seed $seed, $cases cases on patched, TAP in $out/patched.tap; progress every 5000 cases"
BOOT_RUN= BOOT_LOGS=$out
boots_start fuzz-filters kernel 1
boots_next patched
start=$(date +%s)
# about 40 cases a second under TCG: past the runner's default 600 s
boot_guest patched patched TIMEOUT="${TIMEOUT:-$((600 + cases / 20))}" -- \
	env LAB_KERNEL=patched "$build/tests/bpf-fold-diff" -s "$seed" -n "$cases" -b 1000 -p 5000 |
	tr -d '\r' | tee "$out/patched.tap" | grep --line-buffered -v '^ok '
rc=${PIPESTATUS[0]}
boots_failures || boots_list
ok=$(grep -c '^ok ' "$out/patched.tap")
bad=$(grep -c '^not ok ' "$out/patched.tap")
echo "fuzz-filters seed $seed: $ok blocks agree, $bad differ, in $(($(date +%s) - start)) s (exit status $rc)"
if [ "$bad" != 0 ]; then
	echo "replay a case in a patched guest: bpf-fold-diff -s $seed -c N (N from the MISMATCH lines above)"
fi
[ "$rc" = 0 ] && [ "$bad" = 0 ] && [ "$ok" -gt 0 ]
