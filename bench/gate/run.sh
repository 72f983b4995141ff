#!/bin/bash
# bench/gate/run.sh: `make check`, the regression gate. Boot baseline and
# patched under TCG with -icount shift=0,sleep=off (always: the gate
# compares instruction counts, which a busy host cannot change), run the
# fixed workload set in each (bench/gate/in-guest.sh), then boot each
# again under the insn-count plugin with its cache model for the
# modelled-miss rows, then let
# uringlab/gate.py compare the figures with bench/gate/thresholds and
# bench/gate/reference.csv. Writes results/<UTC>-check/ (env/, logs/,
# raw/, GATE.txt, gate.csv, COMPLETE last; results/latest-check points at
# the last complete one). Exit status: uringlab/gate.py's (1: the gate
# failed); 2 when a boot or guest failed, after booting the others.
# Environment: REPS (runs per cell and ring, default 3), RUN (folder),
# WRITE_REFERENCE=1 (make check-reference: rewrite reference.csv from
# this run instead of judging it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/../.." && pwd)
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"
export ACCEL=tcg ICOUNT=1
accel=$("$lab/vm/run.sh" -a)
# the gate compares our series with the kernel it starts from, always
kernels="baseline patched"
run=${RUN:-$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-check}
run=$(run_open "$run")
echo "REPS=${REPS:-3}" | write_atomic "$run/check.env"
host_env "$accel" "$kernels" "$run/check.env" | write_atomic "$run/env/host.env"
export BENCH_CLOCK_FILE=$run/.clock
echo "[check] run folder: $run ($accel)"
BOOT_RUN=$run
boots_start check boot 4
for k in $kernels; do
	boots_next "$k"
	boot_guest "$k" "$k" -- \
		env REPS="${REPS:-3}" GATE_PART=insn "$here/in-guest.sh" "$k" "$run/raw" || true
	boots_next "$k under the cache model"
	boot_guest "$k-mem" "$k" \
		PLUGIN="file=$lab/build/tracing/insn-count.so,out=$run/raw/$k.insn-count.txt,cache=1,lines=0" -- \
		env REPS="${REPS:-3}" GATE_PART=mem "$here/in-guest.sh" "$k" "$run/raw" || true
done
# A cell left unmeasured is no verdict, and never a reference.
rc=0
if ! boots_failures; then
	{
		echo "gate: not judged: a boot or a guest failed (FAILURES)"
		boots_list
	} | write_atomic "$run/GATE.txt"
	rc=2
elif [ "${WRITE_REFERENCE:-0}" = 1 ]; then
	python3 -m uringlab.gate "$run" --write-reference "$here/reference.csv" || rc=$?
else
	python3 -m uringlab.gate "$run" || rc=$?
fi
boots_end latest-check "$run/GATE.txt" || rc=2
exit $rc
