#!/bin/bash
# tracing/run.sh: `make trace`. Boot each of KERNELS twice and run
# tracing/in-guest.sh inside, then attribute, plot and report:
#   1. TCG with -icount shift=0,sleep=off and the lab's insn-count QEMU
#      plugin: plugin windows around ringbench's timed loops, bpftrace
#      (whose clock then counts instructions);
#   2. ACCEL (auto: KVM if it works, else TCG) without -icount: perf.
#      Under -icount the sampling clock and a periodic workload run in
#      lockstep, so cpu-clock samples alias onto a few phases of the
#      loop (measured: a user function's share went from 14 % to 0.4 %
#      between two rings whose user code is identical).
# Into:
#   results/<UTC timestamp>-tcg-icount-trace/
#     env/ logs/  as make bench
#     raw/KERNEL/ insn-count.txt (the plugin's windows), windows.jsonl,
#                 bpftrace/, perf/
#     trace/      per-function attribution tables (uringlab/attribution.py)
#     plots/ REPORT.md COMPLETE (written last)
# results/latest-trace points at the last complete one. A lost boot or a
# failed guest is named in FAILURES and the others still run; the report
# then shows what was traced, and the run exits 1 (vm/boots.sh).
# Boot 1 is always TCG: plugins instrument TCG's code, and the counts only
# mean something under -icount. Environment: KERNELS, ACCEL (boot 2),
# TRACE_REPS, TRACE_PARTS (subset of "insn bpftrace perf"), RUN, CACHE
# (1: the plugin's cache model, the default; 0: off) and CACHE_GEOMETRY
# (e.g. "l1d=32:8,l2=1280:10"; default one Golden Cove core, see
# tracing/insn-count.c) and TIMEOUT (per boot, default 1800).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
. "$lab/vm/lib.sh"
. "$lab/vm/boots.sh"
build=${BUILD:-$lab/build}
kernels=${KERNELS:-$LAB_KERNELS}
plugin=$build/tracing/insn-count.so
[ -f "$plugin" ] || { echo "trace: no plugin at $plugin (make plugin)" >&2; exit 1; }
command -v bpftrace >/dev/null && command -v perf >/dev/null ||
	{ echo "trace: bpftrace and perf are needed on the host's root, which the guest runs (make deps-tools)" >&2; exit 1; }

parts=${TRACE_PARTS:-insn bpftrace perf}
perf_accel=$(ACCEL=${ACCEL:-auto} ICOUNT=0 KERNEL=${kernels%% *} "$lab/vm/run.sh" -a)
export ACCEL=tcg ICOUNT=1
# a plugin boot of a filtered kernel runs past vm/run.sh's 600 s on a loaded host
export TIMEOUT=${TIMEOUT:-1800}
accel=$("$lab/vm/run.sh" -a)
run=${RUN:-$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-$accel-trace}
run=$(run_open "$run")
export BENCH_CLOCK_FILE=$run/.clock
{
	echo "TRACE_REPS=${TRACE_REPS:-3}"
	echo "TRACE_PARTS=\"$parts\""
} | write_atomic "$run/trace.env"
{
	host_env "$accel" "$kernels" "$run/trace.env"
	echo "bpftrace=$(bpftrace --version 2>/dev/null)"
	echo "perf=$(perf version 2>/dev/null)"
	echo "plugin=$(sha1sum "$lab/tracing/insn-count.c" | cut -c1-12)"
	echo "perf_accel=$perf_accel"
} | write_atomic "$run/env/host.env"

echo "[trace] run folder: $run"
echo "[trace] kernels: $kernels; $accel with the insn-count plugin (insn, bpftrace), $perf_accel (perf)"
# the plugin's cache model (CACHE=0: instructions only, a faster boot)
cache_args=
[ "${CACHE:-1}" = 1 ] && cache_args=",cache=1${CACHE_GEOMETRY:+,$CACHE_GEOMETRY}"
# which parts go to which boot (grep finds none: not an error)
p1=$(tr ' ' '\n' <<<"$parts" | { grep -xE 'insn|bpftrace' || true; } | tr '\n' ' ')
p2=$(tr ' ' '\n' <<<"$parts" | { grep -x perf || true; } | tr '\n' ' ')
BOOT_RUN=$run
boots_start trace kernel "$(wc -w <<<"$kernels")"
for k in $kernels; do
	boots_next "$k"
	mkdir -p "$run/raw/$k"
	rm -f "$run/raw/$k/insn-count.txt"
	if [ -n "$p1" ]; then
		boot_guest "$k" "$k" PLUGIN="file=$plugin,out=$run/raw/$k/insn-count.txt$cache_args" -- \
			"$here/in-guest.sh" "$k" "$run" "${p1% }" || true
	fi
	if [ -n "$p2" ]; then
		boot_guest "$k-perf" "$k" ACCEL="${perf_accel%-*}" ICOUNT=0 -- \
			"$here/in-guest.sh" "$k" "$run" perf || true
	fi
	# the symbols the plugin's addresses are resolved with, kept with the run
	cp "$build/out/$k/System.map" "$run/raw/$k/System.map"
	cp "$build/out/$k/io_ring_ctx.size" "$run/raw/$k/io_ring_ctx.size" 2>/dev/null || true
done
# The report is written whatever failed: from everything that was traced.
status=0
boots_failures || true
python3 -m uringlab.render "$run" || status=1
boots_end latest-trace "$run/REPORT.md" "$status"
