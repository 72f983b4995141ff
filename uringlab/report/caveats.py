"""report/caveats.py: what the figures cannot tell, in one place after
the pictures: what the metric does not see, how many boots the intervals
cover, the many comparisons, a QUICK run's gaps, fio's SQPOLL latency and
(under icount) why the NVMe jobs have no figures."""
import statistics

from uringlab.report.fio import nvme_note


def _repeat(ctx):
    """how closely this run's repetitions agree, from its own summary.csv:
    the median spread over its rings, the widest ring and the cells past
    0.1 %; nothing claimed where there was nothing to spread"""
    rows = [r for r in ctx.summary if r.get("spread_pct") not in (None, "")]
    reps = sorted({int(r["reps"]) for r in rows if r.get("reps")})
    if not rows or not reps or reps[-1] < 2:
        return "This run has no repeated figure, so no spread to report."
    rows.sort(key=lambda r: float(r["spread_pct"]), reverse=True)
    mid = statistics.median(float(r["spread_pct"]) for r in rows)
    top = rows[0]
    n = f"{reps[0]}" if len(reps) == 1 else f"{reps[0]} to {reps[-1]}"
    s = (f"Under icount the {n} repetitions of a ring spread (max − min over median) "
         f"{mid:.3f} % in the median of this run's {len(rows)} rings, at most "
         f"{float(top['spread_pct']):.3f} % ({top['cell']}, {top['kernel']}, {top['ring']})")
    wide = list(dict.fromkeys(r["cell"] for r in rows if float(r["spread_pct"]) > 0.1))
    if wide:
        more = f" and {len(wide) - 6} more" if len(wide) > 6 else ""
        s += (f"; {len(wide)} cell{'s' if len(wide) > 1 else ''} spread more than 0.1 % "
              f"on some ring: {', '.join(wide[:6])}{more}")
    return s + "."


def section(ctx):
    if not ctx.summary and not ctx.fio and not ctx.nvme:
        return []
    out = ["## Caveats\n"]
    w = out.append
    accel = ctx.host.get("accel", "?")
    if ctx.icount:
        w("- **What the metric cannot see.** Under icount every guest instruction costs one "
          "virtual nanosecond, whatever it does: a cache miss, a mispredicted branch, a ring's "
          "context gone cold between its turns, a lock another CPU holds cost nothing here. "
          "`make trace` puts a cache model's misses beside the instructions, and `make check`'s "
          "`-l1d` rules bound them; only a wall-clock run on hardware (KVM) times them.")
    elif accel == "tcg":
        w("- **What the metric measures.** Wall-clock time under TCG weighs each guest "
          "instruction by what QEMU takes to emulate it, and takes in the host's load: it ranks "
          "kernels, it does not time a CPU, and a difference of a few instructions lies below "
          "its noise (icount counts those exactly).")
    else:
        w(f"- **What the metric measures.** Wall-clock time on {accel}: the host's load and "
          "clock move the figures; the intervals cover what the boots saw.")
    if ctx.boots > 1:
        w(f"- **{ctx.boots} boots per kernel.** The intervals come from the variation between "
          "rounds of boots; what each comparison could have detected is in the per-cell "
          "tables.")
    elif ctx.icount:
        w("- **One boot per kernel.** " + _repeat(ctx) + " The intervals cover the "
          "repetitions, not a second boot (`bench/gate/thresholds` notes the read cells' "
          "per-boot mode of about 4 instructions per read).")
    else:
        w("- **One boot per kernel.** The interval covers the repetitions, not the variation "
          "between boots (`BOOTS=N` for that).")
    if ctx.overhead:
        w(f"- **Many comparisons.** Each interval is one comparison's own 95 % test, not "
          f"corrected for the {len(ctx.overhead)} in this report: about one in twenty true "
          "zeros will read as significant somewhere.")
    if "QUICK=1" in ctx.host.get("settings", "").split():
        w("- **QUICK=1.** A reduced matrix with fewer repetitions: the cells it leaves out are "
          "absent from every table, not estimated, and the verdict names the rules they leave "
          "unjudged.")
    if any(r["job"].endswith("-sqpoll") for r in ctx.fio):
        w("- **fio and SQPOLL.** fio 3.33 does not time SQPOLL submissions: its clat for "
          "`*-sqpoll` jobs is its overflow bucket, not a latency; read the IOPS.")
    if ctx.fio and not ctx.icount:
        w("- **fio on NVMe.** The emulated NVMe disk completes on QEMU's I/O thread: its "
          "figures depend on the host.")
    if ctx.nvme:
        w("- " + nvme_note(ctx.nvme)[0].rstrip("\n"))
    w("")
    return out
