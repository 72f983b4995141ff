#!/bin/bash
# plots/draw.sh [RUN]: draw a run's pictures, PNG and SVG, into RUN/plots/
# from the data uringlab/bench_summary.py (make bench) and uringlab/trace_summary.py
# (make trace) left in RUN/plots/data/.
# RUN defaults to results/latest.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
run=${1:-$here/../results/latest}
[ -d "$run/plots/data" ] || { echo "plots: no plot data in $run (make report RUN=$run)" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "plots: gnuplot missing (apt-get install gnuplot-nox)" >&2; exit 1; }
data=$run/plots/data
# the metric follows the accelerator: instructions under icount
icount=0
if grep -q '^accel=tcg-icount' "$run/env/host.env" 2>/dev/null; then
	icount=1
	metric='ops per virtual second (icount: 1e9 / instructions per op)'
	unit=instructions
else
	metric='ops/s'
	unit=ns
fi
# every picture names what produced its figures
env=$run/env/host.env
accel=$(sed -n 's/^accel=//p' "$env")
sub="$accel, QEMU $(sed -n 's/^qemu=\([^ ]*\).*/\1/p' "$env"), $(sed -n 's/^tree=linux-source-6.1 //p' "$env") kernels, $(basename "$(cd "$run" && pwd -P)")"
# make trace boots perf without icount (tracing/run.sh): its pictures name
# the accelerator its boots recorded, host.env's perf_accel in older runs
perf_accel=$(cat "$run"/env/*-perf.boot.env "$run"/env/*.perf-boot.env 2>/dev/null |
	sed -n 's/^accel=//p' | sort -u | paste -sd/ -) || true
perf_accel=${perf_accel:-$(sed -n 's/^perf_accel=//p' "$env")}
perf_sub="${perf_accel:-accelerator not recorded} for the perf boots${sub#"$accel"}"
# how a comparison's interval was made (uringlab/bench_summary.py)
ci=$(python3 -c 'import csv, sys
m = {r["ci_method"] for r in csv.DictReader(open(sys.argv[1]))}
print(m.pop() if len(m) == 1 else "per comparison, see REPORT.md")' "$run/overhead.csv" 2>/dev/null || true)
ci=${ci:-bootstrap over repetitions}
# gnuplot warns about the absent cells (baseline has no restricted ring)
gnuplot() { command gnuplot "$@" 2>&1 | { grep -vE 'no valid points|empty y range' >&2 || true; }; }
# gnuplot reads 'term' as a string; the scripts say 'set terminal @term'.
# Every script loads style.gp (a kernel's colour); a picture of one data
# file gets data='FILE' after these, and a trace picture its own sub.
# n counts the pictures drawn, failed the others.
n=0 failed=0
draw() { # script output-base size extra-gnuplot-settings...
	local gp=$1 base=$2 size=$3
	shift 3
	local vars="data='$data'; style='$here/style.gp'; metric='$metric'; unit='$unit'; sub='$sub'; ci='$ci'"
	if gnuplot -e "$vars; out='$base.png'; term='pngcairo size $size font \"sans,10\"'" "$@" "$here/$gp" &&
		gnuplot -e "$vars; out='$base.svg'; term='svg size $size dynamic font \"sans,10\"'" "$@" "$here/$gp"; then
		n=$((n + 1))
	else
		echo "plots: $(basename "$base") not drawn" >&2
		failed=$((failed + 1))
	fi
}
rows() { [ -f "$1" ] && [ "$(grep -vc '^#' "$1")" -gt 0 ]; }
rm -f "$run/plots/ops.png" "$run/plots/ops.svg"  # before throughput.png
# a picture whose data the summary no longer writes (checks of cells not
# measured, fio's latencies under icount) would outlive it
for p in "$run"/plots/fio-*.png "$run"/plots/fio-*.svg "$run"/plots/checks.png "$run"/plots/checks.svg; do
	b=$(basename "${p%.*}")
	if [ ! -e "$data/$b.dat" ] || { [ "$icount" = 1 ] && [ "$b" != fio-iops ]; }; then
		rm -f "$p"
	fi
done
if rows "$data/checks.dat"; then
	draw checks.gp "$run/plots/checks" 1300,600
fi
if rows "$data/throughput.dat"; then
	# the bottom panel only when the run measured baseline (column 8)
	has_base=$(awk -F'"' '!/^#/ { split($3, f, " "); if (f[7] != "?") n++ } END { print n ? 1 : 0 }' \
		"$data/throughput.dat")
	draw throughput.gp "$run/plots/throughput" "1200,$([ "$has_base" = 1 ] && echo 870 || echo 500)" \
		-e "has_base=$has_base"
fi
if rows "$data/batch.dat"; then
	draw overhead.gp "$run/plots/overhead" 1100,550
fi
if rows "$data/fio-iops.dat"; then
	draw fio-iops.gp "$run/plots/fio-iops" 1000,560 -e "data='$data/fio-iops.dat'"
fi
# latency percentiles in wall-clock time only: under icount a clat counts
# the instructions between two clock reads (bench_plotdata.py writes no
# data then; an older run's data folder may still hold some)
for f in "$data"/fio-*.dat; do
	[ -e "$f" ] && [ "$icount" = 0 ] || continue
	job=$(basename "$f" .dat)
	job=${job#fio-}
	[ "$job" != iops ] || continue
	draw fio-lat.gp "$run/plots/fio-$job" 800,450 -e "data='$f'; job='$job'"
done
# make trace: one picture per workload and tool
for f in "$data"/trace-perf-*.dat "$data"/trace-insn-*.dat "$data"/trace-sqe-hist.dat; do
	[ -e "$f" ] || continue
	base=$(basename "$f" .dat)
	cell=${base#trace-perf-}
	cell=${cell#trace-insn-}
	s=$sub
	case $base in
	trace-perf-*) gp=trace-shares.gp s=$perf_sub ;;
	trace-insn-*) gp=trace-insn.gp ;;
	*) gp=trace-hist.gp ;;
	esac
	size=1000,560
	[ "$gp" = trace-insn.gp ] && size=1300,620  # two panels
	draw "$gp" "$run/plots/$base" "$size" -e "data='$f'; cell='$cell'; sub='$s'"
done
echo "[plots] $n pictures (PNG and SVG) in $run/plots"
[ "$failed" = 0 ] || { echo "plots: $failed pictures failed" >&2; exit 1; }
