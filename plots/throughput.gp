# plots/throughput.gp: per cell, each kernel's restricted ring's throughput
# relative to its own unrestricted ring (top) and to baseline's unrestricted
# ring (bottom), in per cent, with the comparison's 95 % interval as error
# bars and the value written on each bar (data = throughput.dat of
# uringlab/bench_summary.py). A bar below zero is throughput lost. Called by
# plots/draw.sh with: data (folder), out, term, style, sub, ci (how the
# interval was made), has_base. The deny cell's restricted ring refuses
# every SQE: its bar is what a refusal costs over running the NOP.
set terminal @term
set output out
load style
# has_base (draw.sh): the run measured baseline; without it, the top only
f = data.'/throughput.dat'
deny = system("grep -c '^.deny ' ".f) > 0
set multiplot layout (has_base ? 2 : 1),1 title "Restricted ring throughput, relative (%; bars: 95 % interval, ".ci.")\n".sub. \
	(deny ? "\ndeny: the restricted ring refuses every SQE (-EACCES), the unrestricted one runs the NOP" : "") noenhanced
set style fill solid 0.85 border -1
set grid ytics
set xzeroaxis lt -1 lw 1
set key outside right top noenhanced
set bars front
set offsets 0.5, 0.5, graph 0.18, graph 0.18
set xtics rotate by -30 scale 0 noenhanced font ",9"
# every value, zero included: above a bar's interval, below a negative
# one's; a comparison without an interval (one round) has no error bar
lab(v) = abs(v) < 0.005 ? "0.00" : sprintf("%+.2f", v)
up(v) = v >= 0 ? lab(v) : ""
down(v) = v < 0 ? lab(v) : ""
top(v, c) = valid(c) ? column(c) : v
set ylabel "vs own unrestricted ring (%)"
set title "restricted vs unrestricted ring, same kernel: what the check costs" noenhanced
plot f using ($0-0.19):2:(0.36):xtic(1) with boxes lc rgb kcol('patched') title 'patched', \
	'' using ($0+0.19):5:(0.36) with boxes lc rgb kcol('upstream') title 'upstream', \
	'' using ($0-0.19):3:(0):($4-$3) with vectors heads size screen 0.004,90 lc rgb 'black' notitle, \
	'' using ($0+0.19):6:(0):($7-$6) with vectors heads size screen 0.004,90 lc rgb 'black' notitle, \
	'' using ($0-0.19):(top($2, 4)):(up($2)) with labels rotate by 90 left offset 0, 0.4 font ",7" notitle, \
	'' using ($0-0.19):(top($2, 3)):(down($2)) with labels rotate by 90 right offset 0, -0.4 font ",7" notitle, \
	'' using ($0+0.19):(top($5, 7)):(up($5)) with labels rotate by 90 left offset 0, 0.4 font ",7" notitle, \
	'' using ($0+0.19):(top($5, 6)):(down($5)) with labels rotate by 90 right offset 0, -0.4 font ",7" notitle
if (!has_base) { unset multiplot; exit }
set ylabel "vs baseline, unrestricted (%)"
set title "restricted ring vs baseline's unrestricted ring: what a restricted ring costs over the unpatched kernel" noenhanced
plot f using ($0-0.19):8:(0.36):xtic(1) with boxes lc rgb kcol('patched') title 'patched', \
	'' using ($0+0.19):11:(0.36) with boxes lc rgb kcol('upstream') title 'upstream', \
	'' using ($0-0.19):9:(0):($10-$9) with vectors heads size screen 0.004,90 lc rgb 'black' notitle, \
	'' using ($0+0.19):12:(0):($13-$12) with vectors heads size screen 0.004,90 lc rgb 'black' notitle, \
	'' using ($0-0.19):(top($8, 10)):(up($8)) with labels rotate by 90 left offset 0, 0.4 font ",7" notitle, \
	'' using ($0-0.19):(top($8, 9)):(down($8)) with labels rotate by 90 right offset 0, -0.4 font ",7" notitle, \
	'' using ($0+0.19):(top($11, 13)):(up($11)) with labels rotate by 90 left offset 0, 0.4 font ",7" notitle, \
	'' using ($0+0.19):(top($11, 12)):(down($11)) with labels rotate by 90 right offset 0, -0.4 font ",7" notitle
unset multiplot
