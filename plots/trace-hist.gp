# plots/trace-hist.gp: bpftrace's histogram of io_submit_sqes() time per
# SQE (the call's time over its batch), NOP batch 32, per kernel and ring
# (data = trace-sqe-hist.dat of uringlab/trace_summary.py). Under icount
# a ns is a guest instruction; the kprobe pair's own cost is in every
# bucket. Only the busy buckets are drawn (uringlab/trace_summary.py);
# every kernel and ring has its place in each; only non-empty bars are
# labelled, so the busy buckets' values stand out.
set terminal @term
# the first line holds the titles, for every plot of the file
set key autotitle columnhead
set output out
load style
set title "bpftrace submit-latency.bt: io_submit_sqes() time per SQE, NOP batch 32\n".sub noenhanced
set style fill solid 0.85 border -1
set xlabel 'bucket: '.unit.' per SQE (lower bound of each bucket)' noenhanced
set ylabel '% of io_submit_sqes() calls' noenhanced
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.15, 0
set grid ytics
set key outside right top noenhanced
# the titles ("patched restricted"): a bar's colour is its kernel's,
# lighter for the unrestricted ring
hdr = system("head -1 ".data)
nv = words(hdr) - 1
t(i) = word(hdr, i + 1)
w = 0.8 / nv
x(i) = $0 - 0.4 + w * (i - 0.5)
plot data using 0:(0):xtic(1) with points ps 0 notitle, \
	for [i=1:nv] data using (x(i)):(column(i + 1)):(w * 0.9) with boxes lc rgb kcol(kname(t(i))) fs solid kfill(t(i)) border -1 title columnheader(i + 1), \
	for [i=1:nv] '' using (x(i)):(column(i + 1)):(column(i + 1) > 0 ? sprintf("%.1f", column(i + 1)) : "") with labels rotate by 90 left offset 0, 0.3 font ",7" notitle
