# plots/fio-lat.gp: fio completion latency percentiles of one job, for the
# three kernels x two rings (medians over repetitions). Called by
# plots/draw.sh once per job with: data (file), out, term, job, unit.
set terminal @term
set output out
set title 'fio '.job.': completion latency percentiles (median of repetitions)'."\n".sub noenhanced
set ylabel 'clat ('.unit.')' noenhanced
set xlabel 'percentile'
set logscale y
set grid
set key outside right top noenhanced
set style data linespoints
plot data using 0:2:xtic(1) lw 2 pt 7 lc rgb '#7f7f7f' title 'baseline', \
	'' using 0:4 lw 2 pt 7 lc rgb '#1f77b4' title 'patched', \
	'' using 0:5 lw 2 pt 6 dt 2 lc rgb '#1f77b4' title 'patched, restricted', \
	'' using 0:6 lw 2 pt 5 lc rgb '#d62728' title 'upstream', \
	'' using 0:7 lw 2 pt 4 dt 2 lc rgb '#d62728' title 'upstream, restricted'
