"""report/fio.py: the fio section of the appendix, and nvme_note(): why
NVMe has no figures under icount (caveats.py says it)."""
import glob
import os

from uringlab.bench_plotdata import FIO_OVERFLOW_NS
from uringlab.numfmt import num


def section(ctx):
    out = []
    w = out.append
    run, fio, failures, icount, kl = ctx.run, ctx.fio, ctx.failures, ctx.icount, ctx.kl
    failed_fio = [f for f in failures if len(f) > 3 and f[1].startswith("fio ")]
    if fio or failed_fio:
        w("## fio (`fio-jobs/`)\n")
    if failed_fio:
        w("**Failed fio runs** (not in the figures below):\n")
        for f in failed_fio:
            w(f"- `{f[0]}`, {f[1][4:]}: {f[2]} (`{f[3]}`)")
        w("")
    if fio:
        w("Restricted runs use `bench/uring-restrict` with the policy in the job "
          "file; a run counts only if the wrapper restricted fio's ring and fio "
          "reported no error. "
          + ("Under icount fio's completion latency counts guest instructions between "
             "two clock reads, which the IOPS already give: no latency columns.\n" if icount else
             "Latency is fio's completion latency (clat) in µs; a percentile in fio's "
             "overflow bucket is left blank.\n"))
        lats = () if icount else ("clat_p50_ns", "clat_p90_ns", "clat_p99_ns", "clat_p99.9_ns")
        w("| job | kernel | ring | reps | IOPS median (min .. max) |"
          + "".join(f" clat {k[5:-3]} |" for k in lats))
        w("|---|---|---|---:|---:|" + "---:|" * len(lats))
        for r in fio:
            lat = [f"{float(r[k]) / 1000:,.0f}" if r[k] and float(r[k]) < FIO_OVERFLOW_NS else ""
                   for k in lats]
            w(f"| {r['job']} | {kl(r['kernel'])} | {r['ring']} | {r['reps']} | "
              f"{num(r['iops_median'], 0)} ({num(r['iops_min'], 0)} .. {num(r['iops_max'], 0)}) |"
              + "".join(f" {x} |" for x in lat))
        w("")
        w("What fio's figures cannot tell (SQPOLL's latency, the NVMe disk) is under "
          "Caveats.\n")
    # under icount a latency is instructions between two clock reads, which
    # the IOPS already give; the pictures are wall clock's
    if fio and not icount:
        for f in sorted(glob.glob(os.path.join(run, "plots", "fio-*.png"))):
            job = os.path.basename(f)[4:-4]
            if job == "iops":
                continue
            w(f"![fio {job} latency percentiles](plots/{os.path.basename(f)})\n")
    return out


def nvme_note(nvme):
    """Why the NVMe jobs have no figures in an icount report, with the
    spread of what they measured in this run as the evidence."""
    iops = [(float(r["iops_min"]), float(r["iops_max"])) for r in nvme]
    lo, hi = min(a for a, _ in iops), max(b for _, b in iops)
    worst = max(nvme, key=lambda r: float(r["iops_max"]) / max(float(r["iops_min"]), 1e-9))
    runs = sum(int(r["reps"]) for r in nvme)
    njobs = len({r["job"] for r in nvme})
    same = ""
    if max(int(r["reps"]) for r in nvme) > 1:
        same = (f", and the same job on the same kernel and ring {float(worst['iops_min']):,.0f} .. "
                f"{float(worst['iops_max']):,.0f} ({worst['job']}, {worst['kernel']}, {worst['ring']})")
    return [
        f"**NVMe: run, not reported.** The {njobs} NVMe job{'s' if njobs > 1 else ''} ran "
        f"({runs} fio runs over all kernels and rings; failures, if any, are listed under fio), "
        "so the driver, its MSI-X vectors and io_uring's block path were exercised. Their "
        "figures are left out under icount because they time the host, not the kernel: QEMU "
        "reads the disk image on its I/O thread in host time while the idle guest's clock, "
        "under `sleep=off`, jumps to its next timer, so what a completion costs the guest's "
        "clock depends on when the host finished the read. In this run the NVMe IOPS ranged "
        f"{lo:,.0f} .. {hi:,.0f} across jobs, kernels and rings{same}. Their raw JSON is in "
        "`raw/<kernel>/fio/`; with KVM (or `ICOUNT=0`) they are reported.\n"]
