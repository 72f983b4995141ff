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
if grep -q '^accel=tcg-icount' "$run/env/host.env" 2>/dev/null; then
	metric='ops per virtual second (icount: 1e9 / instructions per op)'
	unit=instructions
	lat_unit='thousand instructions (icount)'
else
	metric='ops/s'
	unit=ns
	lat_unit=us
fi
# every picture names what produced its figures
env=$run/env/host.env
sub="$(sed -n 's/^accel=//p' "$env"), QEMU $(sed -n 's/^qemu=\([^ ]*\).*/\1/p' "$env"), $(sed -n 's/^tree=linux-source-6.1 //p' "$env") kernels, $(basename "$(cd "$run" && pwd)")"
# how a comparison's interval was made (uringlab/bench_summary.py)
ci=$(python3 -c 'import csv, sys
m = {r["ci_method"] for r in csv.DictReader(open(sys.argv[1]))}
print(m.pop() if len(m) == 1 else "per comparison, see REPORT.md")' "$run/overhead.csv" 2>/dev/null || true)
ci=${ci:-bootstrap over repetitions}
# gnuplot warns about the absent cells (baseline has no restricted ring)
gnuplot() { command gnuplot "$@" 2>&1 | grep -vE 'no valid points|empty y range' >&2 || true; }
draw() { # script output-base size extra-gnuplot-settings...
	local gp=$1 base=$2 size=$3
	shift 3
	gnuplot -e "data='$data'; out='$base.png'; term='pngcairo size $size font \"sans,10\"'; metric='$metric'; unit='$unit'; sub='$sub'; ci='$ci'" "$@" "$here/$gp"
	gnuplot -e "data='$data'; out='$base.svg'; term='svg size $size dynamic font \"sans,10\"'; metric='$metric'; unit='$unit'; sub='$sub'; ci='$ci'" "$@" "$here/$gp"
}
# gnuplot reads 'term' as a string; the scripts say 'set terminal @term'
n=0
rm -f "$run/plots/ops.png" "$run/plots/ops.svg"  # before throughput.png
if [ -f "$data/throughput.dat" ] && [ "$(grep -vc '^#' "$data/throughput.dat")" -gt 0 ]; then
	# the bottom panel only when the run measured baseline (column 8)
	has_base=$(awk -F'"' '!/^#/ { split($3, f, " "); if (f[7] != "?") n++ } END { print n ? 1 : 0 }' \
		"$data/throughput.dat")
	draw throughput.gp "$run/plots/throughput" "1200,$([ "$has_base" = 1 ] && echo 850 || echo 480)" \
		-e "has_base=$has_base"
	n=$((n + 1))
fi
if [ -f "$data/batch.dat" ] && [ "$(grep -vc '^#' "$data/batch.dat")" -gt 0 ]; then
	draw overhead.gp "$run/plots/overhead" 1100,550
	n=$((n + 1))
fi
for f in "$data"/fio-*.dat; do
	[ -e "$f" ] || continue
	job=$(basename "$f" .dat)
	job=${job#fio-}
	gnuplot -e "data='$f'; out='$run/plots/fio-$job.png'; term='pngcairo size 800,450 font \"sans,10\"'; job='$job'; unit='$lat_unit'; sub='$sub'" "$here/fio-lat.gp"
	gnuplot -e "data='$f'; out='$run/plots/fio-$job.svg'; term='svg size 800,450 dynamic font \"sans,10\"'; job='$job'; unit='$lat_unit'; sub='$sub'" "$here/fio-lat.gp"
	n=$((n + 1))
done
# make trace: one picture per workload and tool
for f in "$data"/trace-perf-*.dat "$data"/trace-insn-*.dat "$data"/trace-sqe-hist.dat; do
	[ -e "$f" ] || continue
	base=$(basename "$f" .dat)
	cell=${base#trace-perf-}
	cell=${cell#trace-insn-}
	case $base in
	trace-perf-*) gp=trace-shares.gp ;;
	trace-insn-*) gp=trace-insn.gp ;;
	*) gp=trace-hist.gp ;;
	esac
	size=1000,550
	[ "$gp" = trace-insn.gp ] && size=1300,600  # two panels
	for t in "png:pngcairo size $size font \"sans,10\"" "svg:svg size $size dynamic font \"sans,10\""; do
		gnuplot -e "data='$f'; out='$run/plots/$base.${t%%:*}'; term='${t#*:}'; cell='$cell'; unit='$unit'; sub='$sub'" "$here/$gp"
	done
	n=$((n + 1))
done
echo "[plots] $n pictures (PNG and SVG) in $run/plots"
