# plots/trace-hist.gp: bpftrace's histogram of io_submit_sqes() time per
# SQE (the call's time over its batch), NOP batch 32, per kernel and ring
# (data = trace-sqe-hist.dat of tracing/summarize.py). Under icount a ns
# is a guest instruction; the kprobe pair's own cost is in every bucket.
# Only the busy buckets are drawn (tracing/summarize.py).
set terminal @term
set output out
set title "bpftrace submit-latency.bt: io\\_submit\\_sqes() time per SQE, NOP batch 32\n".sub noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set xlabel 'bucket: '.unit.' per SQE (lower bound, bucket width 5)' noenhanced
set ylabel '% of io\_submit\_sqes() calls'
set yrange [0:*]
set grid ytics
set key top right noenhanced
nc = system("head -1 ".data." | awk '{print NF}'")
plot for [i=2:nc] data using i:xtic(1) title columnheader(i)
