#!/bin/bash
# bench/run.sh: `make bench`. On the host: boot each of KERNELS, run the
# benchmark matrix inside it (bench/in-guest.sh), then summarize, plot and
# write the report, all into one run folder:
#   results/<UTC timestamp>-<accelerator>/
#     env/      host, per-kernel boot and guest environment
#     raw/      ringbench JSON lines and fio's JSON, per kernel
#     logs/     console logs and tool stderr
#     summary.csv overhead.csv fio.csv REPORT.md plots/
#     FAILURES  the steps, cells and boots that failed, one a line (absent
#               when none did); REPORT.md marks them too
#     COMPLETE  written last: a folder without it is a killed run
# Inside a lab guest (make vm, then make bench) it benchmarks the running
# kernel only, into the same layout.
#
# A failed step, cell or boot does not end the run: the others still run,
# the report is written from everything measured, and the run exits
# non-zero naming what failed. Nothing is retried.
#
# Wall-clock mode (KVM, or TCG with ICOUNT=0) boots each kernel BOOTS
# times, interleaved across kernels (A B C A B C ...): a kernel's figures
# move between boots with page placement and host noise, so comparisons
# take their 95 % interval from the spread between boots, paired by round
# (uringlab/bench_summary.py). A boot's folders are then KERNEL.bN. Under
# icount a boot repeats its figures to 0.01 %: one boot, unless asked.
#
# Environment: KERNELS, ACCEL, ICOUNT (auto: on TCG, count instructions
# with -icount), BOOTS, QUICK=1, REPS, FIO_REPS, FIO=0, RUN (folder to use),
# CELLS, FIO_JOBS (subsets), STEP_LIMIT, FIO_LIMIT (seconds per guest
# step), TIMEOUT, IDLE_TIMEOUT (per boot, vm/run.sh), BENCH_HANG (test hook: steps that hang, see vm/lib.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
. "$here/lib.sh"
. "$lab/vm/boots.sh"

in_guest=0
grep -q 'lab\.out=' /proc/cmdline 2>/dev/null && in_guest=1
cmdline_arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p"; }

if [ "$in_guest" = 1 ]; then
	accel=$(cmdline_arg lab.accel)
	kernels=$(cmdline_arg lab.kernel)
else
	kernels=${KERNELS:-$LAB_KERNELS}
	# Wall time under TCG measures QEMU, not the kernel: count
	# instructions instead, unless asked otherwise.
	if [ "${ICOUNT:-auto}" = auto ]; then
		if [ "$(ICOUNT=0 "$lab/vm/run.sh" -a)" = tcg ]; then
			ICOUNT=1
		else
			ICOUNT=0
		fi
	fi
	export ICOUNT
	# A whole make bench boot took 551 s on a loaded 2-core host: the
	# boot's hard limit is generous, and a guest that goes silent is
	# ended sooner by the idle limit (vm/run.sh). A hung step is silent
	# until its watchdog gives up on it (limit + 15 s): the idle limit
	# stays above that, or it would take the boot for the step.
	step_max=$(( ${STEP_LIMIT:-60} > ${FIO_LIMIT:-180} ? ${STEP_LIMIT:-60} : ${FIO_LIMIT:-180} ))
	idle_min=$((step_max + 45))
	export TIMEOUT=${TIMEOUT:-3600}
	if [ -z "${IDLE_TIMEOUT:-}" ]; then
		IDLE_TIMEOUT=$(( idle_min > 300 ? idle_min : 300 ))
	elif [ "$IDLE_TIMEOUT" != 0 ] && [ "$IDLE_TIMEOUT" -lt "$idle_min" ]; then
		echo "[bench] error: IDLE_TIMEOUT=$IDLE_TIMEOUT would end a boot before its longest step's limit (${step_max}s) could: use at least $idle_min, or 0 for none" >&2
		exit 2
	fi
	export IDLE_TIMEOUT
	accel=$(KERNEL=${kernels%% *} "$lab/vm/run.sh" -a)
fi

# BOOTS_WALL: the default boots per kernel without icount, from the power
# analysis in README ("Wall-clock mode"): on this lab's noisy 2-core TCG
# host a check's cost varied 2.1 % between boots (NOP b=32, 8 boots), so 6
# boots detect a 3 % cost with 80 % power; comparisons across kernels
# varied 6-16 % between rounds and would want 15-86 rounds for 5 %
BOOTS_WALL=6
if [ "$in_guest" = 1 ]; then
	boots=1
elif [ -n "${BOOTS:-}" ]; then
	boots=$BOOTS
elif [ "$accel" = tcg-icount ]; then
	boots=1
else
	boots=$BOOTS_WALL
fi
# Wall-clock mode's defaults, from the pilot runs in README ("Wall-clock
# mode"): runs 20 times longer than icount's 15 ms (a 2-core TCG host moved
# 12 ms NOP runs by up to 2x within a boot), 9 repetitions so that a boot's
# median outlives a burst of slow runs, and under TCG one guest CPU (with
# two, both host cores run vCPUs and a third thread's turn costs a run
# 1.6x). The wall-clock cost of a run does not change the metric's meaning.
wall=0
if [ "$in_guest" = 0 ] && [ "$accel" != tcg-icount ]; then wall=1; fi
if [ -z "${OPS_SCALE:-}" ]; then
	if [ "$wall" = 1 ]; then OPS_SCALE=20; else OPS_SCALE=1; fi
fi
if [ "$wall" = 1 ]; then
	REPS=${REPS:-9}
	[ "$accel" = tcg ] && export SMP=${SMP:-1}
fi
case $boots in
'' | *[!0-9]* | 0) echo "[bench] error: BOOTS=$boots: want a whole number of boots, 1 or more" >&2; exit 2 ;;
esac
case $OPS_SCALE in
'' | *[!0-9]* | 0) echo "[bench] error: OPS_SCALE=$OPS_SCALE: want a whole number, 1 or more" >&2; exit 2 ;;
esac
# instance: the name of one boot's folders (raw/, logs/, env/)
instance() { if [ "$boots" = 1 ]; then echo "$1"; else echo "$1.b$2"; fi; }
# round_order B: the kernels in round B's order, rotated by one each round
# (A B C, B C A, C A B, ...) so that no kernel always boots first or last
# and a drift along the round does not load one kernel's figures
round_order() {
	local -a ks
	read -r -a ks <<<"$kernels"
	local n=${#ks[@]} i
	for ((i = 0; i < n; i++)); do printf '%s ' "${ks[$(((i + $1 - 1) % n))]}"; done
}
instances=
for b in $(seq 1 "$boots"); do
	for k in $(round_order "$b"); do instances="$instances $(instance "$k" "$b")"; done
done
instances=${instances# }

run=${RUN:-$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-$accel}
# a RUN folder given again holds another run's files: start it empty
if [ -n "${RUN:-}" ] && [ -d "$RUN" ]; then
	(cd "$RUN" && rm -rf raw env logs plots summary.csv overhead.csv fio.csv REPORT.md \
		FAILURES failures.tsv COMPLETE bench.env)
fi
run=$(run_open "$run")
# elapsed times by the host's clock, also inside an icount guest (vm/lib.sh)
export BENCH_CLOCK_FILE=$run/.clock
{
	echo "QUICK=${QUICK:-0}"
	[ -n "${REPS:-}" ] && echo "REPS=$REPS"
	[ -n "${FIO_REPS:-}" ] && echo "FIO_REPS=$FIO_REPS"
	echo "FIO=${FIO:-1}"
	echo "BOOTS=$boots"
	echo "OPS_SCALE=$OPS_SCALE"
	[ -n "${SMP:-}" ] && echo "SMP=$SMP"
	for v in CELLS FIO_JOBS STEP_LIMIT FIO_LIMIT BENCH_HANG; do
		if [ -n "${!v:-}" ]; then printf '%s=%q\n' "$v" "${!v}"; fi
	done
} | write_atomic "$run/bench.env"

{
	host_env "$accel" "$kernels" "$run/bench.env"
	echo "in_guest=$in_guest"
	echo "boots=$boots"
	echo "instances=$instances"
} | write_atomic "$run/env/host.env"

echo "[bench] run folder: $run"
echo "[bench] kernels: $kernels; $boots boot(s) each; accelerator: $accel; settings: $(tr '\n' ' ' <"$run/bench.env")"
# the guests record their failed steps (raw/INSTANCE/failures.tsv)
BOOT_RUN=$run BOOT_STEPS=1
status=0
boots_start bench boot "$(wc -w <<<"$instances")"
for b in $(seq 1 "$boots"); do
for k in $(round_order "$b"); do
	what=$k
	[ "$boots" = 1 ] || what="$k, round $b/$boots"
	# baseline has half the cells: the time left errs long
	boots_next "$what"
	guest=("$here/in-guest.sh" "$k" "$run")
	[ "$boots" = 1 ] || guest+=("$b")
	if [ "$in_guest" = 1 ]; then
		"${guest[@]}" || status=1
	else
		boot_guest "$(instance "$k" "$b")" "$k" -- "${guest[@]}" || true
	fi
done
done
# The report is written whatever failed: from everything that was measured.
boots_failures $instances || true
python3 -m uringlab.render "$run" || status=1
boots_end latest "$run/REPORT.md" "$status"
