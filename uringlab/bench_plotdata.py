"""bench_plotdata.py: a bench run's tables shaped for gnuplot, in
RUN/plots/data/ (throughput.dat, batch.dat, fio-JOB.dat), which
plots/*.gp draw. bench_summary.py computes the figures and calls it.
"""
import glob
import os
import statistics

from uringlab import cells as cellnames
from uringlab.kernels import LAB_KERNELS
from uringlab.numfmt import fmt
from uringlab.runfolder import write_atomic

RINGS = ["unrestricted", "restricted", "filtered", "restricted+filtered",
         "task-restricted", "task-filtered", "other-filtered", "other-plain"]
PERCENTILES = ["50.000000", "90.000000", "99.000000", "99.900000"]


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
    for c in (c for c in cells if not c.startswith("deny") and not cellnames.split(c)[1]
              and not cellnames.is_task(c)):
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

    # fio-<job>.dat: per percentile, the median clat (us) of each variant;
    # not for NVMe under icount, whose figures time the host (report/fio.py)
    # the lab's three only: fio-lat.gp draws six columns
    variants = [(k, r) for k in LAB_KERNELS for r in RINGS[:2]]
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
