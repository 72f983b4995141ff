# plots/checks.gp: what each way of checking an SQE adds per SQE over the
# same kernel's unrestricted ring: upstream's bitmap, patched's tables,
# each BPF filter, and a refused SQE (deny b=32) (data = checks.dat of
# uringlab/bench_plotdata.py). One panel per cell, NOP batch 32 first,
# each with its own y axis and as wide as its bars; bars in the kernel's
# colour, each with its value and its 95 % interval. Called by
# plots/draw.sh with: data (folder), out, term, style, unit, sub, ci.
set terminal @term
set output out
load style
f = data.'/checks.dat'
cells = system("sed -n 's/^# cells: //p' ".f)
np = words(cells)
array n[np]
total = 0
do for [i=1:np] {
	stats f index i-1 using 3 nooutput
	n[i] = STATS_records
	total = total + n[i] + 1.5
}
set multiplot title "What each check adds per SQE, over the same kernel's unrestricted ring\n".\
	"whiskers: the comparison's 95 % interval (".ci."), its % taken on the unrestricted ring's median\n".sub noenhanced
set style fill solid 0.85 border -1
set grid ytics
set xzeroaxis lt -1 lw 1
set xtics rotate by -35 scale 0 noenhanced font ",9"
set offsets 0.6, 0.6, graph 0.18, graph 0.18
set tmargin at screen 0.84
set bmargin at screen 0.27
lab(v) = abs(v) < 0.005 ? "0.00" : sprintf("%+.2f", v)
up(v) = v >= 0 ? lab(v) : ""
down(v) = v < 0 ? lab(v) : ""
top(v, c) = valid(c) ? column(c) : v
# screen from x0 to x1, each panel's share by its bars; its y tics inside
x0 = 0.02
x1 = 0.94
at = x0
do for [i=1:np] {
	wide = (x1 - x0) * (n[i] + 1.5) / total
	set lmargin at screen at + (i == 1 ? 0.05 : 0.04)
	set rmargin at screen at + wide - 0.01
	at = at + wide
	set title word(cells, i) noenhanced
	set ylabel (i == 1 ? 'extra '.unit.' per SQE' : '') noenhanced
	plot f index i-1 using 0:3:(0.7):(kcolnum(strcol(2))) with boxes lc rgb variable notitle, \
		'' index i-1 using 0:4:(0):($5-$4) with vectors heads size screen 0.005,90 lc rgb 'black' notitle, \
		'' index i-1 using 0:(0):xtic(1) with points ps 0 notitle, \
		'' index i-1 using 0:(top($3, 5)):(up($3)) with labels rotate by 90 left offset 0, 0.4 font ",8" notitle, \
		'' index i-1 using 0:(top($3, 4)):(down($3)) with labels rotate by 90 right offset 0, -0.4 font ",8" notitle
}
unset multiplot
