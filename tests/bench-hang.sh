#!/bin/bash
# tests/bench-hang.sh KERNEL KERNEL2 (TAP, on the host): make bench keeps
# what it measured when a guest step or a whole boot hangs. One short run
# (TCG -icount, NOP cells, one null_blk fio job) in which
#   KERNEL's guest stops answering after boot (the host's time limit must
#   kill QEMU), and on KERNEL2 the fio step hangs (its own time limit must
#   end it, and the boot goes on);
# the run must exit non-zero, name both in FAILURES, and still write a
# complete REPORT.md with KERNEL2's microbenchmark figures in it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
hung=$1 ok=$2
run=$build/vm/bench-hang
rm -rf "$run"
mkdir -p "$run"
log=$build/vm/bench-hang.log

# TIMEOUT: the hung boot costs the whole of it; KERNEL2's boot takes
# about 40 s here
KERNELS="$hung $ok" ACCEL=tcg ICOUNT=1 QUICK=1 REPS=1 CELLS=nop FIO_JOBS=nullb-qd32-reg \
	FIO_LIMIT=15 TIMEOUT=${HANG_TIMEOUT:-90} BENCH_HANG="$hung/boot fio:fixed-files" RUN=$run \
	"$lab/bench/run.sh" >"$log" 2>&1
rc=$?

n=0
t() { # VERDICT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
fail=0
echo "1..7"
[ "$rc" != 0 ]
t $? "make bench exits non-zero when a step or boot failed (status $rc)"
[ -f "$run/COMPLETE" ] && [ -s "$run/REPORT.md" ]
t $? "the run is complete and has a REPORT.md"
grep -qP "^$hung\tboot\tno power-off within" "$run/FAILURES" 2>/dev/null
t $? "FAILURES names $hung's lost boot (QEMU killed at the time limit)"
grep -qP "^$ok\tfio fixed-files \(unrestricted, rep 1: nullb-qd32-reg\)\thung: killed after its 15s limit \(host time\)" "$run/FAILURES" 2>/dev/null
t $? "FAILURES names $ok's hung fio step, ended by its own 15 s limit"
grep -q "^$ok,unrestricted\|^nop b=32,$ok,unrestricted" "$run/summary.csv" 2>/dev/null
t $? "$ok's microbenchmarks, measured before its fio step hung, are in summary.csv"
grep -q "step(s) failed" "$run/REPORT.md" && grep -q "| $hung | boot | no power-off" "$run/REPORT.md" &&
	grep -q "^- \`$ok\`, fixed-files (unrestricted, rep 1: nullb-qd32-reg): hung" "$run/REPORT.md"
t $? "REPORT.md marks the lost boot and the hung fio step, with reasons"
grep -q "make bench exited non-zero\|the run has failures" "$log" && grep -q "$hung: boot: no power-off" "$log"
t $? "make bench's last lines name what failed"
if [ "$fail" != 0 ]; then
	echo "# make bench's output ($log):"
	tail -25 "$log" | sed 's/^/#   /'
fi
exit $fail
