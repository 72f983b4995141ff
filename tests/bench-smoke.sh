#!/bin/bash
# tests/bench-smoke.sh KERNEL: inside a lab guest, check that the
# benchmarks measure what they claim on the running kernel (TAP):
# every ringbench workload runs on an unrestricted ring; on a restricted
# ring it runs (patched, upstream) or says the kernel has no restrictions
# (baseline, exit 77); uring-restrict really restricts fio's ring, refuses
# a bad policy before the program runs, and a policy that leaves out fio's
# opcode makes fio's I/O fail rather than pass unnoticed; the filter cells
# that can refuse refuse before they are measured (patched).
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
kernel=$1
case $kernel in baseline) feature=0 ;; *) feature=1 ;; esac
cp "$build/bench/ringbench" /tmp/ringbench
export URING_RESTRICT_LIB=$build/bench/uring-restrict.so
wrap=$lab/bench/uring-restrict
job=$lab/fio-jobs/nullb-qd1-reg.fio
policy=$(sed -n 's/^; policy: //p' "$job")

. "$here/tap.sh"

echo "1..37"
for wl in nop read sqpoll setup deny skip drain link async topop bufsel rings connect; do
	/tmp/ringbench -w "$wl" -n 64 -W 8 -d 4 -b 4 -R 64 >/tmp/out 2>/tmp/err
	tap $? "ringbench -w $wl, unrestricted ring: runs" /tmp/err
done
/tmp/ringbench -w fork -n 4 -W 1 >/tmp/out 2>/tmp/err
tap $? "ringbench -w fork, no restrictions: runs" /tmp/err
for wl in nop read sqpoll setup deny skip drain link async topop bufsel rings connect; do
	/tmp/ringbench -w "$wl" -r 1 -n 64 -W 8 -d 4 -b 4 -R 64 >/tmp/out 2>/tmp/err
	rc=$?
	if [ "$feature" = 1 ]; then
		[ "$rc" = 0 ] && grep -q '"ring":"restricted"' /tmp/out
		tap $? "ringbench -w $wl, restricted ring: runs and passes the check" /tmp/err
	else
		[ "$rc" = 77 ] && grep -q 'no IORING_SETUP_R_DISABLED' /tmp/err
		tap $? "ringbench -w $wl, restricted ring: absent on baseline (exit 77, says why)" /tmp/err
	fi
done

# patched only; 6.1 answers 77 and says why. The task's restrictions (fd
# -1), then the filter cells that refuse: each of those first shows its
# filter refusing an IOSQE_ASYNC NOP (real also user_data 0xdead) on a
# ring of its own
for run in "nop -r 4 -b 4 -n 64 -W 8|task-restricted|no task restrictions|runs on the task-restricted task" \
	"fork -r 5 -n 4 -W 1|task-filtered|no IORING_REGISTER_BPF_FILTER|runs on the task-filtered task" \
	"fork -r 6 -n 4 -W 1|other-filtered|no IORING_REGISTER_BPF_FILTER|runs on the other-filtered task" \
	"nop -r 2 -F flags -b 4 -n 64 -W 8|filtered|no IORING_REGISTER_BPF_FILTER|its filter refuses, then the cell runs" \
	"nop -r 2 -F flags -S 4 -L 0 -b 4 -n 64 -W 8|filtered|no io_uring.bpf_fold|its filter refuses, then the cell runs" \
	"nop -r 3 -F real -b 4 -n 64 -W 8|restricted+filtered|no IORING_REGISTER_BPF_FILTER|its filter refuses, then the cell runs" \
	"nop -r 5 -F real -S 2 -b 4 -n 64 -W 8|task-filtered|no IORING_REGISTER_BPF_FILTER|its filter refuses, then the cell runs"; do
	IFS='|' read -r args ring why what <<<"$run"
	# shellcheck disable=SC2086
	/tmp/ringbench -w $args >/tmp/out 2>/tmp/err
	rc=$?
	if [ "$kernel" = patched ]; then
		[ "$rc" = 0 ] && grep -q "\"ring\":\"$ring\"" /tmp/out
		tap $? "ringbench -w $args: $what" /tmp/err
	else
		[ "$rc" = 77 ] && grep -q "$why" /tmp/err
		tap $? "ringbench -w $args: absent on $kernel (exit 77, says why)" /tmp/err
	fi
done

fio_run() { # policy; fio's JSON in /tmp/fio.json, stderr in /tmp/err
	"$wrap" -v -p "$1" -- fio --output-format=json --eta=never --number_ios=200 \
		--output=/tmp/fio.json "$job" 2>/tmp/err
}
fio_run "$policy"
rc=$?
if [ "$feature" = 1 ]; then
	[ "$rc" = 0 ] && grep -q 'ring fd [0-9]* restricted' /tmp/err &&
		grep -q '"error" : 0' /tmp/fio.json
	tap $? "uring-restrict: fio runs its job on a restricted ring" /tmp/err
else
	[ "$rc" != 0 ] && grep -q 'cannot restrict rings' /tmp/err
	tap $? "uring-restrict: on baseline fio's ring setup fails with a clear reason" /tmp/err
fi

if [ "$feature" = 1 ]; then
	fio_run "${policy/read_fixed/read}"
	rc=$?
	[ "$rc" != 0 ] && grep -q 'Permission denied' /tmp/err
	tap $? "uring-restrict: a policy without read_fixed makes fio's reads fail (-EACCES)" /tmp/err
else
	echo "ok $((n += 1)) - uring-restrict: denied reads # SKIP baseline has no ring restrictions"
fi

rm -f /tmp/ran
"$wrap" -p 'sqe_op=read_fixed;sqe_flags_required=fixed_filez' -- touch /tmp/ran 2>/tmp/err
rc=$?
[ "$rc" = 2 ] && [ ! -e /tmp/ran ] && grep -q "'fixed_filez' is not a known SQE flag" /tmp/err
tap $? "uring-restrict: a bad policy stops before the program runs, naming the mistake" /tmp/err
