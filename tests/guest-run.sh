#!/bin/bash
# Inside the guest: run the restriction tests and the benchmark smoke
# tests against the running kernel; two TAP streams, one after the other.
# The binaries run from tmpfs so nothing they do waits on the 9p share.
set -u
kernel=$1
# NAME-debug: NAME's kernel with sanitizers, expected to answer as NAME
kind=${kernel%-debug}
bin=$2
diff_seed=${3:-1}
diff_policies=${4:-10000}
stress_seconds=${5:-10}
here=$(cd "$(dirname "$0")" && pwd)
leaks=/sys/kernel/debug/kmemleak
cp "$bin" /tmp/restrictions
echo "# kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# a sanitizer kernel: what boot left unreferenced is not the tests' doing
if [ -w "$leaks" ]; then
	echo scan >"$leaks"
	echo clear >"$leaks"
fi
/tmp/restrictions --kernel "$kind"
rc=$?
echo "# bypass attempts: links, io-wq, SQPOLL, ring fds, personalities, MSG_RING, fork"
cp "$(dirname "$bin")/restrict-bypass" /tmp/restrict-bypass
(cd /tmp && LAB_KERNEL=$kind ./restrict-bypass) || rc=1
echo "# concurrency: threads racing registration, enable and submission"
cp "$(dirname "$bin")/restrict-stress" /tmp/restrict-stress
(cd /tmp && LAB_KERNEL=$kind STRESS_SECONDS=$stress_seconds ./restrict-stress) || rc=1
echo "# IOSQE_IO_DRAIN with failures after the drain (issue 15, patch 0010)"
cp "$(dirname "$bin")/drain-order" /tmp/drain-order
(cd /tmp && LAB_KERNEL=$kind ./drain-order) || rc=1
echo "# IORING_REGISTER_BPF_FILTER: classic BPF filters per ring and per task (issue 17)"
cp "$(dirname "$bin")/bpf-filter" /tmp/bpf-filter
(cd /tmp && LAB_KERNEL=$kind ./bpf-filter) || rc=1
echo "# IORING_REGISTER_RESTRICTIONS without a ring: a task's allow-lists"
cp "$(dirname "$bin")/task-restrict" /tmp/task-restrict
(cd /tmp && LAB_KERNEL=$kind ./task-restrict) || rc=1
echo "# benchmark smoke tests"
"$here/bench-smoke.sh" "$kind" || rc=1
# the differential test's answers, compared by tests/run.sh between the
# kernels that have restrictions (baseline refuses every policy)
if [ "$kind" != baseline ]; then
	cp "$(dirname "$bin")/restrict-diff" /tmp/restrict-diff
	/tmp/restrict-diff -s "$diff_seed" -n "$diff_policies" -k 8 \
		>"$(dirname "$bin")/../vm/diff-$kernel.txt" 2>"$(dirname "$bin")/../vm/diff-$kernel.err"
fi
# kmemleak reports an object unreferenced for 5 s in two scans
if [ -w "$leaks" ]; then
	sleep 6
	echo scan >"$leaks"
	echo scan >"$leaks"
	echo "1..1"
	if [ -s "$leaks" ]; then
		echo "not ok 1 - kmemleak: objects leaked while the tests ran"
		head -40 "$leaks" | sed 's/^/#   /'
		rc=1
	else
		echo "ok 1 - kmemleak: no object leaked while the tests ran"
	fi
fi
exit $rc
