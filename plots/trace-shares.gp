# plots/trace-shares.gp: perf's share of cpu-clock samples per kernel
# symbol, for each kernel and ring, on one workload (data = a
# trace-perf-CELL.dat of uringlab/trace_summary.py). Every kernel and
# ring the run measured has its bar, zero included, with its value.
# Called by plots/draw.sh with: data, out, term, cell, sub.
set terminal @term
# the first line holds the titles, for every plot of the file
set key autotitle columnhead
set output out
set title "perf: share of samples per symbol, ".cell." (software cpu-clock)\n".sub noenhanced
set style fill solid 0.85 border -1
set xtics rotate by -35 scale 0 noenhanced
set ylabel '% of samples'
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.12, 0
set grid ytics
set key top right noenhanced
set bmargin 9
# columns from the first data row: the header's titles hold spaces
nc = int(system("awk 'NR == 2 { print NF; exit }' ".data))
nv = nc - 1
w = 0.8 / nv
x(i) = $0 - 0.4 + w * (i - 0.5)
plot data using 0:(0):xtic(1) with points ps 0 notitle, \
	for [i=1:nv] data using (x(i)):(column(i + 1)):(w * 0.9) with boxes lc i title columnheader(i + 1), \
	for [i=1:nv] '' using (x(i)):(column(i + 1)):(sprintf("%.1f", column(i + 1))) with labels rotate by 90 left offset 0, 0.3 font ",6" notitle
