#!/bin/bash
# tracing/perf-profile.sh OUTDIR NAME -- COMMAND...: inside a lab guest,
# sample COMMAND with perf on the software cpu-clock event (no PMU under
# TCG) and keep, in OUTDIR:
#   NAME.perf.data        the samples, with kernel call chains
#   NAME.symbols.csv      share of samples per symbol (overhead,symbol)
#   NAME.report.txt       perf report, per symbol, with call graphs
#   NAME.annotate.txt     perf annotate of FUNC (default io_submit_sqes,
#                         where the restriction check is inlined)
#   NAME.folded           folded stacks (perf's stackcollapse script), for
#                         flame graphs
# Environment: PERF_FREQ (samples per second, default 20000), FUNC.
# Not under -icount for shares: there the sampling clock counts
# instructions, and on a periodic loop the samples alias (tracing/run.sh).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
lab=$(cd "$here/.." && pwd)
build=${BUILD:-$lab/build}
[ $# -ge 4 ] && [ "$3" = -- ] || { echo "usage: $0 OUTDIR NAME -- COMMAND..." >&2; exit 2; }
out=$1 name=$2
shift 3
freq=${PERF_FREQ:-20000}
func=${FUNC:-io_submit_sqes}
die() { echo "perf-profile: $name: $*" >&2; exit 1; }

kernel=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^lab\.kernel=//p')
vmlinux=$build/out/$kernel/vmlinux
[ -f "$vmlinux" ] || die "no vmlinux for '$kernel' at $vmlinux (perf annotate needs it)"
command -v perf >/dev/null || die "perf missing (make deps-tools)"
mkdir -p "$out"
# the kernel lowers this on its own when sampling interrupts run long
echo $((freq * 2)) >/proc/sys/kernel/perf_event_max_sample_rate
echo 0 >/proc/sys/kernel/kptr_restrict
echo -1 >/proc/sys/kernel/perf_event_paranoid

data=$out/$name.perf.data
perf record -q -e cpu-clock -F "$freq" -g -o "$data.tmp" -- "$@" \
	>"$out/$name.cmd.out" 2>"$out/$name.perf.err" || {
	sed 's/^/  | /' "$out/$name.perf.err" | tail -n 10 >&2
	die "perf record failed"
}
mv "$data.tmp" "$data"
perf report -i "$data" --stdio --no-children --sort sym -g none -t ';' \
	--vmlinux "$vmlinux" 2>>"$out/$name.perf.err" |
	awk -F';' '/^ *[0-9.]+%/ { gsub(/^ +| +$/, "", $1); gsub(/^ +| +$/, "", $2);
		sub(/%$/, "", $1); sub(/^\[[.a-z]\] /, "", $2); print $1 "," $2 }' \
	>"$out/$name.symbols.csv.tmp" && mv "$out/$name.symbols.csv.tmp" "$out/$name.symbols.csv"
perf report -i "$data" --stdio --no-children --sort sym --percent-limit 1 \
	--vmlinux "$vmlinux" >"$out/$name.report.txt" 2>>"$out/$name.perf.err"
perf annotate -i "$data" --stdio --vmlinux "$vmlinux" "$func" \
	>"$out/$name.annotate.txt" 2>>"$out/$name.perf.err"
perf script -i "$data" -s /usr/lib/perf-core/scripts/python/stackcollapse.py \
	>"$out/$name.folded.tmp" 2>>"$out/$name.perf.err" &&
	mv "$out/$name.folded.tmp" "$out/$name.folded"
[ -s "$out/$name.symbols.csv" ] || die "perf report gave no symbols (see $out/$name.perf.err)"
[ -s "$out/$name.annotate.txt" ] || echo "perf-profile: $name: no samples in $func to annotate" >&2
echo "perf-profile: $name: $(grep -c . "$out/$name.symbols.csv") symbols, top: $(head -1 "$out/$name.symbols.csv")"
