# plots/overhead.gp: what the restriction check costs a NOP against the
# batch size: left, the overhead in per cent with its 95 % interval; right,
# the extra cost per SQE (instructions under icount, else ns). Zero and
# negative results are results: the y axes span every point. Called by
# plots/draw.sh with: data (folder), out, term, style, unit, sub, ci.
set terminal @term
set output out
load style
set multiplot layout 1,2 title "Restriction check cost per NOP SQE against batch size (bars: 95 % interval, ".ci.")\n".sub noenhanced
set logscale x 2
set xlabel 'SQEs per io\_uring\_enter'
set grid
set key below noenhanced
set xzeroaxis lt -1 lw 1
set offsets 0, 0, graph 0.12, graph 0.12
set xrange [0.7:180]
lab(v) = abs(v) < 0.005 ? "0.00" : sprintf("%+.2f", v)
# the three series (patched, upstream, patched vs baseline) at one batch
# can lie close: the highest is labelled above its point, the lowest
# below, the middle one on the side of the wider gap
# the third series is patched's too (against baseline): its colour, dashed
ks = 'patched upstream patched'
col(cs, i) = int(word(cs, i))
v(cs, i) = column(col(cs, i))
o(cs, i, j) = col(cs, (i + j - 1) % 3 + 1)
ge(x, c) = !valid(c) || x >= column(c)
le(x, c) = !valid(c) || x <= column(c)
mx(a, b) = a > b ? a : b
mn(a, b) = a < b ? a : b
gap(cs, i) = mx(column(o(cs, i, 1)), column(o(cs, i, 2))) - v(cs, i) > v(cs, i) - mn(column(o(cs, i, 1)), column(o(cs, i, 2)))
pos(cs, i) = ge(v(cs, i), o(cs, i, 1)) && ge(v(cs, i), o(cs, i, 2)) ? 1 : \
	le(v(cs, i), o(cs, i, 1)) && le(v(cs, i), o(cs, i, 2)) ? -1 : (gap(cs, i) ? 1 : -1)
at(cs, i, p) = pos(cs, i) == p ? lab(v(cs, i)) : ""
f = data.'/batch.dat'
set ylabel 'per-op cost (%)'
# the intervals apart from the lines: a point without one still shows
c = '2 6 10'
plot f using 1:2 with linespoints lw 2 pt kpt('patched') lc rgb kcol('patched') title 'patched: restricted vs unrestricted', \
	'' using 1:6 with linespoints lw 2 pt kpt('upstream') lc rgb kcol('upstream') title 'upstream: restricted vs unrestricted', \
	'' using 1:10 with linespoints lw 2 dt 2 pt kptopen('patched') lc rgb kcol('patched') title 'patched vs baseline, unrestricted', \
	'' using 1:3:(0):($4-$3) with vectors heads size screen 0.006,90 lw 1.5 lc rgb kcol('patched') notitle, \
	'' using 1:7:(0):($8-$7) with vectors heads size screen 0.006,90 lw 1.5 lc rgb kcol('upstream') notitle, \
	'' using 1:11:(0):($12-$11) with vectors heads size screen 0.006,90 lw 1.5 lc rgb kcol('patched') notitle, \
	for [i=1:3] '' using 1:col(c, i):(at(c, i, 1)) with labels offset 0, 1 font ",8" tc rgb kcol(word(ks, i)) notitle, \
	for [i=1:3] '' using 1:col(c, i):(at(c, i, -1)) with labels offset 0, -1 font ",8" tc rgb kcol(word(ks, i)) notitle
set ylabel 'extra '.unit.' per SQE' noenhanced
c = '5 9 13'
plot f using 1:5 with linespoints lw 2 pt kpt('patched') lc rgb kcol('patched') title 'patched: restricted vs unrestricted', \
	'' using 1:9 with linespoints lw 2 pt kpt('upstream') lc rgb kcol('upstream') title 'upstream: restricted vs unrestricted', \
	'' using 1:13 with linespoints lw 2 dt 2 pt kptopen('patched') lc rgb kcol('patched') title 'patched vs baseline, unrestricted', \
	for [i=1:3] '' using 1:col(c, i):(at(c, i, 1)) with labels offset 0, 1 font ",8" tc rgb kcol(word(ks, i)) notitle, \
	for [i=1:3] '' using 1:col(c, i):(at(c, i, -1)) with labels offset 0, -1 font ",8" tc rgb kcol(word(ks, i)) notitle
unset multiplot
