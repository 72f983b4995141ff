# plots/trace-shares.gp: perf's share of cpu-clock samples per kernel
# symbol, for each kernel and ring, on one workload (data = a
# trace-perf-CELL.dat of tracing/summarize.py). Called by plots/draw.sh.
set terminal @term
set output out
set title "perf: share of samples per symbol, ".cell." (software cpu-clock)\n".sub noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -35 scale 0 noenhanced
set ylabel '% of samples'
set yrange [0:*]
set grid ytics
set key top right noenhanced
set bmargin 9
nc = system("head -1 ".data." | awk '{print NF}'")
plot for [i=2:nc] data using i:xtic(1) title columnheader(i)
