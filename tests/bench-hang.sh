#!/bin/bash
# tests/bench-hang.sh KERNEL KERNEL2 (TAP, on the host): make bench keeps
# what it measured when a guest step or a whole boot hangs. One short run
# (TCG -icount, NOP cells, one null_blk fio job) in which
#   KERNEL's guest logs "irq 11: nobody cared" (issue 12's fault) and stops
#   answering: the host's idle limit must kill QEMU;
#   on KERNEL2 the first NOP warm-up spins (the step watchdog must kill it)
#   and the first fio run is stuck where signals cannot reach it (it must
#   be left behind), and the boot goes on;
# the run must exit non-zero, name all three in FAILURES and the report,
# quote the kernel log fault, and still write a complete REPORT.md with
# KERNEL2's microbenchmark figures in it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
hung=$1 ok=$2
run=$build/vm/bench-hang
rm -rf "$run"
mkdir -p "$run"
log=$build/vm/bench-hang.log

# The hung boot goes silent and must be ended by the idle limit, long
# before its boot limit; KERNEL2's boot takes about 40 s here, its stuck
# steps are given up after 30, and its kernel boots in well under a minute
# even on a loaded host (HANG_IDLE: more room).
idle=${HANG_IDLE:-90}
KERNELS="$hung $ok" ACCEL=tcg ICOUNT=1 QUICK=1 REPS=1 CELLS=nop FIO_JOBS=nullb-qd32-reg \
	STEP_LIMIT=15 FIO_LIMIT=15 TIMEOUT=600 IDLE_TIMEOUT=$idle \
	BENCH_HANG="$hung/boot $ok/micro:nop $ok/stuck:fio:fixed-files" RUN=$run \
	"$lab/bench/run.sh" >"$log" 2>&1
rc=$?

n=0
t() { # VERDICT DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}
fail=0
echo "1..8"
[ "$rc" != 0 ]
t $? "make bench exits non-zero when a step or boot failed (status $rc)"
[ -f "$run/COMPLETE" ] && [ -s "$run/REPORT.md" ]
t $? "the run is complete and has a REPORT.md"
grep -qP "^$hung\tboot\tno output from the guest's programs for ${idle}s" "$run/FAILURES" 2>/dev/null
t $? "FAILURES names $hung's lost boot (QEMU killed after $idle s of silence)"
grep -qP "^$ok\tmicro nop b=1, warm-up\thung: killed after its 15s limit \(host time\)" "$run/FAILURES" 2>/dev/null
t $? "FAILURES names $ok's spinning NOP warm-up, killed at its own 15 s limit"
grep -qP "^$ok\tfio fixed-files \((un)?restricted, rep 1: nullb-qd32-reg\)\thung: could not be killed after its 15s limit" "$run/FAILURES" 2>/dev/null
t $? "FAILURES names $ok's stuck fio run, left behind after its limit"
grep -q "^nop b=32,$ok,unrestricted" "$run/summary.csv" 2>/dev/null &&
	grep -q "^nop b=1,$ok,unrestricted" "$run/summary.csv"
t $? "$ok's NOP cells, the one whose warm-up hung included, are in summary.csv"
grep -q "step(s) failed" "$run/REPORT.md" && grep -q "| $hung | boot | no output from the guest's programs for ${idle}s" "$run/REPORT.md" &&
	grep -q "^- \`$ok\`, warm-up: hung" "$run/REPORT.md" &&
	grep -q "^- \`$ok\`, fixed-files (.*): hung: could not be killed" "$run/REPORT.md" &&
	grep -q "\`$hung\`: \*\*1 fault line(s)" "$run/REPORT.md" && grep -q "irq 11: nobody cared" "$run/REPORT.md"
t $? "REPORT.md marks the lost boot, the hung steps and the kernel log fault, with reasons"
grep -q "the run has failures" "$log" && grep -q "$hung: boot: no output from the guest" "$log"
t $? "make bench's last lines name what failed"
if [ "$fail" != 0 ]; then
	echo "# make bench's output ($log):"
	tail -25 "$log" | sed 's/^/#   /'
fi
exit $fail
