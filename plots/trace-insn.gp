# plots/trace-insn.gp: where a restricted ring's extra instructions run:
# per kernel function, guest instructions per op of the restricted ring
# minus the unrestricted one, counted by the insn-count QEMU plugin (data
# = a trace-insn-CELL.dat of tracing/summarize.py). Called by draw.sh.
set terminal @term
set output out
set title "insn-count plugin: extra guest instructions per op on a restricted ring, by function, ".cell."\n".sub noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xtics rotate by -25 scale 0 noenhanced
set ylabel 'instructions per op (restricted - unrestricted)'
set grid ytics
set key top right noenhanced
set bmargin 8
set xzeroaxis lt -1
# zero always in view: a function can also lose instructions
set yrange [*<0:0<*]
set offsets 0, 0, graph 0.1, 0
nc = system("head -1 ".data." | awk '{print NF}'")
plot for [i=2:nc] data using i:xtic(1) title columnheader(i)
