"""uringlab: the lab's Python, one package, run as `python3 -m uringlab.X`
with PYTHONPATH at the lab root (the Makefile and vm/lib.sh export it).

Imports go one way: the core modules (runfolder, kernels, cells, numfmt,
stats, plugin) know nothing of the jobs; the jobs (bench_summary,
bench_plotdata, attribution, mca, trace_summary, gate, compare) use the
core; report/ reads what the jobs wrote; render runs them all in order.
Nothing here imports from bench/ or tracing/, which hold the shell, C,
bpftrace and gnuplot side.
"""
