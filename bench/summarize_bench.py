#!/usr/bin/env python3
"""summarize_bench.py RUN: turn a bench run's raw data into CSV tables and the
data files the gnuplot scripts draw.

  RUN/summary.csv   one row per cell x kernel x ring: boots, repetitions,
                    median, min, max, spread of the per-op cost, median
                    ops/s, and the spread between boots' medians
  RUN/overhead.csv  per cell, the comparisons the report makes: relative
                    difference with its 95 % interval, the absolute
                    difference per op, and (several boots) the smallest
                    difference the run could have detected
  RUN/boots.csv     several boots: each boot's median per cell and ring
  RUN/rounds.csv    several boots: each check comparison as it stood
                    after the first 2, 3, ... rounds of boots
  RUN/power.csv     several boots: the between-boot spread of each
                    comparison and the boots it takes to detect 0.5, 1,
                    2 and 5 %
  RUN/fio.csv       per fio job x kernel x ring: IOPS and completion
                    latency percentiles (medians over repetitions)
  RUN/plots/data/   the same, shaped for gnuplot

One boot (icount): a comparison is the ratio of the two sides' medians,
its interval a bootstrap over repetitions, which is what varies there.
Several boots (wall-clock mode, bench/run.sh): each boot gives one
figure per comparison, and a comparison is the geometric mean over boots
of those figures, its 95 % interval Student's t over their logs, so the
interval comes from the variation between boots. Across kernels the
figure is the ratio of the two boots' medians of their interleaved
repetitions, paired by round (round r boots every kernel once). Within a
kernel (restricted vs unrestricted ring) both sides ran in the same boot,
each repetition's two runs back to back: the figure is the boot's median
over its repetitions of the pair's ratio (round_logs).

Only measured numbers are written: a cell a kernel cannot run (baseline
has no restricted ring) has no row, and plots show a gap. A kernel other
than the lab's three (any branch of build/linux, make bench KERNELS=...)
gets its rows after theirs and is compared with patched.
"""
import glob
import json
import math
import os
import random
import statistics
import sys

from runfolder import RunFolder, kernel_of, write_atomic

KERNELS = ["baseline", "patched", "upstream"]
RINGS = ["unrestricted", "restricted", "filtered", "restricted+filtered",
         "task-restricted", "task-filtered", "other-filtered", "other-plain"]
WORKLOAD_ORDER = ["nop", "skip", "drain", "link", "async", "topop", "rings", "read", "bufsel",
                  "sqpoll", "deny", "setup", "socket", "openat", "connect", "fork"]
BOOTSTRAP = 2000
PERCENTILES = ["50.000000", "90.000000", "99.000000", "99.900000"]

# (label, kernel a, ring a, kernel b, ring b): a relative to b
COMPARISONS = [
    ("patched vs baseline, unrestricted", "patched", "unrestricted", "baseline", "unrestricted"),
    ("upstream vs baseline, unrestricted", "upstream", "unrestricted", "baseline", "unrestricted"),
    ("patched restricted vs baseline", "patched", "restricted", "baseline", "unrestricted"),
    ("upstream restricted vs baseline", "upstream", "restricted", "baseline", "unrestricted"),
    ("patched: restricted vs unrestricted", "patched", "restricted", "patched", "unrestricted"),
    ("upstream: restricted vs unrestricted", "upstream", "restricted", "upstream", "unrestricted"),
    ("patched vs upstream, unrestricted", "patched", "unrestricted", "upstream", "unrestricted"),
    ("patched vs upstream, restricted", "patched", "restricted", "upstream", "restricted"),
    # the filter cells (issue 17): a filter cell's ring against its own
    # unrestricted ring, same boot
    ("patched: filtered vs unrestricted", "patched", "filtered", "patched", "unrestricted"),
    ("patched: restricted+filtered vs unrestricted", "patched", "restricted+filtered",
     "patched", "unrestricted"),
    # the task's restrictions (fd -1): the task cells, same boot; fork's
    # unrestricted side also against upstream's
    ("patched: task-restricted vs unrestricted", "patched", "task-restricted",
     "patched", "unrestricted"),
    ("patched: task-filtered vs unrestricted", "patched", "task-filtered",
     "patched", "unrestricted"),
    ("patched: other-filtered vs unrestricted", "patched", "other-filtered",
     "patched", "unrestricted"),
    # the control: the same other task without filters
    ("patched: other-filtered vs other-plain", "patched", "other-filtered",
     "patched", "other-plain"),
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
                (f"{k}: restricted vs unrestricted", k, "restricted", k, "unrestricted"),
                (f"{k} vs patched, filtered", k, "filtered", "patched", "filtered"),
                (f"{k}: filtered vs unrestricted", k, "filtered", k, "unrestricted")]
    return out


def cell_name(d):
    # ringbench reports the batch of the workloads that have one, the
    # depth of the others, 0 where neither applies
    # a filter cell (ringbench -F) adds its filter: "nop b=32 F=realx2"
    w = d["workload"]
    if d.get("rings"):
        name = f"{w} N={d['rings']}"
    elif d.get("batch"):
        name = f"{w} b={d['batch']}"
    elif d.get("depth"):
        name = f"{w} qd={d['depth']}"
    else:
        name = w
    if d.get("filter"):
        name += f" F={d['filter']}"
    # a task cell (micro-matrix.sh) is its own cell, unrestricted side too
    if d.get("variant"):
        name += f" {d['variant']}"
    return name


def split_cell(name):
    """(base cell, filter or ""): "nop b=32 F=real" -> ("nop b=32", "real")."""
    base, _, f = name.partition(" F=")
    return base, f


def cell_key(name):
    # "nop b=32", "nop b=32 task", "fork lists", "nop b=32 F=real"
    base, f = split_cell(name)
    w, _, p = base.partition(" ")
    first, _, variant = p.partition(" ")
    if "=" in first:
        n = int(first.split("=")[1])
    else:
        n, variant = 0, p
    return (WORKLOAD_ORDER.index(w) if w in WORKLOAD_ORDER else 99, n, variant, f)


def task_cell(name):
    """A task cell (micro-matrix.sh): its own rings, none of the plain ones."""
    return name.endswith(" task") or name.startswith("fork")


# Student's t quantiles by degrees of freedom: 0.975 (the two-sided 95 %
# interval) and 0.80 (80 % power), without scipy
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228, 12: 2.179, 15: 2.131, 20: 2.086, 30: 2.042, 60: 2.000,
        120: 1.980}
T80 = {1: 1.376, 2: 1.061, 3: 0.978, 4: 0.941, 5: 0.920, 6: 0.906, 7: 0.896, 8: 0.889,
       9: 0.883, 10: 0.879, 12: 0.873, 15: 0.866, 20: 0.860, 30: 0.854, 60: 0.848,
       120: 0.845}


def t_quantile(table, df):
    """The table's value at df, else the next smaller df's: conservative
    (a wider interval, more rounds) between entries and past the end."""
    return table[max(d for d in table if d <= df)]


def t_interval(x):
    """mean, sd and the 95 % half-width of the per-round log ratios."""
    n = len(x)
    m = statistics.fmean(x)
    if n < 2:
        return m, None, None
    sd = statistics.stdev(x)
    return m, sd, t_quantile(T975, n - 1) * sd / math.sqrt(n)


def mde(sd, n):
    """The smallest true difference (%) a paired t-test over n rounds with
    this spread finds at 5 % two-sided with 80 % power."""
    if sd is None or n < 2:
        return None
    return 100 * math.expm1((t_quantile(T975, n - 1) + t_quantile(T80, n - 1)) * sd / math.sqrt(n))


def boots_needed(sd, pct):
    """Rounds of boots for mde() to reach pct if the true spread is this
    one (cap 99). The two-quantile formula is optimistic for few rounds
    (simulated: 73 % power at 2 rounds, 78.5 % at 4, 80 % from 6): below 6
    it asks one round more."""
    for n in range(2, 100):
        if mde(sd, n) <= pct:
            return n + 1 if n < 6 else n
    return None


def pct(x):
    return 100 * math.expm1(x)


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
    x = round(x, nd)
    return f"{x + 0.0 if x else 0.0:.{nd}f}"  # no "-0.000"


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
    """{(cell, kernel, ring): [(boot, per-op figure)]}, and the absences."""
    samples = {}
    absent = set()
    for path in micro_files(run):
        inst = os.path.basename(os.path.dirname(path))
        kernel = kernel_of(inst)
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
                samples.setdefault(key, []).append((int(d.get("boot", 1)), d["ns_per_op"],
                                                    d.get("rep")))
    return samples, absent


def values(s):
    return [v for _b, v, _r in s]


def boot_medians(s):
    """{boot: median of that boot's repetitions}"""
    per = {}
    for b, v, _r in s:
        per.setdefault(b, []).append(v)
    return {b: statistics.median(vs) for b, vs in per.items()}


def round_logs(a, b, same_boot):
    """{round: log(A/B)} for the rounds both sides measured. Across
    kernels, the ratio of the two boots' medians. Within a kernel both
    rings ran in the same boot, each repetition's two runs back to back
    (micro-matrix.sh): the median over the boot's repetitions of each
    pair's log ratio, so a burst of host load that slows a few seconds of
    runs slows both sides of the pairs it hits and cancels, where it
    would move one side's median alone."""
    if not same_boot:
        ba, bb = boot_medians(a), boot_medians(b)
        return {r: math.log(ba[r] / bb[r]) for r in sorted(set(ba) & set(bb))}
    pa = {(bt, rep): v for bt, v, rep in a}
    pb = {(bt, rep): v for bt, v, rep in b}
    per = {}
    for key in sorted(set(pa) & set(pb), key=str):
        per.setdefault(key[0], []).append(math.log(pa[key] / pb[key]))
    return {r: statistics.median(per[r]) for r in sorted(per)}


def compare(a, b, rng, same_boot=False):
    """A relative to B, as the report gives it; None when a side is absent.
    same_boot: both sides ran in each boot (one kernel's two rings)."""
    if not a or not b:
        return None
    ba, bb = boot_medians(a), boot_medians(b)
    if len(ba) > 1 or len(bb) > 1:
        logs = round_logs(a, b, same_boot)
        if not logs:
            return None
        x = list(logs.values())
        m, sd, half = t_interval(x)
        # per op: the same geometric mean, on B's geometric mean
        gb = math.exp(statistics.fmean(math.log(bb[r]) for r in logs))
        return {"delta_pct": pct(m),
                "lo": None if half is None else pct(m - half),
                "hi": None if half is None else pct(m + half),
                "delta_per_op": math.expm1(m) * gb,
                "boots": len(x), "sd": sd,
                "method": (f"t over {len(x)} boots, each its repetitions' median paired ratio"
                           if same_boot else f"t over {len(x)} rounds of boots"),
                "mde": mde(sd, len(x))}
    ma, mb = statistics.median(values(a)), statistics.median(values(b))
    lo, hi = bootstrap_ratio(values(a), values(b), rng)
    return {"delta_pct": 100 * (ma / mb - 1), "lo": 100 * lo, "hi": 100 * hi,
            "delta_per_op": ma - mb, "boots": 1, "sd": None,
            "method": "bootstrap over repetitions", "mde": None}


def load_fio(run):
    runs = {}  # (job, kernel, ring) -> [job dict]
    for path in sorted(glob.glob(os.path.join(run, "raw", "*", "fio", "*.json"))):
        kernel = kernel_of(os.path.basename(os.path.dirname(os.path.dirname(path))))
        # GROUP.RING.REP.json: one fio process, one or more jobs
        _group, ring, _rep, _ = os.path.basename(path).rsplit(".", 3)
        with open(path) as f:
            d = json.load(f)
        for job in d["jobs"]:
            runs.setdefault((job["jobname"], kernel, ring), []).append(job)
    return runs


def opt(x, nd=3):
    return "" if x is None else fmt(x, nd)


def main():
    run = RunFolder(sys.argv[1])
    rng = random.Random(1)  # a reproducible interval from the same data
    samples, absent = load_micro(run.path)
    cells = sorted({k[0] for k in samples}, key=cell_key)
    kernels = kernels_of(samples)
    multi = any(len(boot_medians(s)) > 1 for s in samples.values())

    rows, brows = [], []
    for c in cells:
        for k in kernels:
            for r in RINGS:
                s = samples.get((c, k, r))
                if not s:
                    continue
                v = values(s)
                med = statistics.median(v)
                bm = boot_medians(s)
                spread_boots = ""
                if len(bm) > 1:
                    spread_boots = fmt(100 * (max(bm.values()) - min(bm.values()))
                                       / statistics.median(bm.values()), 4)
                rows.append([c, k, r, len(bm), len(v), fmt(med), fmt(min(v)), fmt(max(v)),
                             fmt(100 * (max(v) - min(v)) / med, 4), fmt(1e9 / med, 1),
                             spread_boots])
                if multi:
                    per = {}
                    for b, x, _r in s:
                        per.setdefault(b, []).append(x)
                    for b in sorted(per):
                        brows.append([c, k, r, b, len(per[b]), fmt(bm[b]),
                                      fmt(100 * (max(per[b]) - min(per[b])) / bm[b], 4)])
    run.write_csv("summary.csv",
                  ["cell", "kernel", "ring", "boots", "reps", "median_per_op", "min_per_op",
                   "max_per_op", "spread_pct", "median_ops_per_s", "boot_spread_pct"], rows)

    comps = {}
    orows = []
    for c in cells:
        for label, ka, ra, kb, rb in comparisons(kernels):
            d = compare(samples.get((c, ka, ra)), samples.get((c, kb, rb)), rng, ka == kb)
            if d is None:
                continue
            comps[c, label] = d
            sig = ""
            if d["lo"] is not None:
                sig = "yes" if d["lo"] > 0 or d["hi"] < 0 else "no"
            orows.append([c, label, fmt(d["delta_pct"]), opt(d["lo"]), opt(d["hi"]),
                          fmt(d["delta_per_op"], 2), d["boots"], d["method"], opt(d["mde"]), sig])
    run.write_csv("overhead.csv",
                  ["cell", "comparison", "delta_pct", "ci95_lo_pct", "ci95_hi_pct",
                   "delta_per_op", "boots", "ci_method", "mde_pct", "significant"], orows)

    write_filters(run, samples, cells, comps)

    for name in ("boots.csv", "rounds.csv", "power.csv"):
        if not multi and os.path.exists(run.file(name)):
            os.remove(run.file(name))
    if multi:
        run.write_csv("boots.csv", ["cell", "kernel", "ring", "boot", "reps", "median_per_op",
                                    "spread_pct"], brows)
        write_rounds(run, samples, cells, kernels, comps)

    fio = load_fio(run.path)
    frows = []
    order = kernels + sorted({k for _j, k, _r in fio} - set(kernels))
    for (job, k, r) in sorted(fio, key=lambda x: (x[0], order.index(x[1]), RINGS.index(x[2]))):
        js = fio[(job, k, r)]
        iops = [j["read"]["iops"] for j in js]
        pcts = []
        for p in PERCENTILES:
            vals = [j["read"]["clat_ns"].get("percentile", {}).get(p) for j in js]
            vals = [v for v in vals if v is not None]
            pcts.append(fmt(statistics.median(vals), 0) if vals else "")
        frows.append([job, k, r, len(js), fmt(statistics.median(iops), 1),
                      fmt(min(iops), 1), fmt(max(iops), 1)] + pcts)
    run.write_csv("fio.csv",
                  ["job", "kernel", "ring", "reps", "iops_median", "iops_min", "iops_max",
                   "clat_p50_ns", "clat_p90_ns", "clat_p99_ns", "clat_p99.9_ns"], frows)

    write_plot_data(run, cells, comps, fio)


# the comparisons whose course over the rounds the report shows
CHECKS = ["patched: restricted vs unrestricted", "upstream: restricted vs unrestricted",
          "patched vs baseline, unrestricted", "upstream vs baseline, unrestricted"]
POWER_AT = [0.5, 1, 2, 5]


def write_rounds(run, samples, cells, kernels, comps):
    """rounds.csv: each check comparison after the first n rounds, so the
    report can say how many boots a verdict took; power.csv: what each
    comparison's between-boot spread lets a run detect."""
    rows = []
    for c in cells:
        for label, ka, ra, kb, rb in comparisons(kernels):
            if label not in CHECKS:
                continue
            a, b = samples.get((c, ka, ra)), samples.get((c, kb, rb))
            if not a or not b:
                continue
            logs = round_logs(a, b, ka == kb)
            rounds = sorted(logs)
            for n in range(2, len(rounds) + 1):
                first = rounds[:n]
                m, sd, half = t_interval([logs[r] for r in first])
                sig = "yes" if m - half > 0 or m + half < 0 else "no"
                # rounds: how many both sides measured; last_round: the
                # round it stands after (they differ after a lost boot)
                rows.append([c, label, n, first[-1], fmt(pct(m)), fmt(pct(m - half)),
                             fmt(pct(m + half)), opt(mde(sd, n)), sig])
    run.write_csv("rounds.csv", ["cell", "comparison", "rounds", "last_round", "delta_pct",
                                 "ci95_lo_pct", "ci95_hi_pct", "mde_pct", "significant"], rows)
    prows = []
    for (c, label), d in comps.items():
        if d["sd"] is None:
            continue
        prows.append([c, label, d["boots"], fmt(100 * d["sd"], 4), opt(d["mde"])]
                     + [boots_needed(d["sd"], p) or ">99" for p in POWER_AT])
    run.write_csv("power.csv", ["cell", "comparison", "rounds", "sd_between_rounds_pct",
                                "mde_pct"] + [f"rounds_for_{p:g}pct" for p in POWER_AT], prows)


def write_filters(run, samples, cells, comps):
    """filters.csv: per cell that has filter cells, every way of checking
    its SQEs side by side: baseline's unchecked ring, upstream's bitmap,
    patched's tables, patched's filters. Per row the median per-op cost
    (instructions under icount) and what the check adds to the same
    kernel's unrestricted ring (per op and %, with the 95 % interval)."""
    rows = []
    bases = sorted({split_cell(c)[0] for c in cells if split_cell(c)[1]}, key=cell_key)

    def med(c, k, r):
        s = samples.get((c, k, r))
        return statistics.median(values(s)) if s else None

    def row(base, what, c, k, r, label):
        m = med(c, k, r)
        if m is None:
            return
        d = comps.get((c, label)) if label else None
        rows.append([base, what, k, r, fmt(m),
                     "" if d is None else fmt(d["delta_per_op"], 2),
                     "" if d is None else fmt(d["delta_pct"]),
                     "" if d is None else opt(d["lo"]), "" if d is None else opt(d["hi"])])

    for b in bases:
        row(b, "no check", b, "baseline", "unrestricted", None)
        row(b, "upstream, unrestricted", b, "upstream", "unrestricted", None)
        row(b, "upstream bitmap", b, "upstream", "restricted",
            "upstream: restricted vs unrestricted")
        row(b, "patched, unrestricted", b, "patched", "unrestricted", None)
        row(b, "patched tables", b, "patched", "restricted",
            "patched: restricted vs unrestricted")
        for c in (c for c in cells if split_cell(c)[0] == b and split_cell(c)[1]):
            f = split_cell(c)[1]
            row(b, f"patched filter {f}", c, "patched", "filtered",
                "patched: filtered vs unrestricted")
            row(b, f"patched tables + filter {f}", c, "patched", "restricted+filtered",
                "patched: restricted+filtered vs unrestricted")
    if rows or os.path.exists(run.file("filters.csv")):
        run.write_csv("filters.csv", ["cell", "check", "kernel", "ring", "median_per_op",
                                      "check_per_op", "check_pct", "ci95_lo_pct",
                                      "ci95_hi_pct"], rows)


def throughput(d):
    """A per-op cost comparison as the change in throughput (%), with its
    interval: the cost's interval turned over."""
    def tp(x):
        return None if x is None else 100 * (100 / (100 + x) - 1)
    return tp(d["delta_pct"]), tp(d["hi"]), tp(d["lo"])


def write_plot_data(run, cells, comps, fio):
    data = run.file("plots", "data")
    os.makedirs(data, exist_ok=True)
    for old in ("ops.dat",):  # replaced by throughput.dat
        if os.path.exists(os.path.join(data, old)):
            os.remove(os.path.join(data, old))

    # throughput.dat: per cell, each kernel's restricted ring's throughput
    # relative to its own unrestricted ring and to baseline's (%), with
    # the 95 % interval ("?" where the run has no such comparison)
    series = ["patched: restricted vs unrestricted", "upstream: restricted vs unrestricted",
              "patched restricted vs baseline", "upstream restricted vs baseline"]
    lines = ["# cell " + " ".join(f'"{s}"(pct,lo,hi)' for s in series)]
    # deny's restricted ring refuses every SQE: not a throughput to draw
    for c in (c for c in cells if not c.startswith("deny") and not split_cell(c)[1]
              and not task_cell(c)):
        f = [f'"{c}"']
        for s in series:
            d = comps.get((c, s))
            if d is None:
                f += ["?", "?", "?"]
                continue
            # no interval (one round): "?", no error bar; the bar still shows
            t, lo, hi = throughput(d)
            f += [fmt(t), "?" if lo is None else fmt(lo), "?" if hi is None else fmt(hi)]
        lines.append(" ".join(f))
    write_atomic(os.path.join(data, "throughput.dat"), "\n".join(lines) + "\n")

    # batch.dat: NOP batch size against the restriction check's cost, per
    # comparison the cost (%, 95 % interval) and the extra per op
    series = ["patched: restricted vs unrestricted", "upstream: restricted vs unrestricted",
              "patched vs baseline, unrestricted"]
    lines = ["# batch " + " ".join(f'"{s}"(pct,lo,hi,extra)' for s in series)]
    for c in cells:
        if not c.startswith("nop ") or split_cell(c)[1] or task_cell(c):
            continue
        f = [c.split("=")[1]]
        for s in series:
            d = comps.get((c, s))
            if d is None:
                f += ["?"] * 4
            else:
                f += [fmt(d["delta_pct"]), "?" if d["lo"] is None else fmt(d["lo"]),
                      "?" if d["hi"] is None else fmt(d["hi"]), fmt(d["delta_per_op"], 2)]
        lines.append(" ".join(f))
    write_atomic(os.path.join(data, "batch.dat"), "\n".join(lines) + "\n")

    # fio-<job>.dat: per percentile, the median clat (us) of each variant;
    # not for NVMe under icount, whose figures time the host (report.py)
    variants = [(k, r) for k in KERNELS for r in RINGS[:2]]
    for name in glob.glob(os.path.join(data, "fio-nvme-*.dat")):
        os.remove(name)
    for job in sorted({k[0] for k in fio}):
        if run.icount and job.startswith("nvme-"):
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
