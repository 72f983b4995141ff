#!/bin/bash
# tests/check-reference.sh [RUN...]: TAP: each committed reference run
# (default results/reference, results/reference-trace and
# results/reference-policy) describes the
# code in the tree: its host.env records the series and lab.config the
# tree has now, and the run was whole (COMPLETE, no FAILURES, a clean lab
# commit, no kernel marked suspect). The README's and docs' figures come
# from these runs, so a series change without a new reference fails here,
# naming the commands that make one.
# CHECK_REFERENCE_SELFTEST=0 skips the last case: the check run on a copy
# of a reference whose series hash was changed, which must fail.
set -u
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
. "$lab/vm/lib.sh"
[ $# -gt 0 ] || set -- "$lab/results/reference" "$lab/results/reference-trace" "$lab/results/reference-policy"
selftest=${CHECK_REFERENCE_SELFTEST:-1}
echo "1..$((2 * $# + selftest))"
tree=$(source_hashes)
n=0 bad=0

rerun() {
	case $(basename "$1") in
	*trace*) echo "make trace && make reference RUN=results/latest-trace" ;;
	*policy*) echo "make policy && make reference RUN=results/latest-policy" ;;
	*) echo "make bench && make reference RUN=results/latest" ;;
	esac
}

verdict() { # OK DESCRIPTION [WHY...]
	local ok=$1 what=$2
	shift 2
	n=$((n + 1))
	if [ "$ok" = 1 ]; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		bad=$((bad + 1))
		local l
		for l in "$@"; do echo "#   $l"; done
	fi
}

for run in "$@"; do
	name=${run#"$lab"/}
	env=$run/env/host.env
	if [ ! -f "$env" ]; then
		verdict 0 "$name: series and lab.config are the tree's" "no $env" "rerun: $(rerun "$run")"
		verdict 0 "$name: a whole run" "no $env"
		continue
	fi
	diff=$(diff <(grep -E '^(series_[a-z]+|lab_config)=' "$env" | sort) <(echo "$tree" | sort) |
		sed -n 's/^< /reference has /p; s/^> /the tree has /p')
	verdict "$([ -z "$diff" ] && echo 1 || echo 0)" "$name: series and lab.config are the tree's" \
		${diff:+"${diff//$'\n'/; }"} "rerun: $(rerun "$run")"
	why=()
	[ -f "$run/COMPLETE" ] || why+=("no COMPLETE: a killed run")
	[ ! -f "$run/FAILURES" ] || why+=("FAILURES: $(wc -l <"$run/FAILURES") failed steps or boots")
	grep -q '^lab_commit=.*-dirty' "$env" && why+=("measured from a modified tree ($(sed -n 's/^lab_commit=//p' "$env"))")
	grep -q '⚠' "$run/REPORT.md" 2>/dev/null && why+=("REPORT.md marks a kernel suspect (⚠)")
	[ -f "$run/REPORT.md" ] || why+=("no REPORT.md")
	verdict "$([ ${#why[@]} = 0 ] && echo 1 || echo 0)" "$name: a whole run from a clean tree" \
		"${why[@]}" ${why[0]:+"rerun: $(rerun "$run")"}
done

if [ "$selftest" = 1 ]; then
	# the check must be able to fail, and for the right reason: two whole
	# fixtures, one with the tree's hashes (must pass) and one a patch
	# behind it (must fail its first case only, naming the command)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	for f in same behind; do
		mkdir -p "$tmp/$f/env"
		echo "$tree" >"$tmp/$f/env/host.env"
		echo "lab_commit=0000000" >>"$tmp/$f/env/host.env"
		echo "# fixture" >"$tmp/$f/REPORT.md"
		: >"$tmp/$f/COMPLETE"
	done
	sed -i 's/^series_restrictions=.*/series_restrictions=000000000000/' "$tmp/behind/env/host.env"
	same=$(CHECK_REFERENCE_SELFTEST=0 "$0" "$tmp/same")
	same_rc=$?
	behind=$(CHECK_REFERENCE_SELFTEST=0 "$0" "$tmp/behind")
	behind_rc=$?
	verdict "$([ $same_rc = 0 ] && [ $behind_rc != 0 ] && grep -q '^not ok 1 ' <<<"$behind" &&
		grep -q '^ok 2 ' <<<"$behind" && grep -q 'rerun: make bench' <<<"$behind" && echo 1 || echo 0)" \
		"a whole reference passes; one with another series hash fails, naming the command to rerun" \
		"tree's hashes: exit $same_rc: $(tr '\n' ' ' <<<"$same")" \
		"another series: exit $behind_rc: $(tr '\n' ' ' <<<"$behind")"
fi
[ "$bad" = 0 ]
