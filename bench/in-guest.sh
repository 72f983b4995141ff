#!/bin/bash
# bench/in-guest.sh KERNEL RUN [BOOT]: inside a lab guest, benchmark the
# running kernel into RUN/raw/KERNEL/ and record its environment in
# RUN/env/; with BOOT (wall-clock mode, several boots per kernel) into
# RUN/raw/KERNEL.bBOOT/, every ringbench line tagged boot=BOOT.
# Environment: QUICK, REPS, FIO_REPS, FIO=0 (microbenchmarks only), CELLS,
# FIO_JOBS, STEP_LIMIT, FIO_LIMIT, BENCH_HANG (see the matrix scripts).
# A failed step is recorded in raw/KERNEL/failures.tsv and the others
# still run; kernel log faults go to raw/KERNEL/klog.tsv.
set -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
kernel=$1
run=$2
boot=${3:-}
inst=$kernel${boot:+.b$boot}
raw=$run/raw/$inst
# the run's settings: the guest does not inherit the host's environment
[ -f "$run/bench.env" ] && . "$run/bench.env"
export QUICK REPS FIO_REPS FIO CELLS FIO_JOBS STEP_LIMIT FIO_LIMIT BENCH_HANG OPS_SCALE
. "$here/lib.sh"
mkdir -p "$raw" "$run/env"
rm -f "$raw/failures.tsv" "$raw/klog.tsv"
klog_step "$raw" boot
export BENCH_KERNEL=$kernel BENCH_BOOT=$boot
# test hook (tests/bench-hang.sh): a guest that logs issue 12's fault and
# stops answering, so the host's boot time limit must end it
case " ${BENCH_HANG:-} " in
*" $kernel/boot "*)
	echo '<3>irq 11: nobody cared (try booting with the "irqpoll" option)' >/dev/kmsg
	while :; do :; done ;;
esac
export BENCH_CLOCK_FILE=$run/.clock
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
{
	echo "kernel=$kernel"
	echo "guest_release=$(uname -r)"
	echo "guest_clocksource=$cs"
	echo "guest_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
	echo "guest_cpus=$(nproc)"
	echo "guest_cmdline=$(cat /proc/cmdline)"
	echo "fio=$(fio --version)"
	echo "boot=${boot:-1}"
} >"$run/env/$inst.guest.env"
echo "[bench] $inst: $(uname -r), clocksource $cs, $(nproc) cpu(s)"
status=0
"$here/micro-matrix.sh" "$kernel" "$raw" || status=1
if [ "${FIO:-1}" = 1 ]; then
	"$here/fio-matrix.sh" "$kernel" "$raw" || status=1
fi
exit $status
