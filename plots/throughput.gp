# plots/throughput.gp: per cell, each kernel's restricted ring's throughput
# relative to its own unrestricted ring (top) and to baseline's unrestricted
# ring (bottom), in per cent, with the comparison's 95 % interval as error
# bars and the value written on each bar (data = throughput.dat of
# bench/summarize_bench.py). A bar below zero is throughput lost. Called by
# plots/draw.sh with: data (folder), out, term, sub, ci (how the interval
# was made). The deny cell is not drawn: its "restricted" ring refuses
# every SQE, a different operation, whose cost is in the report's tables.
set terminal @term
set output out
set multiplot layout 2,1 title "Restricted ring throughput, relative (%; bars: 95 % interval, ".ci.")\n".sub noenhanced
set style fill solid 0.85 border -1
set grid ytics
set xzeroaxis lt -1 lw 1
set key outside right top noenhanced
set bars front
set offsets 0.5, 0.5, graph 0.18, graph 0.18
set xtics rotate by -30 scale 0 noenhanced font ",9"
# every value, zero included: above a bar's interval, below a negative one's
lab(v) = abs(v) < 0.005 ? "0.00" : sprintf("%+.2f", v)
up(v, hi) = v >= 0 ? hi : NaN
down(v, lo) = v < 0 ? lo : NaN
f = data.'/throughput.dat'
set ylabel "vs own unrestricted ring (%)"
set title "restricted vs unrestricted ring, same kernel: what the check costs" noenhanced
plot f using ($0-0.19):2:3:4:(0.36):xtic(1) with boxerrorbars lc rgb '#1f77b4' title 'patched', \
	'' using ($0+0.19):5:6:7:(0.36) with boxerrorbars lc rgb '#d62728' title 'upstream', \
	'' using ($0-0.19):(up($2, $4)):(lab($2)) with labels rotate by 90 left offset 0, 0.4 font ",7" notitle, \
	'' using ($0-0.19):(down($2, $3)):(lab($2)) with labels rotate by 90 right offset 0, -0.4 font ",7" notitle, \
	'' using ($0+0.19):(up($5, $7)):(lab($5)) with labels rotate by 90 left offset 0, 0.4 font ",7" notitle, \
	'' using ($0+0.19):(down($5, $6)):(lab($5)) with labels rotate by 90 right offset 0, -0.4 font ",7" notitle
set ylabel "vs baseline, unrestricted (%)"
set title "restricted ring vs baseline's unrestricted ring: what a restricted ring costs over the unpatched kernel" noenhanced
plot f using ($0-0.19):8:9:10:(0.36):xtic(1) with boxerrorbars lc rgb '#1f77b4' title 'patched', \
	'' using ($0+0.19):11:12:13:(0.36) with boxerrorbars lc rgb '#d62728' title 'upstream', \
	'' using ($0-0.19):(up($8, $10)):(lab($8)) with labels rotate by 90 left offset 0, 0.4 font ",7" notitle, \
	'' using ($0-0.19):(down($8, $9)):(lab($8)) with labels rotate by 90 right offset 0, -0.4 font ",7" notitle, \
	'' using ($0+0.19):(up($11, $13)):(lab($11)) with labels rotate by 90 left offset 0, 0.4 font ",7" notitle, \
	'' using ($0+0.19):(down($11, $12)):(lab($11)) with labels rotate by 90 right offset 0, -0.4 font ",7" notitle
unset multiplot
