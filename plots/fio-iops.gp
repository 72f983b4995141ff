# plots/fio-iops.gp: what restricting fio's ring does to its throughput:
# per fio job, each kernel's restricted ring's IOPS over its own
# unrestricted ring's (% change of the medians over repetitions), the
# whisker the bootstrap 95 % interval of that ratio of medians (data =
# fio-iops.dat of uringlab/bench_plotdata.py). A bar below zero is IOPS
# lost. Called by plots/draw.sh with: data (file), out, term, style, sub.
set terminal @term
set output out
load style
# the kernels, repetitions and left-out jobs: the file's comment lines
meta(k) = system("sed -n 's/^# ".k.": //p' ".data)
ks = meta('kernels')
reps = meta('repetitions')
left = meta('left out')
nk = words(ks)
how = reps eq '1' ? 'one repetition per ring: no interval' : \
	'whiskers: bootstrap 95 % interval of the ratio of medians, '.reps.' repetitions per ring'
set title "fio IOPS, restricted ring over the same kernel's unrestricted ring (% change of the medians)\n".how. \
	(left eq 'none' ? '' : sprintf("\n%d NVMe job%s left out under icount, as in the report: the emulated disk's timing is the host's", \
		words(left), words(left) > 1 ? 's' : '')). \
	"\n".sub noenhanced
set style fill solid 0.85 border -1
set grid ytics
set xzeroaxis lt -1 lw 1
set key outside right top noenhanced
set offsets 0.5, 0.5, graph 0.15, graph 0.15
set xtics rotate by -25 scale 0 noenhanced
set ylabel 'IOPS, restricted vs unrestricted ring (%)'
lab(v) = abs(v) < 0.005 ? "0.00" : sprintf("%+.2f", v)
up(v) = v >= 0 ? lab(v) : ""
down(v) = v < 0 ? lab(v) : ""
top(v, c) = valid(c) ? column(c) : v
# kernel i's columns: 4i-2 the change, then lo, hi, repetitions
w = 0.7 / nk
x(i) = $0 - 0.35 + w * (i - 0.5)
plot data using 0:(0):xtic(1) with points ps 0 notitle, \
	for [i=1:nk] '' using (x(i)):4*i-2:(w * 0.9) with boxes lc rgb kcol(word(ks, i)) title word(ks, i), \
	for [i=1:nk] '' using (x(i)):4*i-1:(0):(column(4*i) - column(4*i-1)) with vectors heads size screen 0.005,90 lc rgb 'black' notitle, \
	for [i=1:nk] '' using (x(i)):(top(column(4*i-2), 4*i)):(up(column(4*i-2))) with labels offset 0, 0.7 font ",8" notitle, \
	for [i=1:nk] '' using (x(i)):(top(column(4*i-2), 4*i-1)):(down(column(4*i-2))) with labels offset 0, -0.7 font ",8" notitle
