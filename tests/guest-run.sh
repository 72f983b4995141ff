#!/bin/bash
# Inside the guest: run the restriction tests and the benchmark smoke
# tests against the running kernel, TAP streams one after the other, each
# followed by how long it took (the sanitizer kernel's boot is the last
# step of CI: its suites' times say where that time goes). SUITES
# (default: all) names the suites to run, for a quicker look at one.
# Usage: guest-run.sh KERNEL BIN [DIFF_SEED DIFF_POLICIES STRESS_SECONDS SUITES]
# Environment: FILTER_DIFF_SEED, FILTER_DIFF_CASES (the filter-diff suite's
# stream and cases; tests/run.sh passes them).
# The binaries run from tmpfs so nothing they do waits on the 9p share.
set -u
kernel=$1
# NAME-debug: NAME's kernel with sanitizers, expected to answer as NAME
kind=${kernel%-debug}
bin=$2
diff_seed=${3:-1}
diff_policies=${4:-10000}
stress_seconds=${5:-10}
all="restrictions bypass stress drain filters filter-diff task smoke policy diff"
here=$(cd "$(dirname "$0")" && pwd)
bindir=$(dirname "$bin")
leaks=/sys/kernel/debug/kmemleak
suites=" ${6:-$all} "
for s in $suites; do
	case " $all " in *" $s "*) ;; *) echo "guest-run.sh: no suite '$s' (suites: $all)" >&2; exit 2 ;; esac
done
rc=0
echo "# kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource), suites:$suites"
# a sanitizer kernel: what boot left unreferenced is not the tests' doing
if [ -w "$leaks" ]; then
	echo scan >"$leaks"
	echo clear >"$leaks"
fi

# suite NAME TITLE COMMAND...: run one suite if this boot has it
suite() {
	local name=$1 title=$2 t0=$SECONDS
	shift 2
	case $suites in *" $name "*) ;; *) return 0 ;; esac
	echo "# $title"
	(cd /tmp && "$@") || rc=1
	echo "# $name: $((SECONDS - t0)) s"
}
cp "$bin" /tmp/restrictions
for b in restrict-bypass restrict-stress drain-order bpf-filter bpf-fold-diff task-restrict \
	restrict-diff; do
	cp "$bindir/$b" "/tmp/$b"
done
suite restrictions "restrictions: the ABI on $kind" \
	/tmp/restrictions --kernel "$kind"
suite bypass "bypass attempts: links, io-wq, SQPOLL, ring fds, personalities, MSG_RING, fork" \
	env LAB_KERNEL="$kind" ./restrict-bypass
suite stress "concurrency: threads racing registration, enable and submission" \
	env LAB_KERNEL="$kind" STRESS_SECONDS="$stress_seconds" ./restrict-stress
suite drain "IOSQE_IO_DRAIN with failures after the drain (patch 0010)" \
	env LAB_KERNEL="$kind" ./drain-order
suite filters "IORING_REGISTER_BPF_FILTER: classic BPF filters per ring and per task" \
	env LAB_KERNEL="$kind" ./bpf-filter
suite filter-diff "BPF filters' verdicts against libpcap's bpf_filter(), seed ${FILTER_DIFF_SEED:-1}" \
	env LAB_KERNEL="$kind" ./bpf-fold-diff -s "${FILTER_DIFF_SEED:-1}" -n "${FILTER_DIFF_CASES:-1000}"
suite task "IORING_REGISTER_RESTRICTIONS without a ring: a task's allow-lists" \
	env LAB_KERNEL="$kind" ./task-restrict
suite smoke "benchmark smoke tests" \
	"$here/bench-smoke.sh" "$kind"
# the recorder's round trip on one program of each kind; production
# kernels only: it is bpftrace's and the wrapper's test, not the kernel's
if [ "$kernel" = "$kind" ]; then
	. "$here/policy-workloads.sh" 2>/dev/null
	suite policy "least policies: record, restrict, rerun, drop one entry ($policy_short)" \
		"$here/policy-roundtrip.sh" "$kind" "$bindir/../vm/policy-$kernel" $policy_short
fi
# the differential test's answers, compared by tests/run.sh between the
# kernels that have restrictions (baseline refuses every policy); a crash
# shows there as missing answers, not here
answers() {
	./restrict-diff -s "$diff_seed" -n "$diff_policies" -k 8 \
		>"$bindir/../vm/diff-$kernel.txt" 2>"$bindir/../vm/diff-$kernel.err"
	return 0
}
[ "$kind" != baseline ] &&
	suite diff "differential: $diff_policies cases, seed $diff_seed (answers compared on the host)" answers
# kmemleak reports an object unreferenced for 5 s in two scans
if [ -w "$leaks" ]; then
	t0=$SECONDS
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
	echo "# kmemleak: $((SECONDS - t0)) s"
fi
exit $rc
