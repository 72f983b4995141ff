#!/bin/bash
# bench/gate/run.sh: `make check`, the regression gate. Boot baseline and
# patched under TCG with -icount shift=0,sleep=off (always: the gate
# compares instruction counts, which a busy host cannot change), run the
# fixed workload set in each (bench/gate/in-guest.sh), then boot each
# again under the insn-count plugin with its cache model for the
# modelled-miss rows, then let
# bench/gate/gate.py compare the figures with bench/gate/thresholds and
# bench/gate/reference.csv. Writes results/<UTC>-check/ (env/, logs/,
# raw/, GATE.txt, gate.csv, COMPLETE last; results/latest-check points at
# the last complete one). Exit status: gate.py's (1: the gate failed).
# Environment: REPS (runs per cell and ring, default 3), RUN (folder),
# WRITE_REFERENCE=1 (make check-reference: rewrite reference.csv from
# this run instead of judging it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/../.." && pwd)
. "$lab/bench/lib.sh"
export ACCEL=tcg ICOUNT=1
accel=$("$lab/vm/run.sh" -a)
run=${RUN:-$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-check}
run=$(run_open "$run")
echo "REPS=${REPS:-3}" | write_atomic "$run/check.env"
host_env "$accel" "baseline patched" "$run/check.env" | write_atomic "$run/env/host.env"
export BENCH_CLOCK_FILE=$run/raw/.clock
echo "[check] run folder: $run ($accel)"
t0=$(host_now)
for k in baseline patched; do
	echo "[check] $k ($(fmt_secs $(( $(host_now) - t0 ))) so far)"
	KERNEL=$k VM_OUT=$run/logs/$k "$lab/vm/run.sh" -- \
		env REPS="${REPS:-3}" GATE_PART=insn "$here/in-guest.sh" "$k" "$run/raw" || {
		echo "[check] error: the $k guest failed (see $run/logs/$k)" >&2
		exit 2
	}
	echo "[check] $k under the cache model ($(fmt_secs $(( $(host_now) - t0 ))) so far)"
	KERNEL=$k VM_OUT=$run/logs/$k-mem \
		PLUGIN="file=$lab/build/tracing/insn-count.so,out=$run/raw/$k.insn-count.txt,cache=1,lines=0" \
		"$lab/vm/run.sh" -- \
		env REPS="${REPS:-3}" GATE_PART=mem "$here/in-guest.sh" "$k" "$run/raw" || {
		echo "[check] error: the $k guest failed (see $run/logs/$k-mem)" >&2
		exit 2
	}
	cp "$run/logs/$k/boot.env" "$run/env/$k.boot.env"
done
rm -f "$run/raw/.clock"
if [ "${WRITE_REFERENCE:-0}" = 1 ]; then
	python3 "$here/gate.py" "$run" --write-reference "$here/reference.csv"
	rc=0
else
	set +e
	python3 "$here/gate.py" "$run"
	rc=$?
	set -e
fi
run_close "$run" latest-check
echo "[check] done in $(fmt_secs $(( $(host_now) - t0 ))): $run/GATE.txt"
exit $rc
