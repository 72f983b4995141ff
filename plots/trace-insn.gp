# plots/trace-insn.gp: where the restriction check's instructions run, per
# kernel function, counted by the insn-count QEMU plugin (data = a
# trace-insn-CELL.dat of uringlab/trace_summary.py): left, each kernel's
# restricted ring minus its unrestricted one (the check); right, each
# kernel's unrestricted ring minus baseline's (baseline is the zero line).
# Every kernel has its bar, zero included, and every bar its value.
# Called by draw.sh with: data, out, term, cell, unit, sub.
set terminal @term
# the first line holds the titles, for every plot of the file
set key autotitle columnhead
set output out
set multiplot layout 1,2 title "insn-count plugin: guest instructions per op by function, ".cell."\n".sub noenhanced
set style fill solid 0.85 border -1
set xtics rotate by -30 scale 0 noenhanced font ",9"
set grid ytics
set key top right noenhanced
set bmargin 8
set rmargin 8
set xzeroaxis lt -1
# zero always in view: a function can also lose instructions
set yrange [*<0:0<*]
set offsets 0.5, 0.5, graph 0.15, graph 0.15
lab(v) = abs(v) < 0.0005 ? "0" : sprintf("%+.2f", v)
# a label for each sign: above a positive bar, below a negative one
up(v) = v >= 0 ? lab(v) : ""
down(v) = v < 0 ? lab(v) : ""
# columns from the first data row: the header's titles hold spaces
nc = int(system("awk 'NR == 2 { print NF; exit }' ".data))
# columns 2.. : first half the check per kernel, second half over baseline
nk = (nc - 1) / 2
w = 0.8 / nk
x(i) = $0 - 0.4 + w * (i - 0.5)
set ylabel 'instructions per op (restricted - unrestricted)'
set title 'the check: restricted minus unrestricted ring, same kernel' noenhanced
plot data using 0:(0):xtic(1) with points ps 0 notitle, \
	for [i=1:nk] data using (x(i)):(column(i + 1)):(w * 0.9) with boxes lc i title columnheader(i + 1), \
	for [i=1:nk] '' using (x(i)):(column(i + 1)):(up(column(i + 1))) with labels rotate by 90 left offset 0, 0.3 font ",7" notitle, \
	for [i=1:nk] '' using (x(i)):(column(i + 1)):(down(column(i + 1))) with labels rotate by 90 right offset 0, -0.3 font ",7" notitle
set ylabel "instructions per op over baseline (unrestricted rings)"
set title "unrestricted ring over baseline's (baseline = 0)" noenhanced
plot data using 0:(0):xtic(1) with points ps 0 notitle, \
	for [i=1:nk] data using (x(i)):(column(nk + i + 1)):(w * 0.9) with boxes lc i title columnheader(nk + i + 1), \
	for [i=1:nk] '' using (x(i)):(column(nk + i + 1)):(up(column(nk + i + 1))) with labels rotate by 90 left offset 0, 0.3 font ",7" notitle, \
	for [i=1:nk] '' using (x(i)):(column(nk + i + 1)):(down(column(nk + i + 1))) with labels rotate by 90 right offset 0, -0.3 font ",7" notitle
unset multiplot
