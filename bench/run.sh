#!/bin/bash
# bench/run.sh: `make bench`. On the host: boot each of KERNELS, run the
# benchmark matrix inside it (bench/in-guest.sh), then summarize, plot and
# write the report, all into one run folder:
#   results/<UTC timestamp>-<accelerator>/
#     env/      host, per-kernel boot and guest environment
#     raw/      ringbench JSON lines and fio's JSON, per kernel
#     logs/     console logs and tool stderr
#     summary.csv overhead.csv fio.csv REPORT.md plots/
#     COMPLETE  written last: a folder without it is a killed run
# Inside a lab guest (make vm, then make bench) it benchmarks the running
# kernel only, into the same layout.
#
# Environment: KERNELS, ACCEL, ICOUNT (auto: on TCG, count instructions
# with -icount), QUICK=1, REPS, FIO_REPS, FIO=0, RUN (folder to use).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
. "$here/lib.sh"

in_guest=0
grep -q 'lab\.out=' /proc/cmdline 2>/dev/null && in_guest=1
cmdline_arg() { tr ' ' '\n' </proc/cmdline | sed -n "s/^$1=//p"; }

if [ "$in_guest" = 1 ]; then
	accel=$(cmdline_arg lab.accel)
	kernels=$(cmdline_arg lab.kernel)
else
	kernels=${KERNELS:-baseline patched upstream}
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
	accel=$(KERNEL=${kernels%% *} "$lab/vm/run.sh" -a)
fi

run=${RUN:-$lab/results/$(date -u +%Y%m%dT%H%M%SZ)-$accel}
run=$(run_open "$run")
# elapsed times by the host's clock, also inside an icount guest (lib.sh)
export BENCH_CLOCK_FILE=$run/.clock
{
	echo "QUICK=${QUICK:-0}"
	[ -n "${REPS:-}" ] && echo "REPS=$REPS"
	[ -n "${FIO_REPS:-}" ] && echo "FIO_REPS=$FIO_REPS"
	echo "FIO=${FIO:-1}"
} | write_atomic "$run/bench.env"

{
	host_env "$accel" "$kernels" "$run/bench.env"
	echo "in_guest=$in_guest"
} | write_atomic "$run/env/host.env"

echo "[bench] run folder: $run"
echo "[bench] kernels: $kernels; accelerator: $accel; settings: $(tr '\n' ' ' <"$run/bench.env")"
status=0
t0=$(host_now)
nk=$(wc -w <<<"$kernels")
i=0
for k in $kernels; do
	i=$((i + 1))
	el=$(( $(host_now) - t0 ))
	if [ "$i" -gt 1 ]; then
		# baseline has half the cells: the estimate errs long
		eta=", about $(fmt_secs $(( el * (nk - i + 1) / (i - 1) ))) left"
	else
		eta=""
	fi
	echo "[bench] kernel $i/$nk: $k ($(fmt_secs "$el") so far$eta)"
	if [ "$in_guest" = 1 ]; then
		"$here/in-guest.sh" "$k" "$run" || status=1
		continue
	fi
	KERNEL=$k VM_OUT=$run/logs/$k "$lab/vm/run.sh" -- "$here/in-guest.sh" "$k" "$run" || status=1
	cp "$run/logs/$k/boot.env" "$run/env/$k.boot.env" 2>/dev/null || true
	[ -f "$lab/build/out/$k/.lab-stamp" ] &&
		cp "$lab/build/out/$k/.lab-stamp" "$run/env/$k.build-stamp"
done
if [ "$status" != 0 ]; then
	rm -f "$run/.clock"
	echo "[bench] error: a benchmark failed (see $run/logs and raw/*/*.log); no report" >&2
	exit 1
fi

echo "[bench] summarizing"
python3 "$here/summarize.py" "$run"
"$lab/plots/draw.sh" "$run"
python3 "$here/report.py" "$run"
run_close "$run" latest
echo "[bench] done in $(fmt_secs $(( $(host_now) - t0 ))): $run/REPORT.md"
rm -f "$run/.clock"
