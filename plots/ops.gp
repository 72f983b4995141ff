# plots/ops.gp: ops/s per workload cell for the three kernels x two rings,
# median of the repetitions with the slowest and fastest as error bars.
# Called by plots/draw.sh with: data (folder), out (file), term, metric.
set terminal @term
set output out
set title "io_uring submission throughput per cell (median; bars: slowest..fastest repetition)\n".sub noenhanced
set ylabel metric noenhanced
set logscale y
set grid ytics
set key inside top right vertical noenhanced box opaque
set style data histogram
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -30 noenhanced
set bars front
plot data.'/ops.dat' \
	using 2:3:4:xtic(1) title 'baseline' lc rgb '#7f7f7f', \
	'' using 5:6:7 title 'baseline, restricted (absent)' lc rgb '#c7c7c7', \
	'' using 8:9:10 title 'patched' lc rgb '#1f77b4', \
	'' using 11:12:13 title 'patched, restricted' lc rgb '#aec7e8', \
	'' using 14:15:16 title 'upstream' lc rgb '#d62728', \
	'' using 17:18:19 title 'upstream, restricted' lc rgb '#ff9896'
