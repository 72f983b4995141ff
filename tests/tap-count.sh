# tests/tap-count.sh, sourced: count NAME TAPFILE RC adds a TAP stream's
# verdicts to $passed and $failed and a line to $summary; a stream that
# did not finish (fewer verdicts than its plans) counts what is missing as
# failed.
passed=0 failed=0 summary=()

# count NAME TAPFILE RC: add a TAP stream's verdicts to the totals
count() {
	local name=$1 tap=$2 rc=$3 p f plan note=
	p=$(grep -c '^ok ' "$tap")
	f=$(grep -c '^not ok ' "$tap")
	# one or more TAP streams: the plans add up
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tap" | awk '{ s += $1 } END { if (NR) print s }')
	if [ -z "$plan" ] || [ $((p + f)) -ne "$plan" ]; then
		# a crash or failed boot: whatever did not report counts as failed
		f=$((${plan:-0} - p))
		[ "$f" -gt 0 ] || f=1
		note=" (did not finish: status $rc)"
	elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
		f=1
		note=" (exit status $rc)"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	summary+=("$(printf '%-9s %3d passed, %d failed%s' "$name:" "$p" "$f" "$note")")
}
