# plots/trace-shares.gp: perf's share of cpu-clock samples per kernel
# symbol, for each kernel and ring, on one workload (data = a
# trace-perf-CELL.dat of uringlab/trace_summary.py). Every kernel and
# ring the run measured has its bar, zero included, with its value.
# Called by plots/draw.sh with: data, out, term, style, cell, sub (the
# perf boots' own accelerator: make trace boots them without icount).
set terminal @term
# the first line holds the titles, for every plot of the file
set key autotitle columnhead
set output out
load style
set title "perf: share of samples per symbol, ".cell." (software cpu-clock)\n".sub noenhanced
set style fill solid 0.85 border -1
set xtics rotate by -35 scale 0 noenhanced
set ylabel '% of samples'
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.12, 0
set grid ytics
set key top right noenhanced
set bmargin 11
set rmargin 10
# the titles ("patched restricted"): a bar's colour is its kernel's,
# lighter for the unrestricted ring
hdr = system("head -1 ".data)
nv = words(hdr) - 1
t(i) = word(hdr, i + 1)
w = 0.8 / nv
x(i) = $0 - 0.4 + w * (i - 0.5)
plot data using 0:(0):xtic(1) with points ps 0 notitle, \
	for [i=1:nv] data using (x(i)):(column(i + 1)):(w * 0.9) with boxes lc rgb kcol(kname(t(i))) fs solid kfill(t(i)) border -1 title columnheader(i + 1), \
	for [i=1:nv] '' using (x(i)):(column(i + 1)):(sprintf("%.1f", column(i + 1))) with labels rotate by 90 left offset 0, 0.3 font ",6" notitle
