# plots/overhead.gp: what the restriction check costs a NOP against the
# batch size: left, the overhead in per cent with its 95 % interval; right,
# the extra cost per SQE (instructions under icount, else ns). Zero and
# negative results are results: the y axes span every point. Called by
# plots/draw.sh with: data (folder), out, term, unit, sub, ci.
set terminal @term
set output out
set multiplot layout 1,2 title "Restriction check cost per NOP SQE against batch size (bars: 95 % interval, ".ci.")\n".sub noenhanced
set logscale x 2
set xlabel 'SQEs per io\_uring\_enter'
set grid
set key below noenhanced
set xzeroaxis lt -1 lw 1
set offsets 0, 0, graph 0.12, graph 0.12
set xrange [0.7:180]
lab(v) = abs(v) < 0.005 ? "0.00" : sprintf("%+.2f", v)
f = data.'/batch.dat'
set ylabel 'per-op cost (%)'
# the intervals apart from the lines: a point without one still shows
plot f using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'patched: restricted vs unrestricted', \
	'' using 1:6 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'upstream: restricted vs unrestricted', \
	'' using 1:10 with linespoints lw 2 pt 9 lc rgb '#7f7f7f' title 'patched vs baseline, unrestricted', \
	'' using 1:3:(0):($4-$3) with vectors heads size screen 0.006,90 lw 1.5 lc rgb '#1f77b4' notitle, \
	'' using 1:7:(0):($8-$7) with vectors heads size screen 0.006,90 lw 1.5 lc rgb '#d62728' notitle, \
	'' using 1:11:(0):($12-$11) with vectors heads size screen 0.006,90 lw 1.5 lc rgb '#7f7f7f' notitle, \
	'' using 1:2:(lab($2)) with labels offset 0, 1 font ",8" tc rgb '#1f77b4' notitle, \
	'' using 1:6:(lab($6)) with labels offset 0, 1 font ",8" tc rgb '#d62728' notitle, \
	'' using 1:10:(lab($10)) with labels offset 0, -1 font ",8" tc rgb '#7f7f7f' notitle
set ylabel 'extra '.unit.' per SQE' noenhanced
plot f using 1:5 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'patched: restricted vs unrestricted', \
	'' using 1:9 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'upstream: restricted vs unrestricted', \
	'' using 1:13 with linespoints lw 2 pt 9 lc rgb '#7f7f7f' title 'patched vs baseline, unrestricted', \
	'' using 1:5:(lab($5)) with labels offset 0, 1 font ",8" tc rgb '#1f77b4' notitle, \
	'' using 1:9:(lab($9)) with labels offset 0, 1 font ",8" tc rgb '#d62728' notitle, \
	'' using 1:13:(lab($13)) with labels offset 0, -1 font ",8" tc rgb '#7f7f7f' notitle
unset multiplot
