"""bench_plotdata.py: a bench run's tables shaped for gnuplot, in
RUN/plots/data/ (throughput.dat, batch.dat, checks.dat, fio-iops.dat,
fio-JOB.dat), which plots/*.gp draw. bench_summary.py computes the
figures and calls it.
"""
import glob
import os
import random
import statistics

from uringlab import cells as cellnames
from uringlab.kernels import LAB_KERNELS, with_lab
from uringlab.numfmt import fmt
from uringlab.runfolder import write_atomic
from uringlab.stats import bootstrap_ratio, per_op

RINGS = ["unrestricted", "restricted", "filtered", "restricted+filtered",
         "task-restricted", "task-filtered", "other-filtered", "other-plain"]
PERCENTILES = ["50.000000", "90.000000", "99.000000", "99.900000"]
# fio's last latency bucket (29 groups of 64): a completion fio did not
# time (SQPOLL's) or one past 8.6 s is reported as this value, not a latency
FIO_OVERFLOW_NS = 17112760320


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
    # deny too: its restricted ring refuses every SQE, and what a refusal
    # costs belongs beside what the check costs an allowed one
    for c in (c for c in cells if not cellnames.split(c)[1] and not cellnames.is_task(c)):
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
        if not c.startswith("nop ") or cellnames.split(c)[1] or cellnames.is_task(c):
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

    write_checks(run, data, cells, comps)
    write_fio_iops(run, data, fio)

    # fio-<job>.dat: per percentile, the median clat (us) of each variant;
    # none under icount, where a clat counts instructions between two
    # clock reads, not time (the IOPS say as much, fio-iops.dat)
    # the lab's three only: fio-lat.gp draws six columns
    variants = [(k, r) for k in LAB_KERNELS for r in RINGS[:2]]
    for name in glob.glob(os.path.join(data, "fio-*.dat")):
        if not name.endswith("fio-iops.dat"):
            os.remove(name)
    if run.icount:
        return
    for job in sorted({k[0] for k in fio}):
        lines = ["# percentile " + " ".join(f"{k}-{r}" for k, r in variants)]
        for p in PERCENTILES:
            f = [p.rstrip("0").rstrip(".")]
            for k, r in variants:
                vals = [j["read"]["clat_ns"].get("percentile", {}).get(p)
                        for j in fio.get((job, k, r), [])]
                vals = [v for v in vals if v is not None and v < FIO_OVERFLOW_NS]
                f.append(fmt(statistics.median(vals) / 1000, 3) if vals else "?")
            lines.append(" ".join(f))
        # a job fio timed nothing of (SQPOLL) has no picture
        if any(v != "?" for line in lines[1:] for v in line.split()[1:]):
            write_atomic(os.path.join(data, f"fio-{job}.dat"), "\n".join(lines) + "\n")


def per_op_interval(d, base):
    """A comparison's 95 % interval per op: its interval (%) on the median
    of the side it is relative to (several boots: on the median of all
    their repetitions, near the geometric mean the figure is taken on)."""
    iv = per_op(d["lo"], d["hi"], base)
    return ("?", "?") if iv is None else (fmt(iv[0], 2), fmt(iv[1], 2))


def write_checks(run, data, cells, comps):
    """checks.dat: what each way of checking an SQE adds per SQE, against
    the same kernel's unrestricted ring: upstream's bitmap, patched's
    tables (any other kernel's check), each filter cell's filters, and a
    refused SQE (deny: the restricted ring answers -EACCES, the
    unrestricted one runs the NOP). One block per base cell, NOP batch
    32 first, the others only where the run has filter cells; no file
    when the run has none of it."""
    name = os.path.join(data, "checks.dat")
    med = {(r["cell"], r["kernel"], r["ring"]): float(r["median_per_op"])
           for r in run.read_csv("summary.csv")}
    kernels = [k for k in with_lab({k for _c, k, _r in med}) if k != "baseline"]
    what = {"patched": "tables", "upstream": "bitmap"}
    bases = sorted({cellnames.split(c)[0] for c in cells if cellnames.split(c)[1]}
                   | {"nop b=32"}, key=cellnames.sort_key)
    blocks = []
    for b in bases:
        bars = [(what.get(k, "check"), b, k, "restricted") for k in kernels]
        for c in cells:
            base, f = cellnames.split(c)
            if f and base == b:
                bars += [(f"filter {f}", c, k, "filtered") for k in kernels]
                bars += [(f"tables + filter {f}", c, k, "restricted+filtered") for k in kernels]
        if b == "nop b=32":
            bars += [("refused (deny b=32)", "deny b=32", k, "restricted") for k in kernels]
        rows = []
        for label, c, k, ring in bars:
            d = comps.get((c, f"{k}: {ring} vs unrestricted"))
            if d is not None:
                lo, hi = per_op_interval(d, med.get((c, k, "unrestricted")))
                rows.append(f'"{k}: {label}" {k} {fmt(d["delta_per_op"], 2)} {lo} {hi}')
        if rows:
            blocks.append((b, rows))
    if not blocks:
        if os.path.exists(name):
            os.remove(name)
        return
    unit = "instructions" if run.icount else "ns"
    text = [f"# extra {unit} per SQE a check adds over the same kernel's unrestricted ring, "
            "with the comparison's 95 % interval; one block per cell",
            "# cells: " + " ".join(f'"{b}"' for b, _ in blocks),
            "# check kernel per_op lo hi"]
    # two blank lines between blocks: gnuplot's index
    text.append("\n\n\n".join("\n".join(rows) for _b, rows in blocks))
    write_atomic(name, "\n".join(text) + "\n")


def write_fio_iops(run, data, fio):
    """fio-iops.dat: per fio job, each kernel's restricted ring's IOPS
    over its unrestricted ring's (% change of the medians over the
    repetitions), with the 95 % bootstrap interval of that ratio of
    medians (none from one repetition). Under icount the NVMe jobs are
    left out, as in the report: the emulated disk's timing is the host's."""
    name = os.path.join(data, "fio-iops.dat")
    kernels = [k for k in with_lab({k for _j, k, _r in fio})
               if any(key[1:] == (k, "restricted") for key in fio)]
    jobs = sorted({j for j, _k, _r in fio})
    dropped = [j for j in jobs if run.icount and j.startswith("nvme-")]
    jobs = [j for j in jobs if j not in dropped]
    rng = random.Random(1)  # the same interval from the same data
    lines, reps = [], set()
    for job in jobs:
        f = [f'"{job}"']
        for k in kernels:
            r = [j["read"]["iops"] for j in fio.get((job, k, "restricted"), [])]
            u = [j["read"]["iops"] for j in fio.get((job, k, "unrestricted"), [])]
            if not r or not u:
                f += ["?"] * 4
                continue
            n = min(len(r), len(u))
            reps.add(n)
            lo = hi = "?"
            if n > 1:
                a, b = bootstrap_ratio(r, u, rng)
                lo, hi = fmt(100 * a), fmt(100 * b)
            f += [fmt(100 * (statistics.median(r) / statistics.median(u) - 1)), lo, hi, str(n)]
        lines.append(" ".join(f))
    if not reps:
        if os.path.exists(name):
            os.remove(name)
        return
    head = ["# fio IOPS, restricted ring over the same kernel's unrestricted ring: % change "
            "of the medians over repetitions, bootstrap 95 % interval of their ratio",
            "# kernels: " + " ".join(kernels),
            "# repetitions: " + "..".join(str(n) for n in sorted({min(reps), max(reps)})),
            "# left out: " + (" ".join(dropped) if dropped else "none"),
            "# job " + " ".join(f"{k}(pct,lo,hi,reps)" for k in kernels)]
    write_atomic(name, "\n".join(head + lines) + "\n")
