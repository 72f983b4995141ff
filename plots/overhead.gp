# plots/overhead.gp: what the restriction check costs a NOP against the
# batch size: left, the overhead in per cent; right, the extra cost per
# SQE (instructions under icount, else ns). Called by plots/draw.sh.
set terminal @term
set output out
set multiplot layout 1,2 title "Restriction check cost per NOP SQE against batch size (medians)\n".sub noenhanced
set logscale x 2
set xlabel 'SQEs per io\_uring\_enter'
set grid
set key below noenhanced
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set xrange [0.7:180]
set ylabel 'overhead (%)'
plot data.'/batch.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'patched: restricted vs unrestricted', \
	'' using 1:3 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'upstream: restricted vs unrestricted', \
	'' using 1:4 with linespoints lw 2 pt 9 lc rgb '#7f7f7f' title 'patched vs baseline, unrestricted'
set ylabel 'extra '.unit.' per SQE' noenhanced
plot data.'/batch.dat' using 1:5 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'patched: restricted vs unrestricted', \
	'' using 1:6 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'upstream: restricted vs unrestricted', \
	'' using 1:7 with linespoints lw 2 pt 9 lc rgb '#7f7f7f' title 'patched vs baseline, unrestricted'
unset multiplot
