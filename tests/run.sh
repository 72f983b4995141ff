#!/bin/bash
# tests/run.sh KERNEL...: boot each kernel, run the restriction tests in it,
# print one summary per kernel and a last line "N passed, N failed".
# Exit status is non-zero on any failure, a failed boot included.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
bin=$build/tests/restrictions

passed=0 failed=0 summary=()
for kernel in "$@"; do
	out=$build/vm/test-$kernel
	echo "== tests on $kernel"
	KERNEL=$kernel VM_OUT=$out "$lab/vm/run.sh" -- \
		"$here/guest-run.sh" "$kernel" "$bin" | tr -d '\r' | tee "$out.tap"
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^ok ' "$out.tap")
	f=$(grep -c '^not ok ' "$out.tap")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out.tap" | head -1)
	note=
	if [ -z "$plan" ] || [ $((p + f)) -ne "$plan" ]; then
		# a crash or failed boot: whatever did not report counts as failed
		f=$((f + ${plan:-1} - p - f))
		[ "$f" -gt 0 ] || f=1
		note=" (the guest did not finish the suite: status $rc)"
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
		note=" (guest exit status $rc)"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	summary+=("$(printf '%-9s %3d passed, %d failed%s' "$kernel:" "$p" "$f" "$note")")
done

echo "== summary"
printf '%s\n' "${summary[@]}"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
