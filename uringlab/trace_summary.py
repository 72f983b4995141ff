"""python3 -m uringlab.trace_summary RUN: plot data and tables from a trace run's bpftrace and
perf output (tracing/in-guest.sh) and its attribution (attribution.py):

  RUN/trace/perf-shares.csv    per kernel, cell, ring and symbol: % of samples
  RUN/trace/perf-check.csv     per kernel, cell and ring: perf's share of
                               samples on the instructions the plugin found
                               the restricted ring adds (trace/hot-*.txt),
                               beside the plugin's own share
  RUN/trace/bpftrace.csv       per kernel, script, cell, ring and map: the
                               histogram's count and median bucket, or a
                               counter's value
  RUN/plots/data/trace-*.dat   what plots/draw.sh draws
"""
import glob
import json
import os
import re
import sys

from uringlab import cells
from uringlab.kernels import of_run, with_lab
from uringlab.runfolder import RunFolder, write_atomic, write_csv

RINGS = ("unrestricted", "restricted")
TOP = 12


def variants(present):
    """(kernel, ring) pairs in the order the pictures show them; a kernel
    beyond the lab's three after them, not left out."""
    return [(k, r) for k in with_lab({k for k, _ in present}) for r in RINGS if (k, r) in present]


def read_bpftrace(path):
    maps = {}
    with open(path) as f:
        for line in f:
            try:
                j = json.loads(line)
            except ValueError:
                continue
            if j.get("type") in ("map", "hist"):
                maps.update(j["data"])
    return maps


def hist_median(buckets):
    n = sum(b["count"] for b in buckets)
    acc = 0
    for b in buckets:
        acc += b["count"]
        if acc * 2 >= n:
            return b.get("min", 0), b.get("max", b.get("min", 0))
    return 0, 0


def perf(run, data):
    shares, rows = {}, []
    for path in sorted(glob.glob(os.path.join(run, "raw", "*", "perf", "*.symbols.csv"))):
        k = path.split(os.sep)[-3]
        cell, ring = os.path.basename(path)[:-len(".symbols.csv")].split(".")
        with open(path) as f:
            for line in f:
                pct, _, sym = line.rstrip("\n").partition(",")
                shares.setdefault(cell, {}).setdefault((k, ring), {})[sym] = float(pct)
                rows.append([k, cell, ring, sym, pct])
    write_csv(os.path.join(run, "trace", "perf-shares.csv"),
              ["kernel", "cell", "ring", "symbol", "pct_samples"], rows)
    for cell, per in shares.items():
        vs = variants(per)
        syms = sorted({s for v in vs for s in per[v]},
                      key=lambda s: -max(per[v].get(s, 0) for v in vs))[:TOP]
        lines = ["symbol " + " ".join(f'"{k} {r}"' for k, r in vs)]
        for s in syms:
            lines.append(f'"{s}" ' + " ".join(f"{per[v].get(s, 0):.2f}" for v in vs))
        write_atomic(os.path.join(data, f"trace-perf-{cell}.dat"), "\n".join(lines) + "\n")
    return len(shares)


def hot_addresses(run, kernel, cell):
    """Addresses trace/hot-KERNEL-CELL.txt says the restricted ring adds."""
    path = os.path.join(run, "trace", f"hot-{kernel}-{cell}.txt")
    addrs = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and p[1].startswith("<+") and float(p[2]) > 0:
                    addrs[int(p[0], 16)] = float(p[2])
    return addrs


def perf_check(run):
    """How much of perf's io_submit_sqes the check's instructions hold."""
    rows = []
    for path in sorted(glob.glob(os.path.join(run, "raw", "*", "perf", "*.annotate.txt"))):
        k = path.split(os.sep)[-3]
        cell, ring = os.path.basename(path)[:-len(".annotate.txt")].split(".")
        hot = hot_addresses(run, k, cell)
        if not hot:
            continue
        local = {}
        with open(path) as f:
            for line in f:
                m = re.match(r"\s*([0-9.]+)\s*:\s+([0-9a-f]+):", line)
                if m:
                    local[int(m.group(2), 16)] = float(m.group(1))
        fn = 0.0
        with open(path[:-len(".annotate.txt")] + ".symbols.csv") as f:
            for line in f:
                pct, _, sym = line.rstrip("\n").partition(",")
                if sym == "io_submit_sqes":
                    fn = float(pct)
        in_check = sum(local.get(a, 0.0) for a in hot)
        rows.append([k, cell, ring, f"{fn:.2f}", f"{in_check:.2f}",
                     f"{fn * in_check / 100:.2f}", len(hot)])
    write_csv(os.path.join(run, "trace", "perf-check.csv"),
              ["kernel", "cell", "ring", "io_submit_sqes_pct_of_samples",
               "check_pct_of_io_submit_sqes", "check_pct_of_samples", "check_instructions"],
              rows)
    return len(rows)


def bpftrace(run, data):
    rows, sqe = [], {}
    for path in sorted(glob.glob(os.path.join(run, "raw", "*", "bpftrace", "*.json"))):
        k = path.split(os.sep)[-3]
        script, cell, ring = os.path.basename(path)[:-len(".json")].split(".")
        for name, val in read_bpftrace(path).items():
            if isinstance(val, list):        # a histogram
                lo, hi = hist_median(val)
                rows.append([k, script, cell, ring, name, "",
                             sum(b["count"] for b in val), f"{lo}-{hi}"])
                if script == "submit-latency" and name == "@sqe_ns":
                    sqe[(k, ring)] = val
            elif isinstance(val, dict):
                for key, v in val.items():
                    if isinstance(v, list):  # histograms keyed by opcode
                        lo, hi = hist_median(v)
                        rows.append([k, script, cell, ring, name, key,
                                     sum(b["count"] for b in v), f"{lo}-{hi}"])
                    else:
                        rows.append([k, script, cell, ring, name, key, v, ""])
            else:
                rows.append([k, script, cell, ring, name, "", val, ""])
    write_csv(os.path.join(run, "trace", "bpftrace.csv"),
              ["kernel", "script", "cell", "ring", "map", "key", "count_or_value",
               "median_bucket"], rows)
    if sqe:
        vs = variants(sqe)
        lows = sorted({b.get("min", 0) for v in vs for b in sqe[v]})
        pct = {}
        for v in vs:
            n = sum(b["count"] for b in sqe[v]) or 1
            for lo in lows:
                pct[v, lo] = 100 * sum(b["count"] for b in sqe[v] if b.get("min", 0) == lo) / n
        # the picture spans the buckets that hold 1 % of some variant's
        # calls, and one either side; the rare slow calls stay in the CSV
        busy = [i for i, lo in enumerate(lows) if any(pct[v, lo] >= 1 for v in vs)]
        if busy:
            lows = lows[max(busy[0] - 1, 0):busy[-1] + 2]
        lines = ["bucket " + " ".join(f'"{k} {r}"' for k, r in vs)]
        for lo in lows:
            lines.append(f"{lo} " + " ".join(f"{pct[v, lo]:.2f}" for v in vs))
        write_atomic(os.path.join(data, "trace-sqe-hist.dat"), "\n".join(lines) + "\n")
    return len(rows)


# a comparison of attribution.py as its column's title; the check first
# (the picture's left panel), then what a kernel adds over baseline
INSN_SERIES = [("{k}: restricted - unrestricted", "{k}: check"),
               ("{k}: filtered - unrestricted", "{k}: filter"),
               ("{k} - baseline: unrestricted", "{k} - baseline")]
# a tic label the picture has room for
INSN_LABEL = 24


def insn(run, data):
    """trace-insn-CELL.dat: per function, the check's instructions per op
    on each kernel (restricted - unrestricted ring, or a filter cell's
    filtered - unrestricted) and each kernel's unrestricted ring over
    baseline's. Every comparison the cell has gets its column, zero where
    attribution.py found no difference: a zero is a result. One the cell
    does not have (upstream runs no filter) gets none. The whole op
    ("[total]") comes first."""
    rows = RunFolder(run).read_csv(os.path.join("trace", "attribution.csv"))
    if not rows:
        return 0
    n = 0
    for cell in sorted({r["cell"] for r in rows}):
        per = {}
        for r in rows:
            if r["cell"] == cell:
                per.setdefault(r["comparison"], {})[r["function"]] = float(r["delta_per_op"])
        series = [(c.format(k=k), t.format(k=k)) for c, t in INSN_SERIES for k in kernels_in(run)
                  if c.format(k=k) in per]
        funcs = sorted({f for c, _ in series for f in per[c] if f != "[total]"},
                       key=lambda f: -max(abs(per[c].get(f, 0)) for c, _ in series))[:8]
        lines = ["function " + " ".join(f'"{t}"' for _, t in series)]
        for fn in ["[total]"] + funcs:
            label = fn if len(fn) <= INSN_LABEL else fn[:INSN_LABEL - 1] + "…"
            lines.append(f'"{label}" ' + " ".join(f"{per[c].get(fn, 0):.3f}" for c, _ in series))
        write_atomic(os.path.join(data, f"trace-insn-{cells.slug(cell)}.dat"), "\n".join(lines) + "\n")
        n += 1
    return n


def kernels_in(run):
    """The kernels the trace run measured (host.env), baseline excluded:
    it is the reference the other columns are measured from."""
    return [k for k in of_run(RunFolder(run)) if k != "baseline"]


def main():
    run = os.path.abspath(sys.argv[1])
    data = os.path.join(run, "plots", "data")
    os.makedirs(data, exist_ok=True)
    os.makedirs(os.path.join(run, "trace"), exist_ok=True)
    p, b, i = perf(run, data), bpftrace(run, data), insn(run, data)
    perf_check(run)
    print(f"[trace] summary: perf {p} cells, bpftrace {b} rows, insn-count {i} cells")


if __name__ == "__main__":
    main()
