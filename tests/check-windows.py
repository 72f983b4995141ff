#!/usr/bin/env python3
"""check-windows.py RUN KERNEL: after tests/trace-smoke.sh, check on the
host what the insn-count plugin wrote (TAP): RUN/raw/KERNEL/ holds the
plugin's insn-count.txt, ringbench's windows.jsonl and the System.map.
The windows must pair with the runs, count what the guest clock counted
(icount: 1 ns = 1 instruction) to within 0.01 %, and on a kernel with
restrictions put the restricted ring's extra instructions in
io_submit_sqes, where the check is inlined.
"""
import csv
import os
import subprocess
import sys

run, kernel = sys.argv[1], sys.argv[2]
here = os.path.dirname(os.path.abspath(__file__))
n = 0


def tap(ok, what, diag=""):
    global n
    n += 1
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")
    if not ok and diag:
        for line in str(diag).splitlines()[-8:]:
            print(f"#   {line}")


print("1..3")
p = subprocess.run([sys.executable, os.path.join(here, "..", "tracing", "attribute.py"), run],
                   capture_output=True, text=True)
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
    # a check that costs an allowed SQE nothing leaves nothing to attribute
    free = abs(total) < 0.5 and all(abs(float(r["delta_per_op"])) < 0.5 for r in funcs)
    tap(free or (top["function"] == "io_submit_sqes" and float(top["delta_per_op"]) >= 0.8 * total > 0),
        f"insn-count plugin: the restricted ring's {total:+.2f} instructions/op are "
        + ("below half an instruction in every function" if free else
           f"mostly in io_submit_sqes ({top['function']} {float(top['delta_per_op']):+.2f})"),
        "\n".join(",".join(r.values()) for r in at[:8]))
