"""make policy's report: the round trip's verdicts and what running
restricted costs each recorded program (tracing/policy-run.sh).

python3 -m uringlab.policy_cost RUN
    reads RUN/raw/KERNEL/roundtrip.tap and RUN/raw/KERNEL/cost/ (written by
    tests/policy-roundtrip.sh and bench/policy-cost.sh in the guest) and
    writes RUN/cost.csv and RUN/REPORT.md.

Throughput is each program's own report: ringbench's ops_per_s, fio's
read IOPS, qemu-img bench's requests over its run time. Under TCG with
-icount the guest's clock counts instructions, so these are operations per
second of a CPU that runs one instruction a nanosecond: a cost, not a speed.
"""
import csv
import glob
import io
import json
import os
import re
import sys

from uringlab.runfolder import write_atomic
from statistics import median

MODES = ("none", "allow", "filters")
MODE_NAMES = {"none": "unrestricted", "allow": "allow-lists",
              "filters": "allow-lists + filters"}


def throughput(path):
    """ops per second from one run's output, or None."""
    text = open(path, errors="replace").read()
    m = re.search(r'"ops_per_s":([0-9.]+)', text)
    if m:
        return float(m.group(1))
    m = re.search(r"Sending (\d+) .*?Run completed in ([0-9.]+) seconds", text, re.S)
    if m:
        return int(m.group(1)) / float(m.group(2)) if float(m.group(2)) else None
    start = text.find("{")
    if start >= 0:
        try:
            j = json.loads(text[start:])
            return float(j["jobs"][0]["read"]["iops"])
        except (ValueError, KeyError, IndexError):
            return None
    return None


def collect(run):
    """({(kernel, program, mode): [ops/s per repetition]}, [runs whose
    output held no throughput])"""
    data, unread = {}, []
    for path in sorted(glob.glob(os.path.join(run, "raw", "*", "cost", "*.out"))):
        kernel = path.split(os.sep)[-3]
        name, mode, rep, _ = os.path.basename(path).rsplit(".", 3)
        v = throughput(path)
        if v is None:
            unread.append(f"{kernel}: {name} {mode} {rep}: no throughput in its output")
        else:
            data.setdefault((kernel, name, mode), []).append(v)
    return data, unread


def tap_lines(run, kernel):
    p = os.path.join(run, "raw", kernel, "roundtrip.tap")
    return open(p).read().splitlines() if os.path.exists(p) else []


def fmt(vals):
    if not vals:
        return "—"
    m = median(vals)
    return f"{m:,.0f} [{min(vals):,.0f}–{max(vals):,.0f}] ×{len(vals)}"


def rel(vals, base):
    if not vals or not base:
        return ""
    return f" ({100 * (median(vals) / median(base) - 1):+.1f} %)"


def render(run):
    data, unread = collect(run)
    kernels = sorted({k for k, _, _ in data} |
                     {os.path.basename(os.path.dirname(p)) for p in
                      glob.glob(os.path.join(run, "raw", "*", "roundtrip.tap"))})
    env = {}
    for p in glob.glob(os.path.join(run, "env", "host.env")):
        for line in open(p):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                env[k] = v
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["kernel", "program", "mode", "reps", "median_ops_per_s", "min", "max"])
    for (k, n, m), v in sorted(data.items()):
        w.writerow([k, n, m, len(v), f"{median(v):.1f}", f"{min(v):.1f}", f"{max(v):.1f}"])
    write_atomic(os.path.join(run, "cost.csv"), buf.getvalue())

    out = ["# From a trace to a policy: the round trip and what it costs", ""]
    out.append(f"Accelerator {env.get('accel', '?')}, QEMU {env.get('qemu', '?')}, "
               f"kernels {', '.join(kernels)}; each program recorded, restricted "
               "with its recorded policy and rerun, then run less its busiest opcode.")
    out.append("")
    out.append("## Round trip")
    out.append("")
    for k in kernels:
        lines = tap_lines(run, k)
        ok = sum(1 for x in lines if x.startswith("ok "))
        bad = [x for x in lines if x.startswith("not ok")]
        plan = next((x for x in lines if re.match(r"^1\.\.\d+", x)), "1..?")
        out.append(f"**{k}**: {ok} of {plan[3:].split()[0]} ok"
                   + (f"; failed: {'; '.join(b[7:] for b in bad)}" if bad else "") + ".")
        out.append("")
    out.append("## What running restricted costs")
    out.append("")
    unit = ("operations per virtual second: under -icount one guest instruction is "
            "one virtual ns, so this is a cost in instructions, not a speed"
            if env.get("accel") == "tcg-icount" else "operations per second of wall-clock time")
    out.append(f"Median throughput over the repetitions [min–max] ×repetitions, in {unit}; "
               "the change is against the same kernel unrestricted. Each program's own "
               "report: ringbench's ops_per_s, fio's read IOPS, qemu-img bench's requests "
               "over its run time (printed to the millisecond: its changes resolve to about "
               "0.3 %). Upstream has no BPF filters: allow-lists only.")
    out.append("")
    out.append("| program | kernel | " + " | ".join(MODE_NAMES[m] for m in MODES) + " |")
    out.append("|---|---|" + "---:|" * len(MODES))
    for n in sorted({n for _, n, _ in data}):
        for k in kernels:
            base = data.get((k, n, "none"))
            if not base and not data.get((k, n, "allow")):
                continue
            cells = [fmt(data.get((k, n, m))) + ("" if m == "none" else rel(data.get((k, n, m)), base))
                     for m in MODES]
            out.append(f"| {n} | {k} | " + " | ".join(cells) + " |")
    failed = []
    for p in sorted(glob.glob(os.path.join(run, "raw", "*", "cost", "failed"))):
        k = p.split(os.sep)[-3]
        failed += [f"{k}: {x}" for x in open(p).read().splitlines() if x.strip()]
    failed += unread
    if failed:
        out.append("")
        out.append("Not measured or failed: " + "; ".join(failed) + ".")
    out.append("")
    out.append("Raw data: `raw/KERNEL/NAME/` (recording, policy, rerun, denial "
               "tracer), `raw/KERNEL/cost/` (each run's output), `cost.csv`.")
    write_atomic(os.path.join(run, "REPORT.md"), "\n".join(out) + "\n")


def main(argv):
    if len(argv) != 1:
        sys.exit(__doc__)
    render(argv[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
