#!/bin/bash
# Inside the guest: run the restriction tests and the benchmark smoke
# tests against the running kernel; two TAP streams, one after the other.
# The binaries run from tmpfs so nothing they do waits on the 9p share.
set -u
kernel=$1
bin=$2
diff_seed=${3:-1}
diff_policies=${4:-1000}
here=$(cd "$(dirname "$0")" && pwd)
cp "$bin" /tmp/restrictions
echo "# kernel $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
/tmp/restrictions --kernel "$kernel"
rc=$?
echo "# benchmark smoke tests"
"$here/bench-smoke.sh" "$kernel" || rc=1
# the differential test's answers, compared by tests/run.sh between the
# kernels that have restrictions (baseline refuses every policy)
if [ "$kernel" != baseline ]; then
	cp "$(dirname "$bin")/restrict-diff" /tmp/restrict-diff
	/tmp/restrict-diff -s "$diff_seed" -n "$diff_policies" -k 8 \
		>"$(dirname "$bin")/../vm/diff-$kernel.txt" 2>"$(dirname "$bin")/../vm/diff-$kernel.err"
fi
exit $rc
