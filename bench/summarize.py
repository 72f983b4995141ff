#!/usr/bin/env python3
"""summarize.py RUN: turn a bench run's raw data into CSV tables and the
data files the gnuplot scripts draw.

  RUN/summary.csv   one row per cell x kernel x ring: repetitions, median,
                    min, max, spread of the per-op cost, median ops/s
  RUN/overhead.csv  per cell, the comparisons the report makes: relative
                    difference of medians with a 95 % bootstrap interval,
                    and the absolute difference per op
  RUN/fio.csv       per fio job x kernel x ring: IOPS and completion
                    latency percentiles (medians over repetitions)
  RUN/plots/data/   the same, shaped for gnuplot

Only measured numbers are written: a cell a kernel cannot run (baseline
has no restricted ring) has no row, and plots show a gap. A kernel other
than the lab's three (any branch of build/linux, make bench KERNELS=...)
gets its rows after theirs and is compared with patched.
"""
import csv
import glob
import json
import os
import random
import statistics
import sys

KERNELS = ["baseline", "patched", "upstream"]
RINGS = ["unrestricted", "restricted"]
WORKLOAD_ORDER = ["nop", "skip", "drain", "link", "async", "topop", "rings", "read", "bufsel",
                  "sqpoll", "deny", "setup"]
BOOTSTRAP = 2000
PERCENTILES = ["50.000000", "90.000000", "99.000000", "99.900000"]

# (label, kernel a, ring a, kernel b, ring b): a relative to b
COMPARISONS = [
    ("patched vs baseline, unrestricted", "patched", "unrestricted", "baseline", "unrestricted"),
    ("patched restricted vs baseline", "patched", "restricted", "baseline", "unrestricted"),
    ("patched: restricted vs unrestricted", "patched", "restricted", "patched", "unrestricted"),
    ("upstream: restricted vs unrestricted", "upstream", "restricted", "upstream", "unrestricted"),
    ("patched vs upstream, unrestricted", "patched", "unrestricted", "upstream", "unrestricted"),
    ("patched vs upstream, restricted", "patched", "restricted", "upstream", "restricted"),
]


def kernels_of(samples):
    """The lab's three, then any other kernel the run measured."""
    others = sorted({k for _c, k, _r in samples} - set(KERNELS))
    return KERNELS + others


def comparisons(kernels):
    """COMPARISONS, and for another kernel (a developer's branch, one patch
    of the series alone) what it changes against patched."""
    out = list(COMPARISONS)
    for k in kernels:
        if k in KERNELS:
            continue
        out += [(f"{k} vs patched, unrestricted", k, "unrestricted", "patched", "unrestricted"),
                (f"{k} vs patched, restricted", k, "restricted", "patched", "restricted"),
                (f"{k}: restricted vs unrestricted", k, "restricted", k, "unrestricted")]
    return out


def cell_name(d):
    # ringbench reports the batch of the workloads that have one, the
    # depth of the others, 0 where neither applies
    w = d["workload"]
    if d.get("rings"):
        return f"{w} N={d['rings']}"
    if d.get("batch"):
        return f"{w} b={d['batch']}"
    if d.get("depth"):
        return f"{w} qd={d['depth']}"
    return w


def cell_key(name):
    w, _, p = name.partition(" ")
    n = int(p.split("=")[1]) if p else 0
    return (WORKLOAD_ORDER.index(w) if w in WORKLOAD_ORDER else 99, n)


def write_atomic(path, text):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def csv_text(header, rows):
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def bootstrap_ratio(a, b, rng):
    """95 % interval of median(a)/median(b) - 1, resampling both."""
    stats = []
    for _ in range(BOOTSTRAP):
        ra = [rng.choice(a) for _ in a]
        rb = [rng.choice(b) for _ in b]
        stats.append(statistics.median(ra) / statistics.median(rb) - 1)
    stats.sort()
    return stats[int(0.025 * BOOTSTRAP)], stats[int(0.975 * BOOTSTRAP) - 1]


def fmt(x, nd=3):
    return f"{x:.{nd}f}"


def micro_files(run):
    """Each kernel's ringbench lines: micro.jsonl, or the .part a lost
    boot left behind (what it measured before it stopped counts)."""
    for kdir in sorted(glob.glob(os.path.join(run, "raw", "*"))):
        for name in ("micro.jsonl", "micro.jsonl.part"):
            path = os.path.join(kdir, name)
            if os.path.exists(path):
                yield path
                break


def load_micro(run):
    samples = {}  # (cell, kernel, ring) -> [ns_per_op]
    absent = set()
    for path in micro_files(run):
        kernel = os.path.basename(os.path.dirname(path))
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    d = json.loads(line)
                except ValueError:
                    continue  # the torn last line of a lost boot
                if "absent" in d:
                    absent.add((kernel, d["absent"]))
                    continue
                key = (cell_name(d), d.get("kernel", kernel), d["ring"])
                samples.setdefault(key, []).append(d["ns_per_op"])
    return samples, absent


def load_fio(run):
    runs = {}  # (job, kernel, ring) -> [job dict]
    for path in sorted(glob.glob(os.path.join(run, "raw", "*", "fio", "*.json"))):
        kernel = os.path.basename(os.path.dirname(os.path.dirname(path)))
        # GROUP.RING.REP.json: one fio process, one or more jobs
        _group, ring, _rep, _ = os.path.basename(path).rsplit(".", 3)
        with open(path) as f:
            d = json.load(f)
        for job in d["jobs"]:
            runs.setdefault((job["jobname"], kernel, ring), []).append(job)
    return runs


def main():
    run = sys.argv[1]
    rng = random.Random(1)  # a reproducible interval from the same data
    samples, absent = load_micro(run)
    cells = sorted({k[0] for k in samples}, key=cell_key)
    kernels = kernels_of(samples)

    rows = []
    for c in cells:
        for k in kernels:
            for r in RINGS:
                s = samples.get((c, k, r))
                if not s:
                    continue
                med = statistics.median(s)
                rows.append([c, k, r, len(s), fmt(med), fmt(min(s)), fmt(max(s)),
                             fmt(100 * (max(s) - min(s)) / med, 4), fmt(1e9 / med, 1)])
    write_atomic(os.path.join(run, "summary.csv"), csv_text(
        ["cell", "kernel", "ring", "reps", "median_per_op", "min_per_op",
         "max_per_op", "spread_pct", "median_ops_per_s"], rows))

    orows = []
    for c in cells:
        for label, ka, ra, kb, rb in comparisons(kernels):
            a, b = samples.get((c, ka, ra)), samples.get((c, kb, rb))
            if not a or not b:
                continue
            ma, mb = statistics.median(a), statistics.median(b)
            lo, hi = bootstrap_ratio(a, b, rng)
            orows.append([c, label, fmt(100 * (ma / mb - 1), 3), fmt(100 * lo, 3),
                          fmt(100 * hi, 3), fmt(ma - mb, 2)])
    write_atomic(os.path.join(run, "overhead.csv"), csv_text(
        ["cell", "comparison", "delta_pct", "ci95_lo_pct", "ci95_hi_pct",
         "delta_per_op"], orows))

    fio = load_fio(run)
    frows = []
    order = kernels + sorted({k for _j, k, _r in fio} - set(kernels))
    for (job, k, r) in sorted(fio, key=lambda x: (x[0], order.index(x[1]), RINGS.index(x[2]))):
        js = fio[(job, k, r)]
        iops = [j["read"]["iops"] for j in js]
        pct = []
        for p in PERCENTILES:
            vals = [j["read"]["clat_ns"].get("percentile", {}).get(p) for j in js]
            vals = [v for v in vals if v is not None]
            pct.append(fmt(statistics.median(vals), 0) if vals else "")
        frows.append([job, k, r, len(js), fmt(statistics.median(iops), 1),
                      fmt(min(iops), 1), fmt(max(iops), 1)] + pct)
    write_atomic(os.path.join(run, "fio.csv"), csv_text(
        ["job", "kernel", "ring", "reps", "iops_median", "iops_min", "iops_max",
         "clat_p50_ns", "clat_p90_ns", "clat_p99_ns", "clat_p99.9_ns"], frows))

    write_plot_data(run, samples, cells, fio)


def write_plot_data(run, samples, cells, fio):
    data = os.path.join(run, "plots", "data")
    os.makedirs(data, exist_ok=True)
    variants = [(k, r) for k in KERNELS for r in RINGS]

    # ops.dat: per cell, for each variant: median ops/s and the ops/s of
    # the slowest and fastest repetition ("?" where there is no cell)
    lines = ["# cell " + " ".join(f"{k}-{r}(med,lo,hi)" for k, r in variants)]
    for c in cells:
        f = [f'"{c}"']
        for v in variants:
            s = samples.get((c,) + v)
            if s:
                f += [fmt(1e9 / statistics.median(s), 1), fmt(1e9 / max(s), 1), fmt(1e9 / min(s), 1)]
            else:
                f += ["?", "?", "?"]
        lines.append(" ".join(f))
    write_atomic(os.path.join(data, "ops.dat"), "\n".join(lines) + "\n")

    # batch.dat: NOP batch size against the restriction check's cost
    lines = ["# batch patched_pct upstream_pct patched_unres_vs_base_pct "
             "patched_extra upstream_extra patched_unres_vs_base_extra"]
    for c in cells:
        if not c.startswith("nop "):
            continue
        batch = c.split("=")[1]

        def delta(ka, ra, kb, rb):
            a, b = samples.get((c, ka, ra)), samples.get((c, kb, rb))
            if not a or not b:
                return "?", "?"
            ma, mb = statistics.median(a), statistics.median(b)
            return fmt(100 * (ma / mb - 1), 3), fmt(ma - mb, 2)
        p = delta("patched", "restricted", "patched", "unrestricted")
        u = delta("upstream", "restricted", "upstream", "unrestricted")
        b = delta("patched", "unrestricted", "baseline", "unrestricted")
        lines.append(" ".join([batch, p[0], u[0], b[0], p[1], u[1], b[1]]))
    write_atomic(os.path.join(data, "batch.dat"), "\n".join(lines) + "\n")

    # fio-<job>.dat: per percentile, the median clat (us) of each variant;
    # not for NVMe under icount, whose figures time the host (report.py)
    icount = False
    try:
        with open(os.path.join(run, "env", "host.env")) as f:
            icount = "accel=tcg-icount\n" in f.read()
    except OSError:
        pass
    for name in glob.glob(os.path.join(data, "fio-nvme-*.dat")):
        os.remove(name)
    for job in sorted({k[0] for k in fio}):
        if icount and job.startswith("nvme-"):
            continue
        lines = ["# percentile " + " ".join(f"{k}-{r}" for k, r in variants)]
        for p in PERCENTILES:
            f = [p.rstrip("0").rstrip(".")]
            for k, r in variants:
                vals = [j["read"]["clat_ns"].get("percentile", {}).get(p)
                        for j in fio.get((job, k, r), [])]
                vals = [v for v in vals if v is not None]
                f.append(fmt(statistics.median(vals) / 1000, 3) if vals else "?")
            lines.append(" ".join(f))
        write_atomic(os.path.join(data, f"fio-{job}.dat"), "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
