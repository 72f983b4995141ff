# plots/fio-lat.gp: fio completion latency percentiles of one job, for the
# three kernels x two rings (medians over repetitions), wall clock only:
# under icount a clat is instructions, and draw.sh draws none. fio's
# overflow bucket is left out (uringlab/bench_plotdata.py): a gap.
# Called by plots/draw.sh once per job with: data (file), out, term,
# style, job, sub.
set terminal @term
set output out
load style
set title 'fio '.job.': completion latency percentiles (median of repetitions)'."\n".sub noenhanced
set ylabel 'clat (us)' noenhanced
set xlabel 'percentile'
set logscale y
set grid
set key outside right top noenhanced
set style data linespoints
plot data using 0:2:xtic(1) lw 2 pt kpt('baseline') lc rgb kcol('baseline') title 'baseline', \
	'' using 0:4 lw 2 pt kpt('patched') lc rgb kcol('patched') title 'patched', \
	'' using 0:5 lw 2 pt kptopen('patched') dt 2 lc rgb kcol('patched') title 'patched, restricted', \
	'' using 0:6 lw 2 pt kpt('upstream') lc rgb kcol('upstream') title 'upstream', \
	'' using 0:7 lw 2 pt kptopen('upstream') dt 2 lc rgb kcol('upstream') title 'upstream, restricted'
