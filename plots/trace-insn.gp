# plots/trace-insn.gp: where the restriction check's instructions run, per
# kernel function, counted by the insn-count QEMU plugin (data = a
# trace-insn-CELL.dat of uringlab/trace_summary.py): left, each kernel's
# restricted ring (a filter cell's filtered one) minus its unrestricted one;
# right, each kernel's unrestricted ring over baseline's (baseline is the
# zero line), when the cell has it. Every comparison the cell has gets its
# bar, zero included, and every bar its value.
# Called by draw.sh with: data, out, term, style, cell, unit, sub.
set terminal @term
# the first line holds the titles, for every plot of the file
set key autotitle columnhead
set output out
load style
# the titles: the checks first, then the columns over baseline
hdr = system("head -1 ".data)
nc = words(hdr) - 1
nb = sum [i=2:nc + 1] (strstrt(word(hdr, i), 'baseline') > 0)
nl = nc - nb
set multiplot layout 1,(nb ? 2 : 1) title "insn-count plugin: guest instructions per op by function, ".cell."\n".sub noenhanced
set style fill solid 0.85 border -1
set xtics rotate by -40 scale 0 noenhanced font ",9"
set grid ytics
set key top right noenhanced
set bmargin 10
set rmargin 10
set xzeroaxis lt -1
# zero always in view: a function can also lose instructions
set yrange [*<0:0<*]
set offsets 0.5, 0.5, graph 0.2, graph 0.2
lab(v) = abs(v) < 0.0005 ? "0" : sprintf("%+.2f", v)
# a label for each sign: above a positive bar, below a negative one
up(v) = v >= 0 ? lab(v) : ""
down(v) = v < 0 ? lab(v) : ""
# bars of columns 2+first .. 1+first+k, a panel's worth
w(k) = 0.8 / k
x(i, k) = $0 - 0.4 + w(k) * (i - 0.5)
t(c) = word(hdr, c)
set ylabel 'instructions per op over the unrestricted ring'
set title (strstrt(hdr, ': filter') ? 'the filter: filtered' : 'the check: restricted').' minus unrestricted ring, same kernel' noenhanced
plot data using 0:(0):xtic(1) with points ps 0 notitle, \
	for [i=1:nl] data using (x(i, nl)):(column(i + 1)):(w(nl) * 0.9) with boxes lc rgb kcol(kname(t(i + 1))) title columnheader(i + 1), \
	for [i=1:nl] '' using (x(i, nl)):(column(i + 1)):(up(column(i + 1))) with labels rotate by 90 left offset 0, 0.3 font ",7" notitle, \
	for [i=1:nl] '' using (x(i, nl)):(column(i + 1)):(down(column(i + 1))) with labels rotate by 90 right offset 0, -0.3 font ",7" notitle
if (!nb) { unset multiplot; exit }
set ylabel "instructions per op over baseline (unrestricted rings)"
set title "unrestricted ring over baseline's (baseline = 0)" noenhanced
plot data using 0:(0):xtic(1) with points ps 0 notitle, \
	for [i=1:nb] data using (x(i, nb)):(column(nl + i + 1)):(w(nb) * 0.9) with boxes lc rgb kcol(kname(t(nl + i + 1))) title columnheader(nl + i + 1), \
	for [i=1:nb] '' using (x(i, nb)):(column(nl + i + 1)):(up(column(nl + i + 1))) with labels rotate by 90 left offset 0, 0.3 font ",7" notitle, \
	for [i=1:nb] '' using (x(i, nb)):(column(nl + i + 1)):(down(column(nl + i + 1))) with labels rotate by 90 right offset 0, -0.3 font ",7" notitle
unset multiplot
