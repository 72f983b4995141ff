"""python3 -m uringlab.bench_summary RUN: turn a bench run's raw data into CSV tables, and
(bench_plotdata.py) the data files the gnuplot scripts draw.

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
  RUN/samples.csv   every repetition's per-op figure (cell, kernel,
                    ring, boot, rep), and RUN/fio-samples.csv every fio
                    run's IOPS: what compare.py bootstraps, kept when a
                    committed run keeps its tables and not raw/
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
import os
import random
import statistics
import sys

from uringlab import cells as cellnames
from uringlab.bench_plotdata import RINGS, PERCENTILES, write_plot_data
from uringlab.kernels import LAB_KERNELS, with_lab
from uringlab.numfmt import fmt, opt
from uringlab.runfolder import RunFolder, kernel_of
from uringlab.stats import boot_medians, boots_needed, compare, mde, pct, round_logs, \
    t_interval, values

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
    return with_lab({k for _c, k, _r in samples})


def comparisons(kernels):
    """COMPARISONS, and for another kernel (a developer's branch, one patch
    of the series alone) what it changes against patched."""
    out = list(COMPARISONS)
    for k in kernels:
        if k in LAB_KERNELS:
            continue
        out += [(f"{k} vs patched, unrestricted", k, "unrestricted", "patched", "unrestricted"),
                (f"{k} vs patched, restricted", k, "restricted", "patched", "restricted"),
                (f"{k}: restricted vs unrestricted", k, "restricted", k, "unrestricted"),
                (f"{k} vs patched, filtered", k, "filtered", "patched", "filtered"),
                (f"{k}: filtered vs unrestricted", k, "filtered", k, "unrestricted")]
    return out


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
                key = (cellnames.name(d), d.get("kernel", kernel), d["ring"])
                samples.setdefault(key, []).append((int(d.get("boot", 1)), d["ns_per_op"],
                                                    d.get("rep")))
    return samples, absent


def load_fio(run, reps=None):
    """{(job, kernel, ring): [fio's job dict]}; reps, if given, gets the
    repetition of each, in the same order."""
    runs = {}  # (job, kernel, ring) -> [job dict]
    for path in sorted(glob.glob(os.path.join(run, "raw", "*", "fio", "*.json"))):
        kernel = kernel_of(os.path.basename(os.path.dirname(os.path.dirname(path))))
        # GROUP.RING.REP.json: one fio process, one or more jobs
        _group, ring, rep, _ = os.path.basename(path).rsplit(".", 3)
        with open(path) as f:
            d = json.load(f)
        for job in d["jobs"]:
            runs.setdefault((job["jobname"], kernel, ring), []).append(job)
            if reps is not None:
                reps.setdefault((job["jobname"], kernel, ring), []).append(rep)
    return runs


def main():
    run = RunFolder(sys.argv[1])
    rng = random.Random(1)  # a reproducible interval from the same data
    samples, absent = load_micro(run.path)
    cells = sorted({k[0] for k in samples}, key=cellnames.sort_key)
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
    # the figures as ringbench wrote them, unrounded: a bootstrap over
    # them gives what one over raw/ would
    run.write_csv("samples.csv", ["cell", "kernel", "ring", "boot", "rep", "per_op"],
                  [[c, k, r, b, "" if rep is None else rep, repr(float(v))]
                   for c in cells for k in kernels for r in RINGS
                   for b, v, rep in samples.get((c, k, r), [])])

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

    fio_reps = {}
    fio = load_fio(run.path, fio_reps)
    frows, fsamples = [], []
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
        fsamples += [[job, k, r, rep, repr(float(x))] for rep, x in zip(fio_reps[(job, k, r)], iops)]
    run.write_csv("fio.csv",
                  ["job", "kernel", "ring", "reps", "iops_median", "iops_min", "iops_max",
                   "clat_p50_ns", "clat_p90_ns", "clat_p99_ns", "clat_p99.9_ns"], frows)
    run.write_csv("fio-samples.csv", ["job", "kernel", "ring", "rep", "iops"], fsamples)

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
    bases = sorted({cellnames.split(c)[0] for c in cells if cellnames.split(c)[1]}, key=cellnames.sort_key)

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
        for c in (c for c in cells if cellnames.split(c)[0] == b and cellnames.split(c)[1]):
            f = cellnames.split(c)[1]
            row(b, f"patched filter {f}", c, "patched", "filtered",
                "patched: filtered vs unrestricted")
            row(b, f"patched tables + filter {f}", c, "patched", "restricted+filtered",
                "patched: restricted+filtered vs unrestricted")
    if rows or os.path.exists(run.file("filters.csv")):
        run.write_csv("filters.csv", ["cell", "check", "kernel", "ring", "median_per_op",
                                      "check_per_op", "check_pct", "ci95_lo_pct",
                                      "ci95_hi_pct"], rows)


if __name__ == "__main__":
    main()
