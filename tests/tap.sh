# Sourced by the guest-side test scripts: TAP verdicts, numbered in order.
n=0
# tap VERDICT DESCRIPTION [DIAGNOSTIC-FILE]: VERDICT 0 is ok; a failure
# shows the diagnostic file's last lines as TAP comments
tap() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && sed 's/^/#   /' "$3" | tail -8
	fi
}
