#!/usr/bin/env python3
"""check-windows.py RUN KERNEL: after tests/trace-smoke.sh, check on the
host what the insn-count plugin wrote (TAP): RUN/raw/KERNEL/ holds the
plugin's insn-count.txt, ringbench's windows.jsonl and the System.map.
The windows must pair with the runs, count what the guest clock counted
(icount: 1 ns = 1 instruction) to within 0.01 %, and on a kernel with
restrictions put the restricted ring's extra instructions in
io_submit_sqes, where the check is inlined. Run with PYTHONPATH at the
lab root (tests/run.sh exports it).
"""
import csv
import json
import os
import subprocess
import sys

from uringlab.plugin import read_windows

run, kernel = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
# uringlab.attribution runs from this checkout, whatever PYTHONPATH says
env = dict(os.environ, PYTHONPATH=os.pathsep.join(
    p for p in (os.path.dirname(here), os.environ.get("PYTHONPATH")) if p))
n = 0


def tap(ok, what, diag=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    if not ok and diag:
        for line in str(diag).splitlines()[-8:]:
            print(f"#   {line}")


print("1..7")
p = subprocess.run([sys.executable, "-m", "uringlab.attribution", run],
                   capture_output=True, text=True, env=env)
rows = []
if p.returncode == 0:
    with open(os.path.join(run, "trace", "windows.csv")) as f:
        rows = list(csv.DictReader(f))
tap(p.returncode == 0 and len(rows) == 2,
    "insn-count plugin: two complete windows, paired with ringbench's two runs",
    p.stderr or f"{len(rows)} windows")
worst = max((abs(float(r["plugin_minus_icount_pct"])) for r in rows), default=1)
tap(rows and worst < 0.01,
    f"insn-count plugin: count per op within 0.01 % of the icount figure (worst {worst:.5f} %)",
    "\n".join(",".join(r.values()) for r in rows))
if kernel == "baseline":
    n += 1
    print(f"ok {n} # SKIP baseline has no restricted ring to attribute")
else:
    with open(os.path.join(run, "trace", "attribution.csv")) as f:
        at = [r for r in csv.DictReader(f)
              if r["comparison"] == f"{kernel}: restricted - unrestricted"]
    total = next((float(r["delta_per_op"]) for r in at if r["function"] == "[total]"), 0)
    funcs = [r for r in at if r["function"] != "[total]"]
    top = funcs[0] if funcs else {"function": "?", "delta_per_op": "0"}
    # a check that costs an allowed SQE nothing leaves no function with half
    # an instruction to attribute; the total may still move by a fraction
    # of an instruction per op with deferred work (an RCU batch freeing
    # slab objects) that lands in one window and not the other
    free = abs(total) < 2 and all(abs(float(r["delta_per_op"])) < 0.5 for r in funcs)
    tap(free or (top["function"] == "io_submit_sqes" and float(top["delta_per_op"]) >= 0.8 * total > 0),
        f"insn-count plugin: the restricted ring's {total:+.2f} instructions/op are "
        + ("below half an instruction in every function" if free else
           f"mostly in io_submit_sqes ({top['function']} {float(top['delta_per_op']):+.2f})"),
        "\n".join(",".join(r.values()) for r in at[:8]))

# The cache model (the plugin ran with cache=1): the ring contexts' lines
# were found, and the probe windows of tracing/cache-probe.c miss as an
# LRU cache must. A cyclic walk over more lines than a cache holds misses
# on every access, over fewer on none; 2 % leaves room for the few
# accesses a timer interrupt or the loop's own code adds.
mem = []
if os.path.exists(os.path.join(run, "trace", "memory.csv")):
    with open(os.path.join(run, "trace", "memory.csv")) as f:
        mem = list(csv.DictReader(f))
tap(len(mem) == 2 and all(r["ctx_lines_per_ring"] and float(r["ctx_lines_per_ring"]) >= 2
                          for r in mem),
    "cache model: each window's ring context found, its distinct lines counted ("
    + ", ".join(f"{r['ring']} {r['ctx_lines_per_ring'] or '?'}" for r in mem) + ")",
    "\n".join(",".join(r.values()) for r in mem) or "no trace/memory.csv")

raw = os.path.join(run, "raw", kernel)
probes, cases = [], []
try:
    probes = read_windows(os.path.join(raw, "insn-count.txt"), probes=True)
    with open(os.path.join(raw, "cache-probe.jsonl")) as f:
        cases = [json.loads(line) for line in f if line.strip()]
except OSError as e:
    cases = []
want = {"l1d-fit": ((0, 0.02), (0, 0.02)), "l2-fit": ((0.98, 1.02), (0, 0.02)),
        "l2-beyond": ((0.98, 1.02), (0.98, 1.02))}
for name, ((l1lo, l1hi), (l2lo, l2hi)) in want.items():
    c = next((i for i, c in enumerate(cases) if c["case"] == name), None)
    if c is None or c >= len(probes) or probes[c].mem is None:
        tap(False, f"cache model: probe {name}", "probe window or cache-probe line missing")
        continue
    reads = cases[c]["reads"]
    acc, m1, m2 = probes[c].mem["user"]
    r1, r2 = m1 / reads, m2 / reads
    tap(abs(acc - reads) <= 0.02 * reads and l1lo <= r1 <= l1hi and l2lo <= r2 <= l2hi,
        f"cache model: {name} ({cases[c]['bytes'] >> 10} KiB x {cases[c]['passes']}): "
        f"{acc} user accesses for {reads} reads, L1D misses {r1:.3f}, L2 misses {r2:.3f} per read",
        f"want L1D {l1lo}..{l1hi}, L2 {l2lo}..{l2hi}")
