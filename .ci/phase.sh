#!/bin/bash
# .ci/phase.sh: time the phases of a CI run (or of any make target run under
# it) into one file, and print them as a table.
#   phase.sh start             start a new phase file (LAB_PHASES)
#   phase.sh run NAME CMD...   run CMD, record NAME with its start, length
#                              and status, exit with CMD's status
#   phase.sh add NAME START END STATUS [NOTE]
#                              record a phase timed elsewhere (epoch seconds)
#   phase.sh table [FILE]      print FILE (default LAB_PHASES, else
#                              build/ci-phases.tsv) as a table
# Nothing is recorded unless LAB_PHASES names the file: .ci/run sets it,
# and every script that times a phase of its own (a kernel build, a test
# boot) calls `add` through here. Phases may overlap (a kernel built in
# the background while guests run): the table gives each one's start, so
# the total is the wall clock of the run, not the sum of the rows.
set -uo pipefail

now() { date +%s; }

cmd=${1:-}
shift || true
case $cmd in
start)
	[ -n "${LAB_PHASES:-}" ] || exit 0
	mkdir -p "$(dirname "$LAB_PHASES")"
	printf '#start\t%s\n' "$(now)" >"$LAB_PHASES"
	;;
run)
	name=$1
	shift
	t0=$(now)
	"$@"
	rc=$?
	if [ -n "${LAB_PHASES:-}" ]; then
		st=ok
		[ "$rc" = 0 ] || st="failed ($rc)"
		printf '%s\t%s\t%s\t%s\t\n' "$name" "$t0" "$(now)" "$st" >>"$LAB_PHASES"
	fi
	exit $rc
	;;
add)
	[ -n "${LAB_PHASES:-}" ] || exit 0
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" >>"$LAB_PHASES"
	;;
table)
	file=${1:-${LAB_PHASES:-$(cd "$(dirname "$0")/.." && pwd)/build/ci-phases.tsv}}
	[ -f "$file" ] || { echo "phase.sh: no phase file $file (written by .ci/run)" >&2; exit 1; }
	# rows by start: phases that overlapped sit side by side
	{ grep '^#start' "$file"; grep -v '^#' "$file" | sort -s -t"$(printf '\t')" -k2,2n; } | awk -F'\t' '
	/^#start/ { s = $2; next }
	{
		if (s == "" || $2 < s) s = $2
		n++; name[n] = $1; b[n] = $2 - s; d[n] = $3 - $2; st[n] = $4; note[n] = $5
		if ($3 > e) e = $3
	}
	function mmss(x) { return sprintf("%d:%02d", x / 60, x % 60) }
	END {
		printf "%-44s %7s %7s %6s  %s\n", "phase", "start", "took", "secs", "status"
		for (i = 1; i <= n; i++)
			printf "%-44s %7s %7s %6d  %s%s\n", name[i], mmss(b[i]), mmss(d[i]), d[i], st[i],
				note[i] == "" ? "" : "  (" note[i] ")"
		printf "%-44s %7s %7s %6d\n", "total, wall clock", "", mmss(e - s), e - s
	}'
	;;
*)
	sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
	exit 2
	;;
esac
